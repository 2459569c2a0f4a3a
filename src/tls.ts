/**
 * The TLS every listener of a node speaks (HTTPS, DNS over TLS): one certificate and key from --tls-cert and
 * --tls-key, TLS 1.2 and 1.3 only, and on 1.2 only ECDHE key exchange with AEAD ciphers, so every session has
 * forward secrecy (TLS 1.3 suites are all AEAD with ephemeral key exchange); a handshake not done within
 * TLS_HANDSHAKE_MS is cut, so a client that stalls in it holds its connection that long at most.
 */
import { readFileSync } from 'node:fs';
import type { TlsOptions } from 'node:tls';
import type { TlsFiles } from './config.js';

/** Long enough for a handshake across the world (two round trips and the certificate), not for a client holding one open (Node.js's default: 120 s). */
const TLS_HANDSHAKE_MS = 5000;

export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** A TLS server's settings: the certificate and key read from their files, the versions and ciphers above. */
export function tlsServerOptions(files: TlsFiles): TlsOptions {
  return {
    cert: readFileSync(files.cert),
    key: readFileSync(files.key),
    minVersion: 'TLSv1.2',
    ciphers: TLS12_CIPHERS,
    honorCipherOrder: true,
    handshakeTimeout: TLS_HANDSHAKE_MS,
  };
}
