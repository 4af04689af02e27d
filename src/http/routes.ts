import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Health } from '../ops/health.js';
import type { Metrics } from '../ops/metrics.js';

export interface RouteResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/** Where polbot's HTTP server listens (PORT, HOST). */
export interface HttpConfig {
  port: number;
  host: string;
}

/**
 * A route served next to the Slack events endpoint, on the same port. Operational routes answer
 * with a whole response (`respond`); routes that need the request itself (Slack's OAuth pages,
 * Discord's interactions) take it and write their own response (`handle`).
 */
export type HttpRoute = {
  path: string;
  method: 'GET' | 'POST';
} & (
  | { respond(): Promise<RouteResponse>; handle?: never }
  | { handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>; respond?: never }
);

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
      respond: async () => ({
        status: 200,
        headers: { 'content-type': metrics.registry.contentType },
        body: await metrics.registry.metrics(),
      }),
    },
  ];
}

const NOT_FOUND: RouteResponse = { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"not found"}' };
const NOT_ALLOWED: RouteResponse = { status: 405, headers: { 'content-type': 'application/json' }, body: '{"error":"method not allowed"}' };
const FAILED: RouteResponse = { status: 500, headers: { 'content-type': 'application/json' }, body: '{"error":"internal"}' };

export function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0] ?? '/';
}

export function writeResponse(res: ServerResponse, response: RouteResponse): void {
  if (res.headersSent) return void res.end();
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

/** Serves one request from `routes`: a 404 for a path no route has, a 405 for a method, a 500 if the route fails. */
export function serveRoute(routes: readonly HttpRoute[], req: IncomingMessage, res: ServerResponse): void {
  const path = pathOf(req.url);
  const onPath = routes.filter((r) => r.path === path);
  const route = onPath.find((r) => r.method === (req.method ?? 'GET').toUpperCase());
  if (!route) {
    req.resume();
    return writeResponse(res, onPath.length ? NOT_ALLOWED : NOT_FOUND);
  }
  if (route.respond) {
    req.resume();
    void route.respond().then(
      (response) => writeResponse(res, response),
      () => writeResponse(res, FAILED),
    );
    return;
  }
  Promise.resolve()
    .then(() => route.handle(req, res))
    .catch(() => writeResponse(res, FAILED));
}

export interface RouteServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** A server for the routes: on the public port when no Slack HTTP receiver is serving them, or on loopback behind it. */
export async function startRouteServer(routes: readonly HttpRoute[], port: number, host: string): Promise<RouteServer> {
  const server = createServer((req, res) => serveRoute(routes, req, res));
  // Longer than the callers keep idle connections (see the Slack ingress thread).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
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
