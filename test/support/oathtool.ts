/**
 * TOTP codes as Debian's oathtool makes them (RFC 6238: SHA-1, 6 digits, 30 s): what an authenticator app
 * would show for a base32 secret, now or `stepsAhead` time steps later (a code not used yet, within the one
 * step of skew the server allows).
 */
import { execFileSync } from 'node:child_process';

export function totpCode(secret: string, stepsAhead = 0): string {
  const at = new Date(Date.now() + stepsAhead * 30_000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  return execFileSync('oathtool', ['--totp', '--base32', '--now', at, secret], { encoding: 'utf8' }).trim();
}
