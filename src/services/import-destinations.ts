/**
 * Where an import by AXFR may make the service connect (docs/interface-b.md "Import by AXFR",
 * docs/security.md). A customer names the server, and the service opens a TCP connection to it from
 * inside the operator's network: without rules that is a way to probe and talk to what only the service
 * can reach (its database, metadata services, other hosts of a private network). So:
 *
 * - `server` must be an IP address literal (IPv4 or IPv6): no host names, hence no lookups and no
 *   DNS-rebinding (a name that resolves to a public address when checked and to 127.0.0.1 when used).
 * - Addresses that are not unicast on the public Internet are refused: unspecified, "this network",
 *   loopback, private (RFC 1918, unique local fc00::/7), shared CGNAT space (100.64.0.0/10), link-local
 *   (169.254.0.0/16, fe80::/10), IETF protocol assignments (192.0.0.0/24), benchmarking (198.18.0.0/15),
 *   multicast, reserved (240.0.0.0/4, with the broadcast address), site-local fec0::/10, discard 100::/64,
 *   and IPv4-mapped or NAT64 IPv6 addresses whose IPv4 address is refused. The documentation ranges
 *   (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) are allowed: nothing is routed there,
 *   so a connection reaches no one, and the interface's examples use them.
 * - `port` is 53 (the default) or 1024-65535: never a well-known service port other than DNS's (SMTP 25,
 *   HTTP 80, ...), where a DNS query could be taken for something else.
 * - The operator's `--import-allow CIDR,...` (ZONEHOST_IMPORT_ALLOW) lets addresses in those networks
 *   through the address rules (not the port rule): for a provider on the operator's own network, and for
 *   tests, which run primaries on loopback addresses.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';
import { ZoneHostError } from '../model/errors.js';
import { cidrOf, type Cidr } from '../model/names.js';

/** A destination an import by AXFR may not connect to; `field` is `server` or `port`. */
export class DestinationRefusedError extends ZoneHostError {
  constructor(
    readonly field: 'server' | 'port',
    message: string,
  ) {
    super(message);
  }
}

/** The port an import connects to unless told. */
export const DEFAULT_TRANSFER_PORT = 53;
/** Ports from here up are allowed (with 53). */
export const MIN_HIGH_PORT = 1024;

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

export class ImportDestinations {
  private readonly refused = new BlockList();
  private readonly allowed = new BlockList();
  private readonly reasons: { list: BlockList; reason: string }[] = [];

  /** `allow`: CIDR networks (or addresses) the operator lets through the address rules. */
  constructor(allow: readonly string[] = []) {
    for (const [net, prefix, reason] of REFUSED_V4) this.refuse(net, prefix, 'ipv4', reason);
    for (const [net, prefix, reason] of REFUSED_V6) this.refuse(net, prefix, 'ipv6', reason);
    for (const a of allow) {
      const { address, prefix, family } = parseCidr(a);
      this.allowed.addSubnet(address, prefix, family);
    }
  }

  private refuse(net: string, prefix: number, family: 'ipv4' | 'ipv6', reason: string): void {
    this.refused.addSubnet(net, prefix, family);
    const one = new BlockList();
    one.addSubnet(net, prefix, family);
    this.reasons.push({ list: one, reason });
  }

  /**
   * The destination to connect to, or a DestinationRefusedError saying why not. `server` must be an IP
   * address; `port` defaults to 53.
   */
  check(server: string, port: number = DEFAULT_TRANSFER_PORT): { server: string; port: number } {
    const v = isIP(server);
    if (v === 0) {
      throw new DestinationRefusedError(
        'server',
        `'${server}' is not an IP address: give the address of the server to transfer from (IPv4 or IPv6), not a host name, so that what is checked is what is connected to.`,
      );
    }
    if (!Number.isInteger(port) || (port !== DEFAULT_TRANSFER_PORT && (port < MIN_HIGH_PORT || port > 65535))) {
      throw new DestinationRefusedError('port', `Port ${port} is not allowed: transfers go to port 53 or to a port from ${MIN_HIGH_PORT} to 65535.`);
    }
    const family = isIPv4(server) ? 'ipv4' : 'ipv6';
    const inner = family === 'ipv6' ? embeddedV4(server) : null;
    const reason = this.reasonOf(server, family) ?? (inner !== null ? this.reasonOf(inner, 'ipv4') : null);
    if (reason !== null) {
      throw new DestinationRefusedError(
        'server',
        `${server} is ${reason}: the service does not open connections there for customers. Give the public address of the server that holds the zone.`,
      );
    }
    return { server, port };
  }

  private reasonOf(address: string, family: 'ipv4' | 'ipv6'): string | null {
    if (this.allowed.check(address, family)) return null;
    if (!this.refused.check(address, family)) return null;
    return this.reasons.find((r) => r.list.check(address, family))?.reason ?? 'refused';
  }
}
