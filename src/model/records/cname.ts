import { absoluteName } from '../names.js';
import { fromColumns, hostField, nameField, parseOneHost, presentHost, ttlField, v3Columns, validateHost } from './common.js';
import type { RecordType } from './types.js';

export const CNAME: RecordType = {
  type: 'CNAME',
  code: 5,
  description: 'Alias of another host name',
  exclusive: true,
  apexAllowed: false,
  aliasTarget: (data) => String(data.target),
  v3: {
    fromV3: (cols) => fromColumns('CNAME', cols, { target: cols.target }),
    toV3: (rec) => v3Columns(rec, { target: String(rec.data.target) }),
  },
  v1Fields: {
    name: nameField,
    target: hostField('The canonical host name this name is an alias of'),
    ttl: ttlField,
  },
  v1Required: ['name', 'target'],
  validate(rec, ctx, p) {
    rec.data = { target: rec.data.target };
    validateHost(rec.data, 'target', 'CNAME', 'target host name', p);
    // An alias of itself is a loop: resolvers give up on it (SERVFAIL) instead of finding an answer.
    const own = absoluteName(rec.name, ctx.zone);
    if (String(rec.data.target).toLowerCase() === own.toLowerCase()) p.add('target', `A CNAME record cannot point at its own name (${own}).`);
  },
  encode: (data, w) => w.name(String(data.target), true),
  decode: (r) => ({ target: r.name() }),
  present: (data) => presentHost(data.target),
  parse: (tokens, origin) => ({ target: parseOneHost(tokens, origin, 'the target host name') }),
};
