/**
 * DNS over HTTPS (RFC 8484) at /dns-query: GET with the query in `dns` (base64url) and POST with it as the body
 * (application/dns-message), over HTTP/2 as well as HTTP/1.1. The DNS server answers (`DnsQuery`, from
 * src/dns/server/doh.ts through server.ts); this door only carries messages. Every DNS answer is HTTP 200, its
 * rcode inside (RFC 8484 4.2.1); what is not a DNS query is 400, another body type 415.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

/** The answer to one DNS message, and how long it may be cached; null when the message is no query. */
export type DnsQuery = (query: Buffer, remoteAddress: string) => Promise<{ message: Buffer; maxAge: number } | null>;

export const DNS_QUERY_PATH = '/dns-query';
const DNS_MESSAGE = 'application/dns-message';
/** The largest DNS message (a 16-bit length, RFC 8484 6). */
const MAX_MESSAGE = 65_535;
/** base64url, RFC 4648 5; RFC 8484 6 sends it without padding, which is tolerated all the same. */
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

const problem = (reply: FastifyReply, status: number, message: string) => reply.code(status).type('text/plain; charset=utf-8').send(`${message}\n`);

async function answer(dnsQuery: DnsQuery, query: Buffer, remoteAddress: string, reply: FastifyReply) {
  const answered = await dnsQuery(query, remoteAddress);
  if (!answered) return problem(reply, 400, 'Not a DNS query.');
  return reply.type(DNS_MESSAGE).header('cache-control', `max-age=${answered.maxAge}`).send(answered.message);
}

export function dnsQueryRoutes(dnsQuery: DnsQuery) {
  return async (app: FastifyInstance) => {
    app.addContentTypeParser(DNS_MESSAGE, { parseAs: 'buffer', bodyLimit: MAX_MESSAGE }, (_req, body, done) => done(null, body));
    // Before any body is read: another type is refused, not parsed as what it says it is (JSON, a form...).
    app.addHook('onRequest', async (req, reply) => {
      if (req.method !== 'POST') return;
      const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== DNS_MESSAGE) return problem(reply, 415, `The body must be ${DNS_MESSAGE}.`);
    });
    // DNS over HTTPS answers what DNS answers anyone: the API's request limits (meant for keys and passwords) do not apply.
    const config = { unlimited: true };
    app.get(DNS_QUERY_PATH, { config }, async (req, reply) => {
      const dns = (req.query as Record<string, unknown>).dns;
      if (typeof dns !== 'string' || !BASE64URL.test(dns) || dns.replace(/=+$/, '').length % 4 === 1) {
        return problem(reply, 400, 'The query must be a DNS message in the dns parameter, base64url-encoded.');
      }
      return answer(dnsQuery, Buffer.from(dns, 'base64url'), req.ip, reply);
    });
    app.post(DNS_QUERY_PATH, { config }, async (req, reply) => {
      if (!Buffer.isBuffer(req.body)) return problem(reply, 400, 'The body must be one DNS message.');
      return answer(dnsQuery, req.body, req.ip, reply);
    });
  };
}
