import { commonFromV1, hostField, nameField, ttlField, uint16Field, validateHostTarget, validateUint16 } from './common.js';
import type { RecordType } from './types.js';

interface MxWire {
  preference: number;
  exchange: string;
}

export const MX: RecordType = {
  type: 'MX',
  description: 'Mail server for the name',
  apexAllowed: true,
  additionalTarget: (rec) => rec.target,
  fromV3: (rec) => rec,
  v1Fields: {
    name: nameField,
    priority: uint16Field('Preference; lower is tried first', 10),
    mail_server: hostField('Host name of the mail server'),
    ttl: ttlField,
  },
  v1Required: ['mail_server'],
  fromV1(body) {
    const rec = commonFromV1('MX', body);
    if (typeof body.mail_server === 'string') rec.target = body.mail_server;
    if (typeof body.priority === 'number') rec.priority = body.priority;
    return rec;
  },
  toV1: (rec) => ({ name: rec.name, priority: rec.priority, mail_server: rec.target, ttl: rec.ttl }),
  validate(rec, _ctx, p) {
    validateHostTarget(rec, 'mail server host name', p);
    validateUint16(rec, 'priority', p);
  },
  toWire: (rec): MxWire => ({ preference: rec.priority, exchange: rec.target }),
  fromWire(data) {
    const d = data as MxWire;
    return { target: d.exchange, priority: d.preference, weight: 5, port: 80, protocol: '', tag: '' };
  },
};
