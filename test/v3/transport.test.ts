/** Interface A transport: paths, methods, encodings, parameter names, response format and HTTP status. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TXT_BYTES } from '../../src/model/records/txt.js';
import { rawRequest } from '../support/raw-http.js';
import { call, data, domain, errorBody, records, world, type Transport, type World } from './support.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.server.close());

const TRANSPORTS: Transport[] = ['GET', 'POST-form', 'POST-multipart'];

describe('interface A transport', () => {
  it.each(['/', '/api/', '/api', '/API/'])('serves %s', async (path) => {
    const a = await call(w.base, { api_action: 'test.echo', api_key: w.alice, foo: 'bar' }, { path });
    expect(a.status).toBe(200);
    expect(a.text).toBe('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"FOO":"bar"}}');
  });

  it.each(TRANSPORTS)('takes the arguments over %s', async (transport) => {
    const id = await data(w.base, { api_action: 'domain.create', api_key: w.alice, Domain: `${transport.toLowerCase()}.example`, Type: 'master', SOA_Email: 'h@example.com' }, { transport });
    expect(id).toEqual({ DomainID: expect.any(Number) });
    const listed = await data(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: id.DomainID }, { transport });
    expect(listed[0].DOMAIN).toBe(`${transport.toLowerCase()}.example`);
  });

  it('merges the query string and a POST body; the query wins on a repeated name', async () => {
    const res = await fetch(`${w.base}/api/?api_action=test.echo&a=query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ api_key: w.alice, a: 'body', b: 'body' }).toString(),
    });
    expect(await res.text()).toBe('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"A":"query","B":"body"}}');
  });

  it('answers with the JSON content type, no whitespace, and keys in ERRORARRAY, ACTION, DATA order', async () => {
    for (const transport of TRANSPORTS) {
      const ok = await call(w.base, { api_action: 'test.echo', api_key: w.alice }, { transport });
      expect(ok.status).toBe(200);
      expect(ok.contentType).toBe('application/json;charset=UTF-8');
      expect(ok.text).toBe('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{}}');
      const bad = await call(w.base, { api_action: 'test.echo', api_key: 'wrong' }, { transport });
      expect(bad.status).toBe(200);
      expect(bad.contentType).toBe('application/json;charset=UTF-8');
      expect(bad.text).toBe(errorBody('test.echo', 4, 'Authentication failed'));
    }
  });

  it('treats argument names case-insensitively and keeps values as sent', async () => {
    const id = await data(w.base, { API_ACTION: 'DOMAIN.CREATE', Api_Key: w.alice, domain: 'Case.Example', TYPE: 'master', soa_email: 'Mixed@Case.Example', TTL_SEC: 300 });
    const [d] = await data(w.base, { api_action: 'domain.list', api_key: w.alice, domainid: id.DomainID });
    expect(d).toMatchObject({ DOMAIN: 'case.example', SOA_EMAIL: 'Mixed@Case.Example', TTL_SEC: 300 });
    // libcloud spells it DOMAINID, linode-python domainid, the spec DomainID.
    for (const name of ['DOMAINID', 'domainid', 'DomainID', 'dOmAiNiD']) {
      expect(await data(w.base, { api_action: 'domain.resource.list', api_key: w.alice, [name]: id.DomainID })).toEqual([]);
    }
  });

  it('ignores unknown arguments (lexicon sends resultFormat, and Type to domain.resource.update)', async () => {
    const id = await domain(w.base, w.alice, 'unknown-args.example');
    const created = await data(w.base, { api_action: 'domain.resource.create', api_key: w.alice, DomainID: id, Type: 'TXT', Name: 'x', Target: 'v', resultFormat: 'JSON', CustomerID: 7, bogus: 'y' });
    await data(w.base, { api_action: 'domain.resource.update', api_key: w.alice, DomainID: id, ResourceID: created.ResourceID, Type: 'A', Target: 'w', resultFormat: 'JSON' });
    expect((await records(w.base, w.alice, id))[0]).toMatchObject({ TYPE: 'TXT', TARGET: 'w' });
  });

  it('ignores a JSON body sent with GET, as lexicon sends it', async () => {
    const id = await domain(w.base, w.alice, 'lexicon-body.example');
    // fetch refuses a GET body; send the request the way python-requests does, over a raw socket.
    const body = JSON.stringify({ api_action: 'domain.delete', DomainID: id });
    const query = new URLSearchParams({ DomainID: String(id), api_key: w.alice, resultFormat: 'JSON', api_action: 'domain.list' });
    const raw = await rawRequest(
      w.server.httpAddress!.port,
      `GET /api/?${query} HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw).toContain('\r\ncontent-type: application/json;charset=UTF-8\r\n');
    expect(raw).toContain('{"ERRORARRAY":[],"ACTION":"domain.list","DATA":[{"DOMAINID":');
    expect((await data(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: id }))[0].DOMAIN).toBe('lexicon-body.example');
  });

  it('ignores a JSON body sent with POST too (interface A reads only query and form arguments)', async () => {
    const res = await fetch(`${w.base}/api/?api_key=${w.alice}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"api_action":"test.echo"}' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(errorBody('', 2, 'No action was requested'));
  });

  it('uses the first value of a repeated argument', async () => {
    const a = await call(w.base, [['api_action', 'test.echo'], ['api_key', w.alice], ['x', '1'], ['X', '2'], ['x', '3']]);
    expect(a.text).toBe('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"X":"1"}}');
    const b = await call(w.base, [['api_action', 'test.echo'], ['api_key', w.alice], ['x', '1'], ['x', '2']], { transport: 'POST-multipart' });
    expect(b.text).toBe('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"X":"1"}}');
    const c = await call(w.base, [['api_action', 'test.echo'], ['api_action', 'domain.delete'], ['api_key', w.alice]]);
    expect(c.body.ACTION).toBe('test.echo');
  });

  it('answers JSON whatever api_responseFormat asks for', async () => {
    for (const format of ['json', 'human', 'wddx', 'xml']) {
      const a = await call(w.base, { api_action: 'test.echo', api_key: w.alice, api_responseFormat: format });
      expect(a.contentType).toBe('application/json;charset=UTF-8');
      expect(a.text).toBe('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{}}');
    }
  });

  it('answers other HTTP methods with an envelope, not a 404', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await fetch(`${w.base}/api/?api_action=domain.list&api_key=${w.alice}`, { method });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(errorBody('domain.list', 1, `Bad request: use GET or POST, not ${method}.`));
    }
    // Methods fetch will not send, and that the server routes only because it routes every method.
    const port = Number(new URL(w.base).port);
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL']) {
      const raw = await rawRequest(port, `${method} /?api_action=domain.list&api_key=${w.alice} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(raw).toMatch(/^HTTP\/1\.1 200 /);
      expect(raw.endsWith(errorBody('domain.list', 1, `Bad request: use GET or POST, not ${method}.`))).toBe(true);
    }
  });

  it('lets pages of any origin read its answers, as the live API did', async () => {
    const res = await fetch(`${w.base}/api/?api_action=test.echo&api_key=${w.alice}`, { headers: { origin: 'https://panel.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('runs no action for HEAD (it answers the envelope headers only)', async () => {
    const res = await fetch(`${w.base}/api/?api_action=domain.create&api_key=${w.alice}&Domain=head.example&Type=master&SOA_Email=h@head.example`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(await res.text()).toBe('');
    const listed = await data(w.base, { api_action: 'domain.list', api_key: w.alice });
    expect(listed.map((d: { DOMAIN: string }) => d.DOMAIN)).not.toContain('head.example');
  });

  it('never puts the query of an unknown path (and the key in it) in the answer', async () => {
    const res = await fetch(`${w.base}/apx/?api_action=domain.list&api_key=${w.alice}`);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).toContain('/apx/');
    expect(text).not.toContain(w.alice);
  });

  it('carries the longest TXT value in a GET query string, as lexicon sends it', async () => {
    const id = await domain(w.base, w.alice, 'long-get.example');
    const value = '\u00e9'.repeat(MAX_TXT_BYTES / 2); // 2 bytes each, 6 characters each once percent-encoded
    await data(w.base, { api_action: 'domain.resource.create', api_key: w.alice, DomainID: id, Type: 'TXT', Name: 'long', Target: value });
    expect((await records(w.base, w.alice, id))[0].TARGET).toBe(value);
  });

  it('answers a URL too long to read with an envelope and HTTP 200', async () => {
    const a = await call(w.base, { api_action: 'domain.resource.create', api_key: w.alice, Target: 'x'.repeat(400_000) });
    expect(a.status).toBe(200);
    expect(a.contentType).toBe('application/json;charset=UTF-8');
    // Node hands over only the packet that overflowed, so the action is not known any more.
    expect(a.text).toBe(errorBody('', 1, 'Bad request: the request could not be read (the URL or headers may be too large).'));
    expect((await call(w.base, { api_action: 'test.echo', api_key: w.alice })).status).toBe(200);
  });

  it('answers a request HTTP cannot parse with an envelope on interface A, and a plain 400 elsewhere', async () => {
    const port = w.server.httpAddress!.port;
    const v3 = await rawRequest(port, `GET /api/?api_action=domain.list&api_key=${w.alice} HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n`);
    expect(v3).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(v3.slice(v3.indexOf('\r\n\r\n') + 4)).toBe(errorBody('domain.list', 1, 'Bad request: the request could not be read (the URL or headers may be too large).'));
    const other = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(other).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('answers a body over the size limit with an envelope and HTTP 200', async () => {
    const a = await call(w.base, { api_action: 'test.echo', api_key: w.alice, big: 'x'.repeat(2 * 1024 * 1024) }, { transport: 'POST-form' });
    expect(a.status).toBe(200);
    expect(a.body.ERRORARRAY[0].ERRORCODE).toBe(1);
    expect(a.body.DATA).toEqual({});
  });
});
