/**
 * The EDNS options an answer carries for its client alone: our server cookie (RFC 7873, RFC 9018; wire/cookie.ts)
 * and NSID (RFC 5001). They are appended to the answer on its way out, so answers are cached for every client
 * (response-cache.ts) and a query without them costs nothing more. The main thread and every DNS worker thread
 * hold one of these, with the same secrets (from the store, through server.ts), so they make and accept the
 * same cookies, as every node of a cluster does.
 *
 * Policy, as BIND's default (`require-server-cookie no`): a query with a client cookie alone, or with a server
 * cookie that is not valid (another server's, forged, older than an hour), is answered as usual with a new
 * server cookie; a valid one is sent back unchanged until it is half an hour old. BADCOOKIE is never answered on
 * this path (RFC 7873 5.2.3 leaves it to policy); an answer RRL slips keeps its OPT record, so it carries a fresh cookie.
 *
 * Each holder counts the cookies of the queries it answers (`cookieCounts`, plain numbers: nothing is made per
 * query); a worker thread reports its counts to the main thread, whose counts /metrics reads (server.ts).
 */
import { signingSecret, type CookieSecret } from '../../model/cookie-secret.js';
import { ANSWER_COOKIE_BYTES, checkServerCookie, CLIENT_COOKIE_BYTES, cookieKey, hashedAddressOf, writeAnswerCookie, type CookieKey, type HashedAddress } from '../wire/cookie.js';
import { ednsOption, OPTION } from '../wire/edns-options.js';
import type { Query } from '../wire/query.js';
import { arrivedAt, senderAddressStart, type UdpSender } from './udp-socket.js';

/**
 * What a query's COOKIE option was, as /metrics counts it: a client cookie alone; a valid server cookie of ours
 * (sent back, or renewed after half an hour); a server cookie that is not (forged, stale, another server's: a
 * fresh one is sent); a wrong length (FORMERR).
 */
export type CookieSeen = 'clientOnly' | 'valid' | 'invalid' | 'malformed';

/** Queries answered, by what their cookie was. */
export type CookieCounts = Record<CookieSeen, number>;

export const noCookieCounts = (): CookieCounts => ({ clientOnly: 0, valid: 0, invalid: 0, malformed: 0 });

/**
 * The options of one answer, and what the query's cookie was. What `forQuery` answers is reused by its next call
 * (the hot path makes no object per query): a caller that keeps it past a wait takes `detached` of it.
 */
export interface AnswerExtras {
  /** The options, ready to append to OPT's rdata. */
  options: Buffer;
  /** The query carried a server cookie of ours, made for its address within the hour: it cannot have been forged. */
  validServerCookie: boolean;
  /** What the query's cookie was; null without one (options for NSID alone). */
  cookie: CookieSeen | null;
}

/** The secrets and NSID a DNS worker thread is given (thread-messages.ts), as structured clone carries them. */
export interface AnswerOptionsSetup {
  secrets: CookieSecret[];
  nsid: Uint8Array | null;
}

export class AnswerOptions {
  /** Every secret known, each as SipHash's key: any of them makes a valid cookie. */
  private keys: CookieKey[] = [];
  private secrets: { period: number; key: CookieKey }[] = [];
  private readonly nsid: Buffer | null;
  /** What forQuery answers, reused: the cookie option alone, the cookie option and NSID, and the object itself. */
  private readonly cookieOption = cookieOptionBuffer(0);
  private readonly cookieAndNsid: Buffer | null;
  private readonly extras: AnswerExtras = { options: this.cookieOption, validServerCookie: false, cookie: null };
  /** The UDP sender's address, in place (forQuery). */
  private readonly sender: HashedAddress = { bytes: new Uint8Array(0), start: 0, end: 0 };
  /** The cookies of the queries answered (`counted`), since this was made or its holder last reset them. */
  readonly cookieCounts: CookieCounts = noCookieCounts();

  constructor(setup: AnswerOptionsSetup) {
    this.nsid = setup.nsid && setup.nsid.length > 0 ? ednsOption(OPTION.NSID, setup.nsid) : null;
    this.cookieAndNsid = this.nsid ? cookieOptionBuffer(this.nsid.length) : null;
    if (this.nsid && this.cookieAndNsid) this.nsid.copy(this.cookieAndNsid, 4 + ANSWER_COOKIE_BYTES);
    this.setSecrets(setup.secrets);
  }

  /** The secrets from now on (a rollover): one at least. */
  setSecrets(secrets: readonly CookieSecret[]): void {
    this.secrets = secrets.map((s) => ({ period: s.period, key: cookieKey(s.secret) }));
    // The key making cookies now is tried first: most valid cookies were made with it.
    const first = signingSecret(this.secrets, Date.now());
    this.keys = [...this.secrets].sort((a, b) => Number(b === first) - Number(a === first)).map((s) => s.key);
  }

