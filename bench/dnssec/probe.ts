/**
 * Single DNS queries with the DO bit (EDNS, 1232-byte payload) over UDP, one at a time, timed from the
 * send to the answer's arrival (performance.now(), in this process), and the answer's shape for checks:
 * rcode and the record types of its answer and authority sections.
 */
import dnsPacket from 'dns-packet';
import type { Socket } from 'node:dgram';
import { connectedUdp } from '../support.js';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

export interface Answer {
  ms: number;
  rcode: string;
  answer: string[];
  authority: string[];
}

export class DoClient {
  private id = 0;
  private waiting: { id: number; start: number; timer: NodeJS.Timeout; resolve: (a: Answer | null) => void } | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('message', (raw) => this.received(raw));
    socket.on('error', () => {});
  }

  static async open(port: number, host = '127.0.0.1'): Promise<DoClient> {
    return new DoClient(await connectedUdp(host, port));
  }

  /** Asks `name` `type`, with DO unless `dnssec` is false; null on timeout. */
  query(name: string, type: string, { dnssec = true, timeoutMs = 2000 } = {}): Promise<Answer | null> {
    this.id = (this.id + 1) & 0xffff;
    const id = this.id;
    const msg = dnsPacket.encode({
      type: 'query',
      id,
      questions: [{ name, type: type as dnsPacket.RecordType, class: 'IN' }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: dnssec ? dnsPacket.DNSSEC_OK : 0 } as dnsPacket.Answer],
    });
    return new Promise((resolve) => {
      const start = performance.now();
      const timer = setTimeout(() => {
        this.waiting = null;
        resolve(null);
      }, timeoutMs);
      this.waiting = { id, start, timer, resolve };
      this.socket.send(msg);
    });
  }

  private received(raw: Buffer): void {
    const at = performance.now();
    const w = this.waiting;
    if (!w || raw.length < 12 || raw.readUInt16BE(0) !== w.id) return;
    this.waiting = null;
    clearTimeout(w.timer);
    const p = dnsPacket.decode(raw);
    w.resolve({ ms: at - w.start, rcode: (p as { rcode?: string }).rcode ?? '?', answer: (p.answers ?? []).map((a) => a.type), authority: (p.authorities ?? []).map((a) => a.type) });
  }

  close(): void {
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.socket.close();
  }
}

/**
 * The same queries asked from a worker thread, one at a time. The fresh-signature rows ask right after a write
 * through interface B, while this process's HTTP client may still be finishing it; timed on the worker's own
 * event loop, a query's time is the server's answer and the machine's, not this process's leftovers (up to 4 ms
 * on a 2-core machine, seen against the same queries' times on the wire in a tcpdump of loopback).
 */
export class ThreadedDoClient {
  private constructor(private readonly worker: Worker) {}

  static async open(port: number, host = '127.0.0.1'): Promise<ThreadedDoClient> {
    // tsx's loader, registered in the worker, lets it run probe-thread.ts as this process runs the bench.
    const thread = new URL('./probe-thread.ts', import.meta.url).href;
    const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(thread)}); })`, { eval: true, workerData: { port, host } });
    await new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', () => resolve());
    });
    return new ThreadedDoClient(worker);
  }

  query(name: string, type: string, { dnssec = true } = {}): Promise<Answer | null> {
    return new Promise((resolve) => {
      this.worker.once('message', resolve);
      this.worker.postMessage({ name, type, dnssec });
    });
  }

  async close(): Promise<void> {
    this.worker.postMessage(null);
    await new Promise((resolve) => this.worker.once('exit', resolve));
  }
}

/** The answer in one line, for checks and error messages: "NOERROR A,RRSIG | NSEC3,RRSIG". */
export const shape = (a: Answer | null): string => (a ? `${a.rcode} ${a.answer.join(',')} | ${a.authority.join(',')}` : 'no answer');
