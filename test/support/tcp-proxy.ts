/**
 * A TCP proxy a test puts between a node and its database, to take the database away and give it back:
 * `refuse()` is a stopped server (open connections reset, new ones refused), `blackhole()` is a cut
 * cable (nothing answers, nothing is refused), `restore()` a database that is back.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  refuse(): Promise<void>;
  blackhole(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let mode: 'pass' | 'blackhole' = 'pass';
  let server: Server | null = null;
  let port = 0;
  const track = (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => s.destroy());
  };
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        track(client);
        // A cut cable: the connection is accepted, and nothing ever comes back.
        if (mode === 'blackhole') return;
        const upstream = connect(target.port, target.host);
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const dropAll = () => {
    for (const s of open) s.destroy();
    open.clear();
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = null;
      dropAll();
      if (!s) return resolve();
      s.close(() => resolve());
    });
  await listen();
  return {
    get port() {
      return port;
    },
    refuse: stop,
    blackhole() {
      mode = 'blackhole';
      // Established connections stop carrying anything either way.
      for (const s of open) s.pause();
      for (const s of open) s.unpipe();
    },
    async restore() {
      if (mode === 'blackhole') {
        mode = 'pass';
        dropAll();
      }
      if (!server) await listen();
    },
    close: stop,
  };
}
