/**
 * TLS for tests: a self-signed certificate for localhost made by openssl at test time (the HTTPS and DNS over
 * TLS tests' server certificate), and a DNS over TLS client that writes several framed messages at once and
 * collects the framed answers, whatever their order.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import type { TlsFiles } from '../../src/config.js';

/** A fresh key and self-signed certificate (CN and SAN localhost, one day) in a directory `remove` deletes. */
export function testCertificate(): TlsFiles & { remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-tls-'));
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`openssl could not make a certificate: ${gen.stderr}`);
  return { cert, key, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A message with its 2-byte length, as DNS over TCP and TLS frame it. */
export const framed = (msg: Buffer): Buffer => Buffer.concat([Buffer.from([msg.length >> 8, msg.length & 0xff]), msg]);

export interface DotClient {
  socket: TLSSocket;
  /** The ALPN protocol the server chose (false: none). */
  alpn: string | false | null;
  /** Writes the messages, framed, in one write. */
  send(messages: Buffer[]): void;
  /** The answers received and not taken yet, taken now. */
  received(): Buffer[];
  /** Resolves with the next `count` answers as they arrive; rejects after `timeoutMs`. */
  answers(count: number, timeoutMs?: number): Promise<Buffer[]>;
  close(): void;
}

/** A DNS over TLS connection to 127.0.0.1:`port`, offering the ALPN "dot"; the certificate is not checked. */
export function dotClient(port: number, alpn: string[] = ['dot']): Promise<DotClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ALPNProtocols: alpn, rejectUnauthorized: false, servername: 'localhost' });
    let buffered = Buffer.alloc(0);
    const received: Buffer[] = [];
    let wake = () => {};
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        received.push(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
        buffered = buffered.subarray(2 + buffered.readUInt16BE(0));
      }
      wake();
    });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      socket.off('error', reject);
      socket.on('error', () => {});
      resolve({
        socket,
        alpn: socket.alpnProtocol,
        send: (messages) => socket.write(Buffer.concat(messages.map(framed))),
        received: () => received.splice(0),
        answers: (count, timeoutMs = 10_000) =>
          new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`${received.length} of ${count} answers within ${timeoutMs} ms`)), timeoutMs);
            wake = () => {
              if (received.length < count) return;
              clearTimeout(timer);
              done(received.splice(0, count));
            };
            wake();
          }),
        close: () => socket.destroy(),
      });
    });
  });
}

export interface HttpsReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The HTTP version spoken: '2' or '1.1'. */
  version: string;
}

/**
 * One request to https://127.0.0.1:`port` over HTTP/2 (`http2`) or HTTP/1.1, the certificate not checked
 * (tests' certificates are self-signed): what fetch cannot do.
 */
export async function httpsRequest(port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string; http2: boolean }): Promise<HttpsReply> {
  const method = opts.method ?? 'GET';
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  if (opts.http2) {
    const { connect: connectH2 } = await import('node:http2');
    const session = connectH2(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, servername: 'localhost' });
    try {
      return await new Promise<HttpsReply>((resolve, reject) => {
        session.on('error', reject);
        const req = session.request({ ':method': method, ':path': opts.path, ...opts.headers });
        const chunks: Buffer[] = [];
        let headers: HttpsReply['headers'] = {};
        req.on('response', (h) => (headers = h as HttpsReply['headers']));
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks), version: '2' }));
        req.on('error', reject);
        req.end(body);
      });
    } finally {
      session.close();
    }
  }
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: opts.path, headers: opts.headers, rejectUnauthorized: false, servername: 'localhost', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), version: res.httpVersion }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
