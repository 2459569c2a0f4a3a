/**
 * A DoClient on a worker thread (probe.ts `ThreadedDoClient`): it times each query on an event loop that does
 * nothing else, so the times are not held up by the bench's own HTTP client finishing a write.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DoClient } from './probe.js';

const port = parentPort;
if (!port) throw new Error('probe-thread.ts runs as a worker thread');
const client = await DoClient.open(workerData.port as number, workerData.host as string);
port.on('message', (m: { name: string; type: string; dnssec: boolean } | null) => {
  if (m === null) {
    client.close();
    port.close();
    return;
  }
  void client.query(m.name, m.type, { dnssec: m.dnssec }).then((a) => port.postMessage(a));
});
port.postMessage('ready');
