import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Health } from './health.js';
import type { Metrics } from './metrics.js';

export interface HttpRoute {
  path: string;
  method: 'GET';
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

/** `GET /healthz` and `GET /metrics`, as routes that Bolt's receiver or our own server can mount. */
export function operationalRoutes(health: Health, metrics: Metrics): HttpRoute[] {
  return [
    {
      path: '/healthz',
      method: 'GET',
      handler: async (_req, res) => {
        const report = await health.report();
        const body = JSON.stringify(report);
        res.writeHead(report.status === 'stopping' ? 503 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(body);
      },
    },
    {
      path: '/metrics',
      method: 'GET',
      handler: async (_req, res) => {
        const body = await metrics.registry.metrics();
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(body);
      },
    },
  ];
}

/** A plain server for the operational routes when no Slack HTTP receiver is serving them. */
export async function startRouteServer(routes: HttpRoute[], port: number, host: string): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = routes.find((r) => r.path === path && r.method === req.method);
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    Promise.resolve(route.handler(req, res)).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"internal"}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
