/**
 * TTL and SOA timer rules, shared by both interfaces: 0 means "use the default",
 * anything else is rounded up to the next value of the set Linode documented.
 */
export const ALLOWED_TTLS = [300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600, 2419200] as const;
export const MAX_TTL = 2419200;

/** Rounds up to the allowed set; 0 stays 0. The caller has already checked 0 <= value <= MAX_TTL. */
export function roundTtl(value: number): number {
  if (value === 0) return 0;
  return ALLOWED_TTLS.find((t) => t >= value) ?? MAX_TTL;
}

/** Why a TTL/timer value is out of range, or null. */
export function ttlProblem(value: number): string | null {
  if (!Number.isInteger(value) || value < 0 || value > MAX_TTL) {
    return `must be a whole number of seconds between 0 and ${MAX_TTL} (0 means the default)`;
  }
  return null;
}

/** What a 0 means when the zone is served (Linode v4's published defaults; v3 documented none). */
export const DEFAULT_TIMERS = {
  ttl: 86400,
  refresh: 14400,
  retry: 14400,
  expire: 1209600,
  /** SOA MINIMUM, used as the negative-caching TTL (RFC 2308). */
  minimum: 300,
} as const;

/**
 * The TTL as it goes on the wire, 0..2^31-1: a value with the most significant bit set counts as 0
 * (RFC 2181 8), so one a master sent that way is never served as 68 years.
 */
export const wireTtl = (ttl: number | undefined): number => (ttl !== undefined && ttl > 0 && ttl <= 0x7fffffff ? ttl : 0);
