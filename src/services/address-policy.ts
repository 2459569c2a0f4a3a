/**
 * Which addresses the service may open connections to for its customers (imports by AXFR, health checks):
 * unicast addresses of the public Internet, and whatever the operator's allow list adds. Without it a
 * customer could make the service probe and talk to what only it can reach — its database, the cloud's
 * metadata service (169.254.169.254, fd00:ec2::254), other hosts of a private network. Refused: unspecified,
 * "this network", loopback, private (RFC 1918, unique local fc00::/7), shared CGNAT space (100.64.0.0/10),
 * link-local (169.254.0.0/16, fe80::/10), IETF protocol assignments (192.0.0.0/24), benchmarking
 * (198.18.0.0/15), multicast, reserved (240.0.0.0/4, with the broadcast address), site-local fec0::/10,
 * discard 100::/64, and IPv4-mapped or NAT64 IPv6 addresses whose IPv4 address is refused. The documentation
 * ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) are allowed: nothing is routed there,
 * and the interfaces' examples use them.
 */
import { BlockList, isIPv4 } from 'node:net';
import { cidrOf, type Cidr } from '../model/names.js';

/** [network, prefix, what it is] refused by default. */
const REFUSED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'the "this network" block (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'a private network (10.0.0.0/8, RFC 1918)'],
  ['100.64.0.0', 10, 'shared carrier-grade NAT space (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'loopback (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'link-local (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'a private network (172.16.0.0/12, RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.168.0.0', 16, 'a private network (192.168.0.0/16, RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking space (198.18.0.0/15)'],
  ['224.0.0.0', 4, 'multicast (224.0.0.0/4)'],
  ['240.0.0.0', 4, 'reserved space or broadcast (240.0.0.0/4)'],
];
const REFUSED_V6: [string, number, string][] = [
  ['::', 128, 'the unspecified address (::)'],
  ['::1', 128, 'loopback (::1)'],
  ['100::', 64, 'the discard prefix (100::/64)'],
  ['fc00::', 7, 'a unique local network (fc00::/7)'],
  ['fe80::', 10, 'link-local (fe80::/10)'],
  ['fec0::', 10, 'site-local (fec0::/10)'],
  ['ff00::', 8, 'multicast (ff00::/8)'],
];

/** Parses "ADDRESS/PREFIX" or a bare address; throws naming `what` when it is neither. */
export function parseCidr(text: string, what = '--import-allow'): Cidr {
  const cidr = cidrOf(text);
  if (!cidr) throw new Error(`${what}: '${text}' is not an IP address or CIDR network (for example 127.0.36.0/24)`);
  return cidr;
}

/** The IPv4 address an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address stands for. */
function embeddedV4(address: string): string | null {
  const words = expandV6(address);
  if (!words) return null;
  const mapped = words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff;
  const nat64 = words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0);
  if (!mapped && !nat64) return null;
  const hi = words[6] as number;
  const lo = words[7] as number;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** An IPv6 address's eight 16-bit words (an embedded dotted IPv4 tail taken), or null. */
function expandV6(address: string): number[] | null {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const o = (v4[1] as string).split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -(v4[1] as string).length) + `${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const words = [...head, ...Array<number>(fill).fill(0), ...tail];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

export class AddressPolicy {
  private readonly refused = new BlockList();
  private readonly allowed = new BlockList();
  private readonly reasons: { list: BlockList; reason: string }[] = [];

  /** `allow`: CIDR networks (or addresses) the operator lets through (its flag, `flag`, names them in errors). */
  constructor(allow: readonly string[] = [], flag = '--import-allow') {
    for (const [net, prefix, reason] of REFUSED_V4) this.refuse(net, prefix, 'ipv4', reason);
    for (const [net, prefix, reason] of REFUSED_V6) this.refuse(net, prefix, 'ipv6', reason);
    for (const a of allow) {
      const { address, prefix, family } = parseCidr(a, flag);
      this.allowed.addSubnet(address, prefix, family);
    }
  }

  private refuse(net: string, prefix: number, family: 'ipv4' | 'ipv6', reason: string): void {
    this.refused.addSubnet(net, prefix, family);
    const one = new BlockList();
    one.addSubnet(net, prefix, family);
    this.reasons.push({ list: one, reason });
  }

  /** What the IP address `address` is, when connections there are refused ("loopback (127.0.0.0/8)"); null when allowed. */
  refusal(address: string): string | null {
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    const inner = family === 'ipv6' ? embeddedV4(address) : null;
    return this.reasonOf(address, family) ?? (inner !== null ? this.reasonOf(inner, 'ipv4') : null);
  }

  private reasonOf(address: string, family: 'ipv4' | 'ipv6'): string | null {
    if (this.allowed.check(address, family)) return null;
    if (!this.refused.check(address, family)) return null;
    return this.reasons.find((r) => r.list.check(address, family))?.reason ?? 'refused';
  }
}
