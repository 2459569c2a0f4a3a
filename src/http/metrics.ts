/** Request counting for every HTTP answer, and /metrics: the node's counters in Prometheus' text format. */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../services/metrics.js';
import { isPdnsPath } from './pdns/plugin.js';
import { isV1Path } from './v1/plugin.js';
import { isV3Target } from './v3/plugin.js';

/** Loopback clients only: the counters name every zone, which is not everyone's business. */
const isLoopback = (ip: string): boolean => /^(127\.|::1$|::ffff:127\.)/.test(ip);

export function installMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (req, reply) => {
    const iface = isV1Path(req.url) ? 'v1' : isPdnsPath(req.url) ? 'pdns' : isV3Target(req.url) ? 'v3' : 'other';
    metrics.countRequest(iface, req.method, reply.statusCode);
  });
  app.get('/metrics', async (req, reply) => {
    if (!isLoopback(req.ip)) return reply.code(403).type('text/plain; charset=utf-8').send('Metrics are served to local clients only.\n');
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.prometheus());
  });
}
