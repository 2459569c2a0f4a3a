/** Ready-to-paste settings for the tools that use a new TSIG key: nsupdate, certbot-dns-rfc2136 and cert-manager. */
import type { NewTsigKey, UpdateScope } from '../api';

/** Where the tools send their messages: zonehost's DNS address, which the API does not know (see --dns). */
export interface DnsServer {
  host: string;
  port: string;
}

/** A name the key may update, for the examples: its first plain name, else the ACME one. */
const exampleName = (u: UpdateScope): string => (typeof u === 'object' ? u.names?.find((n) => n !== '@' && !n.startsWith('*')) : undefined) ?? '_acme-challenge';

/** nsupdate (BIND 9) reading its commands from the here-document; the key on its command line (-y). */
export function nsupdateSnippet(k: NewTsigKey, zone: string, dns: DnsServer): string {
  return [
    `nsupdate -y ${k.algorithm}:${k.name}:${k.secret} <<'EOF'`,
    `server ${dns.host} ${dns.port}`,
    `zone ${zone}.`,
    `update add ${exampleName(k.update)}.${zone}. 300 TXT "replace me"`,
    'send',
    'EOF',
  ].join('\n');
}

/** certbot-dns-rfc2136's credentials file (its algorithm names are upper-case). */
export const certbotSnippet = (k: NewTsigKey, dns: DnsServer): string =>
  [
    '# /etc/letsencrypt/zonehost.ini (chmod 600), then:',
    `# certbot certonly --authenticator dns-rfc2136 --dns-rfc2136-credentials /etc/letsencrypt/zonehost.ini -d example.com`,
    `dns_rfc2136_server = ${dns.host}`,
    `dns_rfc2136_port = ${dns.port}`,
    `dns_rfc2136_name = ${k.name}`,
    `dns_rfc2136_secret = ${k.secret}`,
    `dns_rfc2136_algorithm = ${k.algorithm.toUpperCase()}`,
  ].join('\n');

// The algorithms cert-manager's rfc2136 solver takes (its names).
const CERT_MANAGER_ALGORITHMS = ['HMACSHA1', 'HMACSHA256', 'HMACSHA512'];

/** A cert-manager Issuer with the rfc2136 DNS-01 solver, and the Secret holding the key's secret. */
export function certManagerSnippet(k: NewTsigKey, zone: string, dns: DnsServer): string {
  const algorithm = k.algorithm.replace('hmac-', 'HMAC').toUpperCase();
  return [
    ...(CERT_MANAGER_ALGORITHMS.includes(algorithm) ? [] : [`# cert-manager takes only ${CERT_MANAGER_ALGORITHMS.join(', ')}: make a key with one of them.`]),
    'apiVersion: v1',
    'kind: Secret',
    'metadata:',
    '  name: zonehost-tsig',
    '  namespace: cert-manager',
    'type: Opaque',
    'stringData:',
    `  tsig-secret: "${k.secret}"`,
    '---',
    'apiVersion: cert-manager.io/v1',
    'kind: Issuer',
    'metadata:',
    '  name: letsencrypt',
    '  namespace: cert-manager',
    'spec:',
    '  acme:',
    '    server: https://acme-v02.api.letsencrypt.org/directory',
    `    email: hostmaster@${zone}`,
    '    privateKeySecretRef:',
    '      name: letsencrypt-account-key',
    '    solvers:',
    '      - dns01:',
    '          rfc2136:',
    `            nameserver: "${dns.host.includes(':') ? `[${dns.host}]` : dns.host}:${dns.port}"`,
    `            tsigKeyName: ${k.name}`,
    `            tsigAlgorithm: ${algorithm}`,
    '            tsigSecretSecretRef:',
    '              name: zonehost-tsig',
    '              key: tsig-secret',
  ].join('\n');
}
