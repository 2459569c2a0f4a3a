/** The DNSSEC model: the timed steps of zones and keys, CDS of a state, sealed private keys, DNSKEY/DS text. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cdsOf,
  CSK_FLAGS,
  dnskeyPublicKey,
  dnskeyRdata,
  dnskeyText,
  dsDigest,
  dsText,
  generatePrivateKey,
  keyTag,
  nextDnssecStep,
  openKey,
  sealKey,
  type DnssecZoneState,
  type StoredDnssecKey,
} from '../../src/model/dnssec.js';

const T = { dnskeyTtl: 10, dsTtl: 100, propagation: 1 };
const signed: DnssecZoneState = { domainId: 7, status: 'signed', algorithm: 'ECDSAP256SHA256', since: 0 };
const key = (id: number, state: StoredDnssecKey['state'], createdAt: number, retiringAt: number | null = null): StoredDnssecKey => ({
  id,
  domainId: 7,
  algorithm: 13,
  flags: CSK_FLAGS,
  dnskey: Buffer.alloc(4),
  keyTag: 1000 + id,
  sealedKey: '',
  state,
  createdAt,
  activeAt: null,
  retiringAt,
});

describe('nextDnssecStep', () => {
  it('has nothing to do for an unsigned zone or one with one active key', () => {
    expect(nextDnssecStep(undefined, [], T)).toBeNull();
    expect(nextDnssecStep({ ...signed, status: 'off' }, [], T)).toBeNull();
    expect(nextDnssecStep(signed, [key(1, 'active', 0)], T)).toBeNull();
  });

  it('puts an incoming key in CDS after the DNSKEY TTL plus propagation, and removes a retiring one after the DS TTL plus propagation', () => {
    expect(nextDnssecStep(signed, [key(1, 'active', 0), key(2, 'incoming', 5000)], T)).toEqual({ kind: 'activate', keyId: 2, at: 5000 + 11_000 });
    expect(nextDnssecStep(signed, [key(1, 'retiring', 0, 20_000), key(2, 'active', 5000)], T)).toEqual({ kind: 'remove', keyId: 1, at: 20_000 + 101_000 });
    // The earliest first.
    expect(nextDnssecStep(signed, [key(1, 'retiring', 0, 1000), key(2, 'incoming', 200_000)], T)?.kind).toBe('remove');
  });

  it('turns a zone off after the DS TTL plus propagation since CDS said delete, whatever its keys are doing', () => {
    expect(nextDnssecStep({ ...signed, status: 'unsigning', since: 3000 }, [key(1, 'active', 0), key(2, 'incoming', 0)], T)).toEqual({ kind: 'off', at: 3000 + 101_000 });
  });
});

describe('cdsOf', () => {
  it('names the active keys of a signed zone, says delete while it is turned off, and nothing when off', () => {
    expect(cdsOf(signed, [key(1, 'retiring', 0), key(2, 'active', 0), key(3, 'incoming', 0)])).toEqual({ keyTags: [1002] });
    expect(cdsOf({ ...signed, status: 'unsigning' }, [key(1, 'active', 0)])).toBe('delete');
    expect(cdsOf({ ...signed, status: 'off' }, [])).toBeNull();
  });
});

describe('sealed private keys', () => {
  it('open with the same key-encryption key and context only; the text holds no PEM; each seal differs', () => {
    const kek = randomBytes(32);
    const pem = generatePrivateKey('ED25519');
    const a = sealKey(kek, pem, 'ctx');
    const b = sealKey(kek, pem, 'ctx');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1:/);
    expect(a).not.toMatch(/PRIVATE|BEGIN/);
    expect(openKey(kek, a, 'ctx')).toBe(pem);
    expect(() => openKey(randomBytes(32), a, 'ctx')).toThrow();
    expect(() => openKey(kek, a, 'other ctx')).toThrow();
    const parts = a.split(':');
    parts[3] = Buffer.from(Buffer.from(parts[3] as string, 'base64').map((x, i) => (i === 0 ? x ^ 1 : x))).toString('base64');
    expect(() => openKey(kek, parts.join(':'), 'ctx')).toThrow();
    expect(() => openKey(kek, 'not sealed', 'ctx')).toThrow(/not a sealed/);
  });
});

describe('DNSKEY and DS text', () => {
  it('presents the rdata and the SHA-256 DS of it', () => {
    const rdata = dnskeyRdata(CSK_FLAGS, 13, dnskeyPublicKey(generatePrivateKey('ECDSAP256SHA256')));
    expect(dnskeyText('example.org', 3600, rdata)).toBe(`example.org. 3600 IN DNSKEY 257 3 13 ${rdata.subarray(4).toString('base64')}`);
    expect(dsText('example.org', 60, rdata)).toBe(`example.org. 60 IN DS ${keyTag(rdata)} 13 2 ${dsDigest('example.org', rdata)}`);
  });
});
