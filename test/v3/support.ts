/** Raw HTTP helpers for interface A tests: every transport a v3 client uses, with the body kept verbatim. */
import { expect } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

export type Transport = 'GET' | 'POST-form' | 'POST-multipart';
export type Params = Record<string, string | number> | [string, string][];

export interface Answer {
  status: number;
  contentType: string | null;
  /** The body exactly as sent. */
  text: string;
  body: any;
}

const pairs = (params: Params): [string, string][] =>
  Array.isArray(params) ? params : Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]);

/** Sends one interface A call over `transport` to `path` (default /api/). */
export async function call(base: string, params: Params, opts: { transport?: Transport; path?: string; init?: RequestInit } = {}): Promise<Answer> {
  const list = pairs(params);
  const url = `${base}${opts.path ?? '/api/'}`;
  let res: Response;
  switch (opts.transport ?? 'GET') {
    case 'GET':
      res = await fetch(`${url}?${new URLSearchParams(list)}`, opts.init);
      break;
    case 'POST-form':
      res = await fetch(url, { method: 'POST', ...opts.init, headers: { 'content-type': 'application/x-www-form-urlencoded', ...opts.init?.headers }, body: new URLSearchParams(list).toString() });
      break;
    case 'POST-multipart': {
      const form = new FormData();
      for (const [k, v] of list) form.append(k, v);
      res = await fetch(url, { method: 'POST', ...opts.init, body: form });
      break;
    }
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type'), text, body };
}

/** A successful call's DATA; fails the test with the envelope otherwise. */
export async function data(base: string, params: Params, opts?: Parameters<typeof call>[2]): Promise<any> {
  const a = await call(base, params, opts);
  expect(a.status).toBe(200);
  expect(a.body?.ERRORARRAY, a.text).toEqual([]);
  return a.body.DATA;
}

/** The exact error body interface A answers for a failed action. */
export const errorBody = (action: string, code: number, message: string): string =>
  JSON.stringify({ ERRORARRAY: [{ ERRORCODE: code, ERRORMESSAGE: message }], ACTION: action, DATA: {} });

/** A call's errors as [code, message] pairs, after checking it is a well-formed failure with HTTP 200. */
export async function errors(base: string, params: Params, opts?: Parameters<typeof call>[2]): Promise<[number, string][]> {
  const a = await call(base, params, opts);
  expect(a.status).toBe(200);
  expect(a.contentType).toBe('application/json;charset=UTF-8');
  expect(a.body.DATA, a.text).toEqual({});
  expect(a.body.ERRORARRAY.length, a.text).toBeGreaterThan(0);
  return a.body.ERRORARRAY.map((e: { ERRORCODE: number; ERRORMESSAGE: string }) => [e.ERRORCODE, e.ERRORMESSAGE]);
}

export interface World {
  server: TestServer;
  base: string;
  /** Alice's key, and a domain of hers. */
  alice: string;
  /** Bob, another account. */
  bob: string;
}

export async function world(): Promise<World> {
  const server = await startTestServer();
  const alice = (await server.user('alice')).key;
  const bob = (await server.user('bob')).key;
  return { server, base: server.base, alice, bob };
}

/** Creates a master domain for `key` and returns its ID. */
export async function domain(base: string, key: string, name: string, extra: Record<string, string | number> = {}): Promise<number> {
  const d = await data(base, { api_action: 'domain.create', api_key: key, Domain: name, Type: 'master', SOA_Email: `hostmaster@${name}`, ...extra });
  return d.DomainID as number;
}

/** Creates a record and returns its ResourceID. */
export async function resource(base: string, key: string, domainId: number, fields: Record<string, string | number>): Promise<number> {
  const d = await data(base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, ...fields });
  return d.ResourceID as number;
}

/** The records of a domain as domain.resource.list shows them. */
export const records = (base: string, key: string, domainId: number): Promise<any[]> =>
  data(base, { api_action: 'domain.resource.list', api_key: key, DomainID: domainId });
