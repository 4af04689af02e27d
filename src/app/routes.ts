import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Health } from './health.js';
import type { Metrics } from './metrics.js';

export interface RouteResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * An operational route answers with a whole response rather than writing to a socket, so the
 * thread that owns the socket (the Slack receiver's, or a plain server's) need not be the one that
 * holds the health and metrics it reports.
 */
export interface HttpRoute {
  path: string;
  method: 'GET';
  respond(): Promise<RouteResponse>;
}

/** `GET /healthz` and `GET /metrics`. */
export function operationalRoutes(health: Health, metrics: Metrics): HttpRoute[] {
  return [
    {
      path: '/healthz',
      method: 'GET',
      respond: async () => {
        const report = await health.report();
        return {
          status: report.status === 'stopping' ? 503 : 200,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
          body: JSON.stringify(report),
        };
      },
    },
    {
      path: '/metrics',
      method: 'GET',
      respond: async () => ({ status: 200, headers: { 'content-type': metrics.registry.contentType }, body: await metrics.registry.metrics() }),
    },
  ];
}

const NOT_FOUND: RouteResponse = { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"not found"}' };
const FAILED: RouteResponse = { status: 500, headers: { 'content-type': 'application/json' }, body: '{"error":"internal"}' };

/** The route's response, a 404 for a path or method no route has, a 500 if the route fails. */
export async function routeResponse(routes: readonly HttpRoute[], method: string | undefined, url: string | undefined): Promise<RouteResponse> {
  const path = (url ?? '/').split('?')[0];
  const route = routes.find((r) => r.path === path && r.method === (method ?? 'GET').toUpperCase());
  if (!route) return NOT_FOUND;
  return route.respond().catch(() => FAILED);
}

export function writeResponse(res: ServerResponse, response: RouteResponse): void {
  if (res.headersSent) return void res.end();
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

/** A plain server for the operational routes when no Slack HTTP receiver is serving them. */
export async function startRouteServer(routes: readonly HttpRoute[], port: number, host: string): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    void routeResponse(routes, req.method, req.url).then((response) => writeResponse(res, response));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
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
