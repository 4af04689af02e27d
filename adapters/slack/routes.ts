import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CustomRoute } from '@slack/bolt';

/**
 * In HTTP mode Bolt's receiver serves the custom routes (`/healthz`, `/metrics`) next to
 * `/slack/events`. In Socket Mode there is no receiver server, and Bolt's fallback listens on every
 * interface with no way to choose the host, so this small server serves them instead. Paths match
 * exactly: the routes the app registers take no parameters.
 */
export async function serveRoutes(routes: readonly CustomRoute[], host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://routes').pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    const route = routes.find((r) => r.path === path && [r.method].flat().some((m) => m.toUpperCase() === method));
    if (!route) {
      res.writeHead(404);
      res.end();
      return;
    }
    route.handler(Object.assign(req, { params: {} }), res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function boundPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
