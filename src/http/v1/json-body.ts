/**
 * Interface B's request bodies: JSON only (415 for anything else); merge-patch is JSON too. JSON is UTF-8
 * (RFC 8259 section 8.1): a body in another charset or coding, or with bytes that are not UTF-8, is refused
 * rather than stored with replacement characters.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Its body may be left out, also as an empty body labelled JSON (a rollover of the same algorithm). */
    bodyOptional?: boolean;
  }
}

type Done = (err: Error | null, body?: unknown) => void;

/** Replaces the app's body parsers by the JSON parser interface B documents. */
export function acceptJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const jsonParser = (req: FastifyRequest, body: Buffer, done: Done): void => {
    // Many clients label every request JSON: an empty body where none is needed (a DELETE) is no body.
    if (body.length === 0 && (!req.routeOptions.schema?.body || req.routeOptions.config?.bodyOptional)) return done(null, undefined);
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
    const coding = req.headers['content-encoding'];
    if ((charset && !/^utf-?8$/i.test(charset)) || (coding && coding.toLowerCase() !== 'identity')) {
      return done(new HttpProblem(415, 'Send the body as uncompressed UTF-8 JSON (charset utf-8 or none, no Content-Encoding).'));
    }
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(new HttpProblem(400, 'The body is not valid UTF-8.'));
    }
    parseJson(req, text, done);
  };
  for (const type of ['application/json', 'application/merge-patch+json']) app.addContentTypeParser(type, { parseAs: 'buffer' }, jsonParser);
}
