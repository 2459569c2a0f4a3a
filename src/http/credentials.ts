/** Where HTTP clients put their API key; shared by both interfaces and the rate limiter. */
import type { FastifyRequest } from 'fastify';

/**
 * Keys from an `Authorization: Basic` header: the password, then (2010 v3 docs, so interface A only) the
 * user name. Interface B takes the password only, as documented: user names end up in logs.
 */
export function basicCredentials(req: FastifyRequest, userName = true): string[] {
  const header = req.headers.authorization;
  if (!header || !/^basic /i.test(header)) return [];
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  return (userName ? [password, user] : [password]).filter((s) => s !== '');
}

/** The key of an `Authorization: Bearer` header, if any. */
export function bearerCredential(req: FastifyRequest): string | undefined {
  const m = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}
