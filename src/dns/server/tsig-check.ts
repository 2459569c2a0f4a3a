/**
 * TSIG on the server side (RFC 8945): which key a signed message names, whether it verifies, what a failure is
 * answered, and the signing of the answers to one that verified. The MAC arithmetic is wire/tsig.ts's.
 */
import { keyOfLabels } from '../../model/labels.js';
import type { NamedTsigKey, TsigKeyRef } from '../../model/tsig-key.js';
import type { Services } from '../../services/index.js';
import { OPCODE, RCODE } from '../wire/message.js';
import type { Query } from '../wire/query.js';
import { badTimeOther, sign, tsigSecret, tsigSize, TSIG_ERROR, verify, withTsigError, type Tsig, type TsigSecret } from '../wire/tsig.js';
import { emptyResult } from '../zone/result.js';
import { encodeResponse } from './response.js';

/** Signs the answers to a message that verified: the first with the request's MAC, each later one with the one before (RFC 8945 5.3.1). */
export class Signer {
  constructor(
    readonly secret: TsigSecret,
    /** The customer's key; null for a mirror's key for its masters. */
    readonly key: NamedTsigKey | null,
    private readonly requestMac: Buffer,
    private readonly now: number,
  ) {}

  sign(messages: readonly Buffer[]): Buffer[] {
    let prior: Buffer | undefined;
    return messages.map((m) => {
      const { message, mac } = sign(m, this.secret, prior ? { timeSigned: this.now, priorMac: prior } : { timeSigned: this.now, requestMac: this.requestMac });
      prior = mac;
      return message;
    });
  }
}

/**
 * The stored key a signed message names: a customer's TSIG key, or for a NOTIFY the key a zone mirror holds
 * for its masters (`ref`); null when there is none of that name.
 */
async function keyNamed(services: Services, q: Query, t: Tsig): Promise<{ key: NamedTsigKey | null; stored: NamedTsigKey | TsigKeyRef } | null> {
  const name = keyOfLabels(t.key);
  if (q.opcode === OPCODE.NOTIFY) {
    const mirror = await services.zones.byName(q.key);
    if (mirror?.kind === 'slave' && mirror.masterTsig?.name === name) return { key: null, stored: mirror.masterTsig };
  }
  const key = (await services.tsigKeys.byName(name)) ?? null;
  return key ? { key, stored: key } : null;
}

/**
 * Checks a signed message (RFC 8945 5.2): its key, then MAC, time and truncation. A failure is answered
 * NOTAUTH with the TSIG error: an unknown key or a wrong MAC unsigned, a time out of range (5.2.3) or a MAC
 * truncated below our policy (5.2.4) signed (5.3.2). `limit` is the size the answer may take.
 */
export async function checkTsig(services: Services, q: Query, t: Tsig, raw: Buffer, limit: number): Promise<Signer | { refusal: Buffer }> {
  const found = await keyNamed(services, q, t);
  const now = Math.floor(services.now() / 1000);
  const unsigned = (rcode: number, error: number) => ({ refusal: withTsigError(encodeResponse(q, emptyResult(rcode), limit), t, error) });
  if (!found) return unsigned(RCODE.NOTAUTH, TSIG_ERROR.BADKEY);
  const secret = tsigSecret(found.stored);
  const failure = verify(raw, t, secret, { now });
  if (failure === 1) return { refusal: encodeResponse(q, emptyResult(RCODE.FORMERR), limit) };
  if (failure === TSIG_ERROR.BADTIME) {
    const response = encodeResponse(q, emptyResult(RCODE.NOTAUTH), limit - tsigSize(secret, 6));
    return { refusal: sign(response, secret, { timeSigned: t.timeSigned, fudge: t.fudge, requestMac: t.mac, error: TSIG_ERROR.BADTIME, other: badTimeOther(now) }).message };
  }
  if (failure === TSIG_ERROR.BADTRUNC) {
    const response = encodeResponse(q, emptyResult(RCODE.NOTAUTH), limit - tsigSize(secret));
    return { refusal: sign(response, secret, { timeSigned: now, requestMac: t.mac, error: TSIG_ERROR.BADTRUNC }).message };
  }
  if (failure !== null) return unsigned(RCODE.NOTAUTH, failure);
  return new Signer(secret, found.key, t.mac, now);
}
