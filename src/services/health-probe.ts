/**
 * One probe of a health check: an HTTP(S) GET of its path that answers 2xx or 3xx within the timeout (redirects
 * are not followed: a redirect says the server is there), or a TCP connection that opens within it. The host
 * is the Host header and the TLS server name; certificates are not verified — the check asks whether the
 * server answers, and a lapsed certificate is not an outage of the address.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, isIPv6 } from 'node:net';
import type { HealthCheckData } from '../model/health-check.js';

/** Whether the server answered as a healthy one would; `why` when not (for the log). */
export type ProbeResult = { ok: true } | { ok: false; why: string };

export type Probe = (c: HealthCheckData) => Promise<ProbeResult>;

export const probe: Probe = (c) => (c.type === 'tcp' ? probeTcp(c) : probeHttp(c));

function probeTcp(c: HealthCheckData): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = connect({ host: c.address, port: c.port });
    const done = (r: ProbeResult) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ ok: false, why: `no connection within ${c.timeout} s` }), c.timeout * 1000);
    socket.once('connect', () => done({ ok: true }));
    // `on`, not `once`: a socket may report more than one error on its way down.
    socket.on('error', (e) => done({ ok: false, why: e.message }));
  });
}

function probeHttp(c: HealthCheckData): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const name = c.host || (isIPv6(c.address) ? `[${c.address}]` : c.address);
    // The port is written only when it is not the scheme's own (RFC 9110 7.2).
    const host = c.port === (c.type === 'https' ? 443 : 80) ? name : `${name}:${c.port}`;
    const request = c.type === 'https' ? httpsRequest : httpRequest;
    const req = request({
      host: c.address,
      port: c.port,
      path: c.path,
      method: 'GET',
      headers: { host, 'user-agent': 'zonehost-healthcheck', connection: 'close' },
      ...(c.type === 'https' ? { servername: c.host || undefined, rejectUnauthorized: false } : {}),
      agent: false,
    });
    const done = (r: ProbeResult) => {
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ ok: false, why: `no answer within ${c.timeout} s` }), c.timeout * 1000);
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      // The body is not read: the status says it all, and the request is destroyed at once.
      res.on('error', () => undefined);
      done(status >= 200 && status < 400 ? { ok: true } : { ok: false, why: `HTTP status ${status}` });
    });
    // `on`, not `once`: destroying a request may report an error after the first.
    req.on('error', (e) => done({ ok: false, why: e.message }));
    req.end();
  });
}
