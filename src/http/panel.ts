/**
 * The control panel: the React app in web/, built by Vite into dist/panel (`npm run build`) and served
 * from there at /manager/. It has a path of its own because / answers interface A's calls (an API client
 * must keep getting the v3 envelope there), and it talks only to interface B, with the user's own key, so
 * whatever the panel does a script can do too. Everything it loads comes from this server (no CDN).
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PANEL_PREFIX = '/manager/';

/** dist/panel at the package root: two levels up from both src/http/panel.ts and dist/http/panel.js. */
export const PANEL_DIR = fileURLToPath(new URL('../../dist/panel/', import.meta.url));

/** The panel's pages run only code and styles of their own origin and are never framed (clickjacking). */
const CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export async function registerPanel(app: FastifyInstance, dir = PANEL_DIR): Promise<void> {
  if (!existsSync(`${dir}/index.html`)) {
    // Running from source without a build: say so instead of a bare 404.
    const unbuilt = async (_req: unknown, reply: FastifyReply) =>
      reply.code(503).type('text/plain; charset=utf-8').send('The control panel has not been built: run `npm run build`, then restart.\n');
    app.get('/manager', unbuilt); // also /manager/ (the router ignores a trailing slash)
    app.get(`${PANEL_PREFIX}*`, unbuilt);
    return;
  }
  // Browsers ask for /favicon.ico on every page of this origin that names no icon (API answers, the docs),
  // so the panel's icon answers there too instead of a 404 in every console.
  if (existsSync(`${dir}/favicon.ico`)) {
    const icon = readFileSync(`${dir}/favicon.ico`);
    app.get('/favicon.ico', async (_req, reply) => reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(icon));
  }
  await app.register(fastifyStatic, {
    root: dir,
    prefix: PANEL_PREFIX,
    decorateReply: false, // @fastify/swagger-ui registers its own copy with the decorator
    // Routes for the files built (found at start) rather than a wildcard: with the app's ignoreTrailingSlash
    // that is what makes both /manager and /manager/ the panel's index.
    wildcard: false,
    index: ['index.html'],
    setHeaders(res, path) {
      res.setHeader('content-security-policy', CSP);
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
      // Vite names assets by content hash, so they never change; index.html must be fetched fresh.
      res.setHeader('cache-control', /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
