/**
 * The request log: GET clients of interface A (lexicon, libcloud, user.getapikey over GET) send api_key and
 * password in the URL, so every logged URL, on any route, has their values replaced.
 */
import type { FastifyRequest } from 'fastify';

const SECRET_ARGS = new Set(['api_key', 'password']);

/** A request target with the values of secret arguments replaced (names compared as the parser sees them). */
export function redactTarget(target: string): string {
  const q = target.indexOf('?');
  if (q < 0) return target;
  const pairs = target
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const raw = eq < 0 ? pair : pair.slice(0, eq);
      let name = raw;
      try {
        name = decodeURIComponent(raw.replace(/\+/g, ' '));
      } catch {
        // an undecodable name cannot match a secret argument's name either
      }
      return SECRET_ARGS.has(name.toLowerCase()) ? `${raw}=[redacted]` : pair;
    });
  return `${target.slice(0, q)}?${pairs.join('&')}`;
}

/** Serializers of the HTTP logger: Fastify's request entry, with the URL redacted. */
export const requestLogSerializers = {
  req: (req: FastifyRequest) => ({ method: req.method, url: redactTarget(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }),
};
