import { absoluteName } from '../names.js';
import { fromColumns, oneHostType, v3Columns, v4Columns } from './common.js';
import type { RecordType, V3Mapping } from './types.js';

const host = oneHostType('CNAME', 'target', 'target host name', 'The canonical host name this name is an alias of');

/** Interface A's columns of CNAME (Linode API v4 keeps them). */
const CNAME_COLUMNS: V3Mapping = {
  fromV3: (cols) => fromColumns('CNAME', cols, { target: cols.target }),
  toV3: (rec) => v3Columns(rec, { target: String(rec.data.target) }),
};

export const CNAME: RecordType = {
  ...host,
  type: 'CNAME',
  code: 5,
  description: 'Alias of another host name',
  exclusive: true,
  apexAllowed: false,
  aliasTarget: (data) => String(data.target),
  v3: CNAME_COLUMNS,
  v4: v4Columns(CNAME_COLUMNS),
  v1Required: ['name', 'target'],
  validate(rec, ctx, p) {
    host.validate(rec, ctx, p);
    // An alias of itself is a loop: resolvers give up on it (SERVFAIL) instead of finding an answer.
    const own = absoluteName(rec.name, ctx.zone);
    if (String(rec.data.target).toLowerCase() === own.toLowerCase()) p.add('target', `A CNAME record cannot point at its own name (${own}).`);
  },
};
