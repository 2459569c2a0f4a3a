/**
 * The OpenAPI 3.1 document: its header (the decisions the specification left open, stated once for readers),
 * the route that serves it, and the documentation page. The paths and schemas come from the routes.
 */
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { DEFAULT_TIMERS } from '../../model/ttl.js';
import { RECORD_TYPE_NAMES } from '../../model/records/index.js';
import { DEFAULT_PAGE, MAX_PAGE } from './shared-schemas.js';
import { allowOnly } from './support.js';

const DESCRIPTION = `
Interface B of zonehost: the same accounts, keys, domains and records as interface A (the Linode v3-compatible
endpoint at /), organised as resources. Ids are shared: a domain's \`id\` is its DomainID, a record's its ResourceID.

**Authentication.** Send an API key as \`Authorization: Bearer <key>\`, or as the password of HTTP Basic (any user
name). Keys come from \`POST /v1/keys\` (user name and password) or interface A's \`user.getapikey\`. A missing or
bad key answers 401 with \`WWW-Authenticate\`.

**Errors** are RFC 9457 problem documents (\`application/problem+json\`) whose \`errors\` array names every
problem found (\`field\`, \`reason\`). Status codes: 400 invalid JSON, schema or rule violation (unknown fields
are refused); 401 authentication; 404 no such object (another account's objects are indistinguishable from
missing ones, and a record reached through the wrong type is 404); 405 method not allowed (with \`Allow\`);
409 conflict (domain name taken, CNAME clash, duplicate record, a count limit reached); 412 If-Match mismatch;
413 body too large; 415 body not JSON; 422 a zone file with bad lines (one problem per line); 429 too many requests (with \`Retry-After\`).

**Lists** are JSON arrays of exactly the single-resource GET shape, ordered by id (stable). Pages hold
\`limit\` items (default ${DEFAULT_PAGE}, at most ${MAX_PAGE}); when more follow, \`Link: <...>; rel="next"\`
gives the URL of the next page (its \`after\` cursor is the last id seen). Filters: \`?name=\` on domains,
zone mirrors and records, \`?type=\` on \`/records\`, \`?domain=\` on \`/events\`.

**Concurrency.** Single-resource GETs, creates and updates carry an \`ETag\`; PUT, PATCH and DELETE honour
\`If-Match\` (412 when it does not match). PUT replaces the whole representation (omitted optional fields take
their defaults), PATCH changes only the fields given (JSON, also as application/merge-patch+json).

**Mapping to interface A.** \`status\`: STATUS 0 is "inactive", 1 and 2 (edit mode) are "active"; setting the
name a domain already has keeps its STATUS. \`default_ttl\` is TTL_SEC unchanged: 0 means the server default
(${DEFAULT_TIMERS.ttl} s); TTLs are rounded up to the allowed set as in interface A. Domain fields interface B
does not show (description, SOA timers, display group) keep their values on PUT. A domain of Type=slave is a
zone mirror: it appears under /v1/zonemirrors and not under /v1/domains, and its transferred records are not
exposed as resources (transfer the zone from the DNS server instead).

**Records.** Each type (${RECORD_TYPE_NAMES.join(', ')}) has its own schema with its own named fields, generated
from the server's record-type registry. Owner names (\`name\`) are relative to the domain ("" is the domain itself;
a name ending in the domain is made relative). Host names in record data are stored without the trailing dot.

**Zone files.** \`GET /v1/domains/{id}/zonefile\` exports the zone as an RFC 1035 master file (text/dns);
\`PUT\` with a master file (text/dns or text/plain, at most 10 MiB) makes the domain's records the file's in one
transaction, \`?dry_run=true\` only answers the difference. \`POST /v1/domains/{id}/zonefile/transfer\` imports the
zone by AXFR from the current provider (an IP address, port 53 or 1024-65535, optional TSIG; private, loopback and
other internal destinations refused) and writes it as a PUT would. The syntax taken and refused, the SOA and NS
rules, the transfer's rules: docs/interface-b.md, section "Zone files".
`.trim();

const OPENAPI_INFO: FastifyDynamicSwaggerOptions['openapi'] = {
  openapi: '3.1.0',
  info: { title: 'zonehost interface B', version: '1', description: DESCRIPTION },
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'An API key as the bearer token' },
      basic: { type: 'http', scheme: 'basic', description: 'An API key as the password (the user name is ignored)' },
    },
  },
  security: [{ bearer: [] }, { basic: [] }],
  tags: [
    { name: 'domains', description: 'Master zones' },
    { name: 'records', description: 'All records of a domain' },
    { name: 'zonemirrors', description: 'Secondary zones transferred from other servers' },
    { name: 'keys', description: 'API keys' },
    { name: 'members', description: "The account's members, their roles and domains, and invitations (docs/interface-b.md)" },
    { name: 'security', description: 'Your second factors (TOTP, passkeys) and password; the account\'s require_2fa' },
    { name: 'tsigkeys', description: 'TSIG keys for DNS UPDATE and signed transfers' },
    { name: 'healthchecks', description: 'Health checks, which records\' steering follows (failover)' },
    { name: 'dnssec', description: 'DNSSEC signing of a domain: keys, DS records, rollovers (docs/dnssec.md)' },
    { name: 'events', description: 'Audit trail' },
  ],
};

/** Collects the routes' schemas into the document; register at the root, before interface B. */
export const collectOpenapi = (app: FastifyInstance) => app.register(swagger, { openapi: OPENAPI_INFO });

/** GET /v1/openapi.json: the document, public. */
export const openapiRoutes: FastifyPluginAsync = async (app) => {
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  allowOnly(app, '/openapi.json', ['GET']);
};

const DOCS_CSP = "default-src 'self'; base-uri 'self'; img-src 'self' data:; font-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'self'";

/**
 * /docs renders the document with the assets bundled in @fastify/swagger-ui. Offline: assets come from the
 * package, the validator badge (a call to validator.swagger.io) is off, and the CSP allows nothing but this server.
 */
export const serveDocsPage = (app: FastifyInstance) => app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { validatorUrl: null }, staticCSP: DOCS_CSP });
