// The most one Node.js thread answers over UDP on this machine through zonehost's batched path: every query is
// sent straight back as its own answer (QR set, no records) through native/udp-batch (recvmmsg/sendmmsg, the
// module `zonehost serve` reads and writes UDP with), with none of a DNS server's work. Run by bench/dns beside
// the dgram floor (udp-floor.mjs), zonehost and knotd: the two floors show what batching buys one thread.
// Usage: node udp-floor-batched.mjs PORT BATCH BUFFER_BYTES (bench/dns passes zonehost's defaults).
import { createRequire } from 'node:module';

const native = createRequire(import.meta.url)('../../native/udp-batch/build/Release/udp_batch.node');
const [port, batch, bufferBytes] = process.argv.slice(2, 5).map(Number);

let input, output;
const socket = new native.UdpBatch({ host: '127.0.0.1', port, reusePort: false, batch, bufferBytes }, (count) => {
  const { inMeta, outMeta } = socket;
  let answers = 0;
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const length = inMeta[2 * i];
    if (length < 12) continue;
    // The same copy into the answers' block that zonehost makes of each answer.
    input.copy(output, offset, i * native.SLOT, i * native.SLOT + length);
    output[offset + 2] |= 0x80;
    outMeta[3 * answers] = i;
    outMeta[3 * answers + 1] = offset;
    outMeta[3 * answers + 2] = length;
    offset += length;
    answers++;
  }
  return answers;
});
input = Buffer.from(socket.in);
output = Buffer.from(socket.out);
socket.start();
