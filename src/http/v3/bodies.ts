/** The bodies interface A reads: form fields (urlencoded or multipart); any other body is read and ignored. */
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

export async function acceptFormBodies(app: FastifyInstance): Promise<void> {
  await app.register(formbody);
  await app.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: 1024 * 1024, files: 10 } });
  // The multipart parser reads the socket itself, past Fastify's body limit, and would hold any number of
  // 1 MiB fields in memory before authentication: so a multipart body must declare its length, within
  // the limit (Node then reads no more than that). Real clients (curl -F, requests, fetch) declare it.
  app.addHook('onRequest', async (req) => {
    if (!req.headers['content-type']?.toLowerCase().startsWith('multipart/')) return;
    const length = Number(req.headers['content-length'] ?? NaN);
    if (!(length <= app.initialConfig.bodyLimit!)) {
      throw Object.assign(new Error('multipart body without a length within the limit'), { statusCode: Number.isNaN(length) ? 411 : 413 });
    }
  });
  // Lexicon sends GET with a JSON body "{}"; v3 never reads JSON bodies, and other bodies are ignored too.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('*', (_req, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, undefined));
    payload.on('error', (err) => done(err, undefined));
  });
}
