/**
 * The secrets of DNS server cookies (RFC 7873, RFC 9018), shared by every node of a cluster through the store:
 * one per period (a day), made ahead of its period by whichever node asks first, so every node knows a secret
 * before any node makes cookies with it, and kept a period after, so the cookies made with it stay valid.
 */

/** How long one secret makes cookies: a day (RFC 7873 7.1 asks for a change at least every 36 days). */
export const COOKIE_SECRET_PERIOD_MS = 24 * 3600 * 1000;

/** The length of a secret: SipHash-2-4's key (RFC 9018 4.4). */
export const COOKIE_SECRET_BYTES = 16;

export interface CookieSecret {
  /** The period it makes cookies in: epoch ms / COOKIE_SECRET_PERIOD_MS, rounded down. */
  period: number;
  secret: Uint8Array;
}

export const cookiePeriod = (now: number): number => Math.floor(now / COOKIE_SECRET_PERIOD_MS);

/**
 * The secret that makes cookies at `now`: the one of this period, or the latest before it when the store has
 * not been heard from since (it stays the same on every node that is in the same position).
 */
export function signingSecret<S extends { period: number }>(secrets: readonly S[], now: number): S | undefined {
  const period = cookiePeriod(now);
  let best: S | undefined;
  for (const s of secrets) if (s.period <= period && (!best || s.period > best.period)) best = s;
  return best ?? secrets[0];
}
