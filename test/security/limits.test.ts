import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('size limits', () => {
  it('caps records per domain and domains per account with clear errors', async () => {
    server = await startTestServer({ limits: { recordsPerDomain: 2, domainsPerAccount: 1 } });
    const { key } = await server.user('alice');
    const d = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'a.example', Type: 'master', SOA_Email: 'h@a.example' });
    const second = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'b.example', Type: 'master', SOA_Email: 'h@b.example' });
    expect(second.ERRORARRAY).toEqual([{ ERRORCODE: 8, ERRORMESSAGE: 'An account may hold at most 1 domains.' }]);
    for (const name of ['one', 'two']) {
      const r = await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: d.DATA.DomainID, Type: 'A', Name: name, Target: '192.0.2.1' });
      expect(r.ERRORARRAY).toEqual([]);
    }
    const third = await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: d.DATA.DomainID, Type: 'A', Name: 'three', Target: '192.0.2.1' });
    expect(third.ERRORARRAY).toEqual([{ ERRORCODE: 8, ERRORMESSAGE: 'A domain may hold at most 2 records.' }]);
  });

  it('answers an oversized body in the envelope, not with an HTTP error', async () => {
    server = await startTestServer();
    const { key } = await server.user('alice');
    const res = await fetch(`${server.base}/api/?api_action=test.echo&api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `foo=${'x'.repeat(2 * 1024 * 1024)}`,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ERRORARRAY: [{ ERRORCODE: 1, ERRORMESSAGE: 'Bad request: the request body is too large.' }], ACTION: 'test.echo', DATA: {} });
  });

  it('holds a multipart body to the same limit: its length must be declared and within it', async () => {
    server = await startTestServer();
    const { key } = await server.user('alice');
    const port = Number(new URL(server.base).port);
    const envelope = (message: string) => JSON.stringify({ ERRORARRAY: [{ ERRORCODE: 1, ERRORMESSAGE: message }], ACTION: 'test.echo', DATA: {} });
    const field = (name: string, value: string) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    // The parser reads multipart bodies itself: without this check, fields of up to 1 MiB each, any number of them.
    const big = new FormData();
    for (let i = 0; i < 3; i++) big.set(`f${i}`, 'x'.repeat(900 * 1024));
    const res = await fetch(`${server.base}/api/?api_action=test.echo&api_key=${key}`, { method: 'POST', body: big });
    expect(await res.text()).toBe(envelope('Bad request: the request body is too large.'));
    const head = `POST /api/?api_action=test.echo&api_key=${key} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nConnection: close\r\n`;
    const chunk = field('foo', 'bar') + '--b--\r\n';
    const chunked = await rawRequest(port, `${head}Transfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`);
    expect(chunked).toMatch(/^HTTP\/1\.1 200 /);
    expect(chunked.endsWith(envelope('Bad request: a multipart body needs a Content-Length header.'))).toBe(true);
    // Within the limit, multipart works as before.
    const small = await rawRequest(port, `${head}Content-Length: ${chunk.length}\r\n\r\n${chunk}`);
    expect(small.endsWith('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"FOO":"bar"}}')).toBe(true);
  });

  it('stops within seconds while a client holds a connection open in the middle of an upload', async () => {
    server = await startTestServer();
    const port = Number(new URL(server.base).port);
    // Headers announcing a body far over the limit, one byte of it, then nothing: the server answers 413 and
    // the connection is neither idle nor going anywhere.
    const socket = connect(port, '127.0.0.1', () => socket.write('POST /v1/domains HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{'));
    socket.on('error', () => {});
    const answered = new Promise((resolve) => socket.once('data', resolve));
    await answered;
    const started = Date.now();
    const closing = server.close().then(() => 'stopped');
    server = undefined;
    const outcome = await Promise.race([closing, new Promise((r) => setTimeout(() => r('still stopping after 15 s'), 15_000))]);
    socket.destroy();
    expect(outcome).toBe('stopped');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
