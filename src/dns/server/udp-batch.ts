/**
 * The batched UDP path: native/udp-batch (a small N-API module, built by `npm ci` on Linux) reads up to `batch`
 * datagrams per recvmmsg into one block, calls here once per batch, and sends the answers written into a
 * second block with one sendmmsg. Where the module is missing (not Linux, or it did not build) udp.ts falls
 * back to dgram, and `batchedUdpUnavailable` says why.
 */
import { createRequire } from 'node:module';
import type { UdpEndpoint, UdpOptions, UdpSender, UdpServe } from './udp-socket.js';

/** The module's socket (native/udp-batch/udp_batch.cc). */
interface NativeSocket {
  readonly port: number;
  readonly in: ArrayBuffer;
  readonly out: ArrayBuffer;
  /** Per datagram received: length, sender's port. */
  readonly inMeta: Int32Array;
  /** Per datagram received: its sender's address, 16 bytes (a UdpSender's). */
  readonly inAddr: Uint8Array;
  /** Per answer: index of the datagram it answers, offset in `out`, length. */
  readonly outMeta: Int32Array;
  start(): void;
  sendTo(msg: Uint8Array, port: number, address: string): boolean;
  /** The sender of the i-th datagram of the batch being handled. */
  address(i: number): string;
  close(): void;
}

interface NativeModule {
  SLOT: number;
  UdpBatch: new (opts: { host: string; port: number; reusePort: boolean; batch: number; bufferBytes: number }, onBatch: (count: number) => number) => NativeSocket;
}

const MODULE_PATH = '../../../native/udp-batch/build/Release/udp_batch.node';

function load(): NativeModule | string {
  if (process.platform !== 'linux') return `batched UDP (recvmmsg/sendmmsg) is Linux only, not ${process.platform}`;
  try {
    return createRequire(import.meta.url)(MODULE_PATH) as NativeModule;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'MODULE_NOT_FOUND') return 'the native module native/udp-batch is not built (npm ci builds it with g++, make and python3; npm run build:native tries again)';
    return `the native module native/udp-batch does not load: ${err.message.split('\n')[0]}`;
  }
}

let loaded: NativeModule | string | undefined;
const native = (): NativeModule | string => (loaded ??= load());

/** Why the batched path cannot serve here, or null when it can. */
export function batchedUdpUnavailable(): string | null {
  const m = native();
  return typeof m === 'string' ? m : null;
}

/** Binds the batched socket (the caller has checked batchedUdpUnavailable). */
export function batchedUdp(opts: UdpOptions, serve: UdpServe, bufferBytes: number): UdpEndpoint {
  const m = native();
  if (typeof m === 'string') throw new Error(m);
  const { SLOT } = m;
  let input = Buffer.alloc(0);
  let output = Buffer.alloc(0);
  const socket: NativeSocket = new m.UdpBatch({ host: opts.host, port: opts.port, reusePort: opts.reusePort, batch: opts.batch, bufferBytes }, (count) => answerBatch(count));
  input = Buffer.from(socket.in);
  output = Buffer.from(socket.out);
  const { inMeta, outMeta } = socket;
  // The sender of the datagram being answered: its address's bytes from the block, its text only when asked for.
  const sender: UdpSender = { bytes: socket.inAddr, at: 0, receivedAt: 0, address: () => socket.address(sender.at / 16) };
  const endpoint: UdpEndpoint = {
    path: 'batched',
    port: socket.port,
    send: (msg, to) => void socket.sendTo(msg, to.port, to.address),
    close: async () => socket.close(),
  };

  /** Answers what can be answered at once into `output` and returns how many; hands the rest to `later`. */
  function answerBatch(count: number): number {
    let answers = 0;
    let offset = 0;
    sender.receivedAt = Date.now();
    for (let i = 0; i < count; i++) {
      try {
        const start = i * SLOT;
        const msg = input.subarray(start, start + (inMeta[2 * i] ?? 0));
        sender.at = 16 * i;
        const answer = serve.now(msg, sender);
        if (answer === 'drop') continue;
        if (!answer) {
          // The block is read again by the next batch: the message is copied before anything waits on it.
          serve.later(Buffer.from(msg), { address: socket.address(i), port: inMeta[2 * i + 1] ?? 0 }, endpoint);
          continue;
        }
        output.set(answer, offset);
        outMeta[3 * answers] = i;
        outMeta[3 * answers + 1] = offset;
        outMeta[3 * answers + 2] = answer.length;
        offset += answer.length;
        answers++;
      } catch {
        // One message's failure (`now` and `later` should not throw) must not cost the batch its answers, nor
        // reach the module, which would take it for an uncaught exception.
      }
    }
    return answers;
  }

  socket.start();
  return endpoint;
}
