/** Helpers for interface B tests: one call returns status, headers and the parsed body. */
import { expect } from 'vitest';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Sent as is instead of JSON-encoding `body`. */
  raw?: string;
  headers?: Record<string, string>;
}

export async function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}) };
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...opts.headers }, ...(payload === undefined ? {} : { body: payload }) });
  const text = await res.text();
  let body: any = undefined;
  if (text !== '' && /json/.test(res.headers.get('content-type') ?? '')) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body };
}

/** A client bound to a server and key. */
export function client(base: string, key?: string) {
  const c = (method: string, path: string, opts: CallOptions = {}) => call(base, method, path, { ...(key ? { key } : {}), ...opts });
  return {
    get: (path: string, opts?: CallOptions) => c('GET', path, opts),
    post: (path: string, body: unknown, opts?: CallOptions) => c('POST', path, { ...opts, body }),
    put: (path: string, body: unknown, opts?: CallOptions) => c('PUT', path, { ...opts, body }),
    patch: (path: string, body: unknown, opts?: CallOptions) => c('PATCH', path, { ...opts, body }),
    del: (path: string, opts?: CallOptions) => c('DELETE', path, opts),
    call: c,
  };
}
export type Client = ReturnType<typeof client>;

/** Creates a domain through interface B (SOA e-mail hostmaster@name, `extra` fields added) and returns its id. */
export async function createDomain(api: Client, name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const r = await api.post('/v1/domains', { domain: name, soa: `hostmaster@${name}`, ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body.id as number;
}

/** Asserts an RFC 9457 problem with this status; returns its body. */
export function expectProblem(r: Reply, status: number): any {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String) });
  expect(r.body.errors.length).toBeGreaterThan(0);
  for (const e of r.body.errors) expect(Object.keys(e).sort()).toEqual(['field', 'reason']);
  return r.body;
}

/** The fields named by a problem's errors. */
export const fieldsOf = (r: Reply): (string | null)[] => r.body.errors.map((e: { field: string | null }) => e.field);

/** Asserts a problem with this status and returns the fields its errors name. */
export function problemFields(r: Reply, status: number): (string | null)[] {
  expectProblem(r, status);
  return fieldsOf(r);
}
