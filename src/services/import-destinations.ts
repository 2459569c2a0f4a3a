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
import { isIP } from 'node:net';
import { ZoneHostError } from '../model/errors.js';
import { AddressPolicy } from './address-policy.js';

export { parseCidr } from './address-policy.js';

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

export class ImportDestinations {
  private readonly policy: AddressPolicy;

  /** `allow`: CIDR networks (or addresses) the operator lets through the address rules. */
  constructor(allow: readonly string[] = []) {
    this.policy = new AddressPolicy(allow, '--import-allow');
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
    const reason = this.policy.refusal(server);
    if (reason !== null) {
      throw new DestinationRefusedError(
        'server',
        `${server} is ${reason}: the service does not open connections there for customers. Give the public address of the server that holds the zone.`,
      );
    }
    return { server, port };
  }
}
