/**
 * EDNS padding (RFC 7830) to 468-octet blocks (RFC 8467) added to encoded answers: the Padding option ends the
 * OPT record, its RDLENGTH grows, the counts stay, and what cannot or need not be padded is left as it is.
 */
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { padResponse, PADDING_OPTION } from '../../src/dns/wire/padding.js';
import { sign, tsigSecret, tsigSize } from '../../src/dns/wire/tsig.js';

const answer = (opt: boolean, txt = 'x'): Buffer =>
  dnsPacket.encode({
    type: 'response', id: 9, flags: dnsPacket.AUTHORITATIVE_ANSWER,
    questions: [{ type: 'TXT', class: 'IN', name: 'a.example' }],
    answers: [{ type: 'TXT', class: 'IN', name: 'a.example', ttl: 60, data: txt.match(/.{1,255}/g) ?? [''] }],
    ...(opt ? { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, options: [{ code: 10, data: Buffer.alloc(8, 7) }] } as unknown as dnsPacket.Answer] } : {}),
  });

describe('padResponse', () => {
  it('pads an answer with OPT to the next multiple of 468 octets, after the options already there', () => {
    for (const size of [1, 100, 400, 420, 463, 464, 1000, 5000]) {
      const msg = answer(true, 'y'.repeat(size));
      const padded = padResponse(msg);
      expect(padded.length % 468).toBe(0);
      expect(padded.length).toBeGreaterThanOrEqual(msg.length + 4);
      expect(padded.length - msg.length - 4).toBeLessThan(468);
      expect(padded.subarray(0, 12).equals(msg.subarray(0, 12))).toBe(true);
      const opt = dnsPacket.decode(padded).additionals?.[0] as dnsPacket.OptAnswer;
      expect(opt.options.map((o) => o.code)).toEqual([10, PADDING_OPTION]);
      const padding = opt.options[1] as { data: Buffer };
      expect(padding.data.length).toBe(padded.length - msg.length - 4);
      expect(padding.data.every((b) => b === 0)).toBe(true);
      expect((dnsPacket.decode(padded).answers?.[0] as { data: Buffer[] }).data.map(String).join('')).toBe('y'.repeat(size));
    }
  });

  it('leaves room for a TSIG record still to come: padded, then signed, the message is a multiple of 468 (kdig verifies it: tls.test.ts)', () => {
    const key = tsigSecret({ name: 'k.example', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 1).toString('base64') });
    for (const size of [1, 400, 1000]) {
      const padded = padResponse(answer(true, 'y'.repeat(size)), tsigSize(key));
      const signed = sign(padded, key, { timeSigned: 1_800_000_000 }).message;
      expect(signed.length % 468).toBe(0);
      // The padded message is what was signed: the TSIG record follows it (ARCOUNT, in the header, grew by one).
      expect(signed.subarray(12, padded.length).equals(padded.subarray(12))).toBe(true);
      const opt = dnsPacket.decode(signed).additionals?.find((r) => r.type === 'OPT') as dnsPacket.OptAnswer;
      expect(opt.options.map((o) => o.code)).toEqual([10, PADDING_OPTION]);
    }
  });

  it('leaves alone an answer without OPT, a signed answer, one that padding would take past 65,535 octets, and bytes that are no message', () => {
    const plain = answer(false);
    expect(padResponse(plain)).toBe(plain);
    const key = tsigSecret({ name: 'k.example', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 1).toString('base64') });
    const signed = sign(answer(true), key, { timeSigned: 1_800_000_000 }).message;
    expect(padResponse(signed)).toBe(signed);
    const huge = answer(true, 'z'.repeat(65_200));
    expect(huge.length).toBeGreaterThan(140 * 468 - 4);
    expect(padResponse(huge)).toBe(huge);
    for (const junk of [Buffer.alloc(0), Buffer.alloc(11), Buffer.from(answer(true).subarray(0, 40))]) expect(padResponse(junk)).toBe(junk);
  });
});
