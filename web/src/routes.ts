/**
 * The panel's hash routes (#/domains, #/domains/3, #/mirrors, #/keys, #/tsigkeys, #/members, #/security, #/healthchecks, and
 * #/invitation/TOKEN: an invited member sets a password, signed out). Hash routes keep every page
 * at /manager/, so the server needs no fallback route. Pages navigate with `go`; the frame reads `parseRoute`.
 */

export type Route = { page: 'domains' } | { page: 'domain'; id: number } | { page: 'mirrors' } | { page: 'keys' } | { page: 'tsigkeys' } | { page: 'members' } | { page: 'security' } | { page: 'healthchecks' } | { page: 'invitation'; token: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'domains' && parts[1] && /^\d+$/.test(parts[1])) return { page: 'domain', id: Number(parts[1]) };
  if (parts[0] === 'mirrors') return { page: 'mirrors' };
  if (parts[0] === 'keys') return { page: 'keys' };
  if (parts[0] === 'tsigkeys') return { page: 'tsigkeys' };
  if (parts[0] === 'members') return { page: 'members' };
  if (parts[0] === 'invitation' && parts[1]) return { page: 'invitation', token: decodeURIComponent(parts[1]) };
  if (parts[0] === 'security') return { page: 'security' };
  if (parts[0] === 'healthchecks') return { page: 'healthchecks' };
  return { page: 'domains' };
}

export const go = (hash: string): void => {
  window.location.hash = hash;
};
