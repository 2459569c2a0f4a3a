/**
 * The cost of one fresh signature in this process: SignatureCache.sign (src/dns/dnssec/sign.ts) for RRsets it has
 * not seen (one A record each, as a changed name's), timed call by call with node:perf_hooks, for ECDSA
 * P-256 and Ed25519; next to it the bare node:crypto signing of data of the same size, and a cache hit.
 */
import { generateKeyPairSync, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ZoneKey } from '../../src/model/dnssec.js';
import { SignatureCache } from '../../src/dns/dnssec/sign.js';
import { percentile } from '../propagation/zonehost.js';

export interface SignCost {
  algorithm: string;
  /** SignatureCache.sign of a new RRset: p50, p99, mean (ms). */
  miss: { p50: number; p99: number; mean: number };
  /** node:crypto sign alone over data of the same size. */
  crypto: { p50: number; p99: number; mean: number };
  /** SignatureCache.sign of an RRset it holds. */
  hit: { p50: number; p99: number; mean: number };
}

const stats = (samples: number[]) => ({ p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length });

function key(algorithm: 'ECDSAP256SHA256' | 'ED25519'): ZoneKey {
  const privateKey: KeyObject = algorithm === 'ED25519' ? generateKeyPairSync('ed25519').privateKey : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  return { keyTag: 4711, algorithm: algorithm === 'ED25519' ? 15 : 13, flags: 257, dnskey: Buffer.alloc(0), published: true, signs: true, privateKey };
}

/** `n` fresh signatures per algorithm (after n/2 unmeasured ones), then n cache hits and n bare signings. */
export function signCost(n: number): SignCost[] {
  const zone = 'cost.example';
  const now = Math.floor(Date.now() / 1000);
  return (['ECDSAP256SHA256', 'ED25519'] as const).map((algorithm) => {
    const k = key(algorithm);
    const cache = new SignatureCache();
    const input = (i: number) => ({ owner: `h${i}.${zone}`, type: 1, ttl: 3600, rdata: [Buffer.from([10, (i >> 16) & 255, (i >> 8) & 255, i & 255])] });
    for (let i = 0; i < n / 2; i++) cache.sign(zone, [k], input(n + i), now); // warm-up (JIT)
    const miss: number[] = [];
    for (let i = 0; i < n; i++) {
      const set = input(i);
      const t = performance.now();
      cache.sign(zone, [k], set, now);
      miss.push(performance.now() - t);
    }
    const hit: number[] = [];
    for (let i = 0; i < n; i++) {
      const set = input(i);
      const t = performance.now();
      cache.sign(zone, [k], set, now);
      hit.push(performance.now() - t);
    }
    // What an RRSIG over one A record signs: 18 bytes of RRSIG fields, the signer (14), the record (owner 17 + 10 + 4).
    const data = Buffer.alloc(18 + 14 + 31, 7);
    const bare: number[] = [];
    for (let i = 0; i < n; i++) {
      data.writeUInt32BE(i, 0);
      const t = performance.now();
      if (algorithm === 'ED25519') cryptoSign(null, data, k.privateKey as KeyObject);
      else cryptoSign('sha256', data, { key: k.privateKey as KeyObject, dsaEncoding: 'ieee-p1363' });
      bare.push(performance.now() - t);
    }
    return { algorithm, miss: stats(miss), crypto: stats(bare), hit: stats(hit) };
  });
}
