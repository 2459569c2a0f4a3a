/** --webauthn-rp-id and --webauthn-origin as `zonehost serve` reads them (src/config.ts parseWebAuthn). */
import { describe, expect, it } from 'vitest';
import { parseWebAuthn } from '../../src/config.js';

describe('the passkeys relying party flags', () => {
  it('are absent by default: each request names its own host and origin', () => {
    expect(parseWebAuthn(undefined, undefined)).toEqual({});
    expect(parseWebAuthn('', ' ')).toEqual({});
  });

  it('take a host name and origins, normalised', () => {
    expect(parseWebAuthn('Example.NET.', 'https://dns.example.net, http://localhost:8080/')).toEqual({
      rpId: 'example.net',
      origins: ['https://dns.example.net', 'http://localhost:8080'],
    });
    expect(parseWebAuthn('localhost', undefined)).toEqual({ rpId: 'localhost' });
  });

  it('refuse an IP address (browsers do), a bad name, and origins with a path or another scheme', () => {
    expect(() => parseWebAuthn('192.0.2.1', undefined)).toThrow(/--webauthn-rp-id must be a host name/);
    expect(() => parseWebAuthn('bad_name!', undefined)).toThrow(/--webauthn-rp-id/);
    expect(() => parseWebAuthn(undefined, 'https://dns.example.net/manager/')).toThrow(/--webauthn-origin must be scheme:\/\/host\[:port\]/);
    expect(() => parseWebAuthn(undefined, 'ftp://dns.example.net')).toThrow(/--webauthn-origin/);
    expect(() => parseWebAuthn(undefined, 'dns.example.net')).toThrow(/--webauthn-origin/);
  });
});
