/** Schemas of /v1/healthchecks: the account's health checks, which records' steering follows. */
import { Type } from '@sinclair/typebox';
import {
  DEFAULT_FALL,
  DEFAULT_INTERVAL_S,
  DEFAULT_RISE,
  HEALTH_CHECK_TYPES,
  MAX_COUNT,
  MAX_INTERVAL_S,
  MAX_PATH_LENGTH,
  MIN_INTERVAL_S,
  MIN_TIMEOUT_S,
} from '../../../model/health-check.js';
import { timestamp } from '../shared-schemas.js';

const fields = {
  type: Type.Union(
    HEALTH_CHECK_TYPES.map((t) => Type.Literal(t)),
    { description: 'http or https: a GET of `path` answered 2xx or 3xx within the timeout; tcp: a connection that opens within it' },
  ),
  address: Type.String({ maxLength: 64, description: 'The IPv4 or IPv6 address probed (not a host name); public addresses only, unless the operator allows others (--healthcheck-allow)' }),
  port: Type.Integer({ minimum: 1, maximum: 65535, description: 'Port probed; default 80 (http) or 443 (https); required for tcp' }),
  path: Type.String({ maxLength: MAX_PATH_LENGTH, description: 'The HTTP request\'s path and query (default "/")' }),
  host: Type.String({ maxLength: 253, description: 'The HTTP Host header and TLS server name (default: the address)' }),
  interval: Type.Integer({ minimum: MIN_INTERVAL_S, maximum: MAX_INTERVAL_S, description: `Seconds between probes (default ${DEFAULT_INTERVAL_S})` }),
  timeout: Type.Number({ minimum: MIN_TIMEOUT_S, maximum: MAX_INTERVAL_S, description: 'Seconds a probe may take, below the interval (default 2, or half the interval when that is shorter)' }),
  fall: Type.Integer({ minimum: 1, maximum: MAX_COUNT, description: `Failed probes in a row that make the check down (default ${DEFAULT_FALL})` }),
  rise: Type.Integer({ minimum: 1, maximum: MAX_COUNT, description: `Successful probes in a row that make the check up (default ${DEFAULT_RISE})` }),
};

export const HealthCheckCreate = Type.Object(
  {
    type: fields.type,
    address: fields.address,
    port: Type.Optional(fields.port),
    path: Type.Optional(fields.path),
    host: Type.Optional(fields.host),
    interval: Type.Optional(fields.interval),
    timeout: Type.Optional(fields.timeout),
    fall: Type.Optional(fields.fall),
    rise: Type.Optional(fields.rise),
  },
  { additionalProperties: false, title: 'HealthCheckCreate', description: 'A new health check; omitted fields take the defaults shown.' },
);

export const HealthCheckPatch = Type.Partial(Type.Object(fields), {
  additionalProperties: false,
  title: 'HealthCheckPatch',
  description: 'Any subset of the fields; the others keep their values. The status stays until the next probes say otherwise.',
});

export const HealthCheck = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    ...fields,
    status: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('unknown')], { description: 'up, down, or unknown (not probed enough yet)' }),
    changed: timestamp('When the status last changed; null while it never has'),
    created: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, title: 'HealthCheck', description: 'A health check and its status' },
);

export const HealthCheckParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Health check id' }) });
