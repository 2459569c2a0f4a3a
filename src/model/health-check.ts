/**
 * Health checks (issue 32): an account's probes of its servers — an HTTP(S) request or a TCP connection to an
 * address — whose status a record's steering follows (model/steering.ts). The rules of their fields, with no
 * I/O: which addresses may be probed is the operator's (services/address-policy.ts), running them the
 * leader's (services/health-runner.ts).
 */
import { Problems } from './errors.js';
import { hostnameProblem, isIPAddress } from './names.js';

export const HEALTH_CHECK_TYPES = ['http', 'https', 'tcp'] as const;
export type HealthCheckType = (typeof HEALTH_CHECK_TYPES)[number];
export type HealthStatus = 'up' | 'down' | 'unknown';

export const MIN_INTERVAL_S = 1;
export const MAX_INTERVAL_S = 300;
export const DEFAULT_INTERVAL_S = 10;
export const DEFAULT_TIMEOUT_S = 2;
/** Consecutive results that change the status, at most: beyond it a check could take hours to act. */
export const MAX_COUNT = 10;
export const DEFAULT_FALL = 3;
export const DEFAULT_RISE = 2;
/** The shortest timeout: below it a healthy server on another continent looks down. */
export const MIN_TIMEOUT_S = 0.1;
export const MAX_PATH_LENGTH = 1024;

/** A check's fields as interface B names them (timeout in seconds, possibly a fraction). */
export interface HealthCheckData {
  type: HealthCheckType;
  address: string;
  port: number;
  /** The HTTP request's path (and query); "/" for TCP checks, where it is not used. */
  path: string;
  /** The HTTP Host header and TLS server name; "" for the address itself. */
  host: string;
  interval: number;
  timeout: number;
  fall: number;
  rise: number;
}

export interface StoredHealthCheck extends HealthCheckData {
  id: number;
  accountId: number;
  status: HealthStatus;
  /** When the status last changed (epoch ms); null while it has not. */
  changedAt: number | null;
  createdAt: number;
}

const DEFAULT_PORTS: Record<HealthCheckType, number | null> = { http: 80, https: 443, tcp: null };

/** A new check's fields: the given ones over the defaults (the port from the type, the timeout below the interval). */
export function withDefaults(input: Partial<HealthCheckData>): Partial<HealthCheckData> {
  const type = input.type;
  const interval = input.interval ?? DEFAULT_INTERVAL_S;
  const port = input.port ?? (type && HEALTH_CHECK_TYPES.includes(type) ? DEFAULT_PORTS[type] : null);
  return {
    path: '/',
    host: '',
    fall: DEFAULT_FALL,
    rise: DEFAULT_RISE,
    ...input,
    interval,
    timeout: input.timeout ?? Math.min(DEFAULT_TIMEOUT_S, interval / 2),
    ...(port === null ? {} : { port }),
  };
}

const isInt = (v: unknown, min: number, max: number): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** Every problem of a check's fields, named by field; the address policy is checked apart (it is the operator's). */
export function checkHealthCheck(c: Partial<HealthCheckData>): Problems {
  const p = new Problems();
  if (!HEALTH_CHECK_TYPES.includes(c.type as HealthCheckType)) p.add('type', `type must be one of ${HEALTH_CHECK_TYPES.join(', ')}.`);
  if (typeof c.address !== 'string' || !isIPAddress(c.address)) {
    p.add('address', 'address must be an IPv4 or IPv6 address (not a host name: what is checked is what is connected to); put a host name in host.');
  }
  if (c.port === undefined) p.add('port', 'port is required for a tcp check.');
  else if (!isInt(c.port, 1, 65535)) p.add('port', 'port must be an integer from 1 to 65535.');
  if (typeof c.path !== 'string' || !/^\/[\x21-\x7e]*$/.test(c.path) || c.path.length > MAX_PATH_LENGTH) {
    p.add('path', `path must start with / and hold only visible ASCII characters (no spaces), at most ${MAX_PATH_LENGTH}.`);
  }
  if (typeof c.host !== 'string' || (c.host !== '' && hostnameProblem(c.host) !== null)) p.add('host', 'host must be a host name such as www.example.com (or empty: the address).');
  if (!isInt(c.interval, MIN_INTERVAL_S, MAX_INTERVAL_S)) p.add('interval', `interval must be a whole number of seconds from ${MIN_INTERVAL_S} to ${MAX_INTERVAL_S}.`);
  const timeout = c.timeout;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < MIN_TIMEOUT_S) p.add('timeout', `timeout must be a number of seconds, at least ${MIN_TIMEOUT_S}.`);
  else if (typeof c.interval === 'number' && timeout >= c.interval) p.add('timeout', `timeout (${timeout} s) must be below the interval (${c.interval} s), so that one probe ends before the next.`);
  if (!isInt(c.fall, 1, MAX_COUNT)) p.add('fall', `fall must be an integer from 1 to ${MAX_COUNT}: the failed probes in a row that make the check down.`);
  if (!isInt(c.rise, 1, MAX_COUNT)) p.add('rise', `rise must be an integer from 1 to ${MAX_COUNT}: the successful probes in a row that make the check up.`);
  return p;
}

/**
 * The status after one more probe result, given the results in a row so far (positive: successes, negative:
 * failures, counting this one): `fall` failures make a check down, `rise` successes up.
 */
export function nextStatus(status: HealthStatus, streak: number, c: Pick<HealthCheckData, 'fall' | 'rise'>): HealthStatus {
  if (streak >= c.rise) return 'up';
  if (-streak >= c.fall) return 'down';
  return status;
}
