/** Helpers for the v4 door's tests: interface B's HTTP client (Bearer keys, JSON bodies), Linode's error shape. */
import { expect } from 'vitest';
import { client, type Client, type Reply } from '../v1/support.js';

export { client, type Client, type Reply };

/** `created`/`updated` as Linode writes them (libcloud parses exactly this). */
export const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;

/** Asserts Linode's error answer with this status; returns its errors. */
export function expectErrors(r: Reply, status: number): { reason: string; field?: string }[] {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(r.body)).toEqual(['errors']);
  expect(r.body.errors.length).toBeGreaterThan(0);
  for (const e of r.body.errors) {
    expect(typeof e.reason).toBe('string');
    expect(Object.keys(e).every((k) => k === 'reason' || k === 'field')).toBe(true);
  }
  return r.body.errors;
}

/** The fields an error answer names. */
export const errorFields = (r: Reply, status: number): (string | undefined)[] => expectErrors(r, status).map((e) => e.field);

/** Creates a master domain through the v4 door (SOA e-mail hostmaster@name) and returns it as answered. */
export async function createDomain(api: Client, name: string, extra: Record<string, unknown> = {}): Promise<any> {
  const r = await api.post('/v4/domains', { domain: name, type: 'master', soa_email: `hostmaster@${name}`, ...extra });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** Creates a record through the v4 door and returns it as answered. */
export async function createRecord(api: Client, domainId: number, body: Record<string, unknown>): Promise<any> {
  const r = await api.post(`/v4/domains/${domainId}/records`, body);
  expect(r.status, r.text).toBe(200);
  return r.body;
}
