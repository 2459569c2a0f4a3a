import { fromColumns, hostField, nameField, presentHost, ttlField, uint16Field, v3Columns, v4Columns, validateHost, validateUint } from './common.js';
import { noMore, parseName, parseUint } from './presentation.js';
import type { RecordType, V3Mapping } from './types.js';

/** Interface A's columns of MX (Linode API v4 keeps them). */
const MX_COLUMNS: V3Mapping = {
  fromV3: (cols) => fromColumns('MX', cols, { priority: cols.priority, mail_server: cols.target }),
  toV3: (rec) => v3Columns(rec, { target: String(rec.data.mail_server), priority: Number(rec.data.priority) }),
};

export const MX: RecordType = {
  type: 'MX',
  code: 15,
  description: 'Mail server for the name',
  apexAllowed: true,
  additionalTarget: (data) => String(data.mail_server),
  v3: MX_COLUMNS,
  v4: v4Columns(MX_COLUMNS),
  v1Fields: {
    name: nameField,
    priority: uint16Field('Preference; lower is tried first', 10),
    mail_server: hostField('Host name of the mail server'),
    ttl: ttlField,
  },
  v1Required: ['mail_server'],
  validate(rec, _ctx, p) {
    rec.data = { priority: rec.data.priority ?? 10, mail_server: rec.data.mail_server };
    validateHost(rec.data, 'mail_server', 'MX', 'mail server host name', p);
    validateUint(rec.data, 'priority', p);
  },
  encode(data, w) {
    w.u16(Number(data.priority));
    w.name(String(data.mail_server), true);
  },
  decode: (r) => ({ priority: r.u16(), mail_server: r.name() }),
  present: (data) => `${Number(data.priority)} ${presentHost(data.mail_server)}`,
  parse(tokens, origin) {
    noMore(tokens, 2, 'MX');
    return { priority: parseUint(tokens[0], 65535, 'the preference'), mail_server: parseName(tokens[1], origin, 'the mail server host name') };
  },
};