  /**
   * The options the answer to `q` carries for the client at `address` (over UDP its sender's bytes, so no text is
   * made per query, and the time its batch was read; otherwise the clock, `now`, read only when a cookie needs
   * it), or null when it asks for none. Same
   * size whatever the cookie's verdict, so an answer's room is known before the cookie is checked.
   */
  forQuery(q: Query, raw: Buffer, address: string | UdpSender, now: () => number): AnswerExtras | null {
    const edns = q.edns;
    if (!edns || (edns.cookieAt === 0 && !(edns.nsid && this.nsid))) return null;
    const nsid = edns.nsid ? this.nsid : null;
    const extras = this.extras;
    if (edns.cookieAt === 0) {
      extras.options = nsid as Buffer;
      extras.validServerCookie = false;
      extras.cookie = null;
      return extras;
    }
    const options = nsid ? (this.cookieAndNsid as Buffer) : this.cookieOption;
    const seen = this.writeCookie(raw, edns.cookieAt, edns.cookieLength, this.hashed(address), arrivedAt(address, now), options, 4);
    extras.options = options;
    extras.validServerCookie = seen === 'valid';
    extras.cookie = seen;
    return extras;
  }

  /** The client's address as the cookie's hash takes it: a UDP sender's bytes in place, else made from its text. */
  private hashed(client: string | UdpSender): HashedAddress {
    if (typeof client === 'string') return hashedAddressOf(client);
    const h = this.sender;
    h.bytes = client.bytes;
    h.start = senderAddressStart(client);
    h.end = client.at + 16;
    return h;
  }

  /**
   * Counts the cookie of a query `extras` were made for: once per query, by whoever answers it (`forQuery` is
   * called again for a query whose quick answer has to wait, and on a worker thread before its cache misses).
   */
  counted(extras: AnswerExtras | null): void {
    if (extras?.cookie) this.cookieCounts[extras.cookie]++;
  }

  /** Counts a query answered FORMERR for a COOKIE option of a wrong length. */
  countMalformed(): void {
    this.cookieCounts.malformed++;
  }

  /** The extra room `forQuery` takes in the answer to `q` (a DNS worker thread keys its cache with it). */
  room(q: Query): number {
    const edns = q.edns;
    if (!edns) return 0;
    return (edns.cookieAt !== 0 ? 4 + ANSWER_COOKIE_BYTES : 0) + (edns.nsid && this.nsid ? this.nsid.length : 0);
  }

  /**
   * Whether `q` carries a valid server cookie of ours for `address` (RRL lets such queries through: they cannot be
   * forged). Costs a SipHash per secret when the query has a server cookie, nothing otherwise.
   */
  hasValidServerCookie(q: Query, raw: Buffer, address: string, now: number): boolean {
    const edns = q.edns;
    if (!edns || edns.cookieLength !== ANSWER_COOKIE_BYTES) return false;
    return checkServerCookie(raw, edns.cookieAt, edns.cookieLength, hashedAddressOf(address), Math.floor(now / 1000), this.keys) !== 'invalid';
  }

  /** Writes the answer's cookie data at `out[at]`; what the query's cookie was. */
  private writeCookie(raw: Buffer, at: number, length: number, addr: HashedAddress, now: number, out: Buffer, outAt: number): CookieSeen {
    const nowS = Math.floor(now / 1000);
    if (length === CLIENT_COOKIE_BYTES) {
      this.writeFresh(raw, at, addr, now, out, outAt);
      return 'clientOnly';
    }
    const verdict = length === ANSWER_COOKIE_BYTES ? checkServerCookie(raw, at, length, addr, nowS, this.keys) : 'invalid';
    if (verdict === 'valid') {
      // Young enough: sent back as it came, so the client keeps one cookie for the half hour.
      raw.copy(out, outAt, at, at + ANSWER_COOKIE_BYTES);
      return 'valid';
    }
    this.writeFresh(raw, at, addr, now, out, outAt);
    return verdict === 'renew' ? 'valid' : 'invalid';
  }

  /** Writes the client's cookie and a new server cookie of ours at `out[outAt]`. */
  private writeFresh(raw: Buffer, at: number, addr: HashedAddress, now: number, out: Buffer, outAt: number): void {
    const signing = signingSecret(this.secrets, now) as { key: CookieKey };
    writeAnswerCookie(raw, at, addr, Math.floor(now / 1000), signing.key, out, outAt);
  }
}

/** A COOKIE option's buffer for our answers' cookie (its data written per answer), `after` octets left after it. */
function cookieOptionBuffer(after: number): Buffer {
  const b = Buffer.alloc(4 + ANSWER_COOKIE_BYTES + after);
  b.writeUInt16BE(OPTION.COOKIE, 0);
  b.writeUInt16BE(ANSWER_COOKIE_BYTES, 2);
  return b;
}

/** Extras of one's own, for a caller that keeps them while other queries are answered. */
export const detached = (extras: AnswerExtras | null): AnswerExtras | null =>
  extras && { options: Buffer.from(extras.options), validServerCookie: extras.validServerCookie, cookie: extras.cookie };
