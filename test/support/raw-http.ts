/** HTTP requests as raw bytes, for what fetch refuses to send (a GET body, TRACE, unknown methods, broken headers). */
import { connect } from 'node:net';

/** Sends the bytes as they are and returns the whole response; ask for `Connection: close` or send something the server closes on. */
export function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // write, not end: a half-close lets the server drop the reply, and python-requests never half-closes.
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}
