import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import FindMyWay from 'find-my-way';
import type { GenerateOptions } from './data/generate.js';
import { applyMove, MOVE_PATH, readMove } from './admin.js';
import { SimStore } from './data/store.js';
import { Faults, RequestCounter, type FaultSettings } from './faults.js';
import { HttpError, notFound } from './rest/errors.js';
import { Query } from './rest/params.js';
import { fullPath, ROUTES, type Route } from './rest/routes.js';

export const DEFAULT_SEED = 42;
export const DEMO_API_KEY = 'svc_demo_simulated_upstream';

export interface SimulatorOptions {
  seed?: number;
  asOf?: Date;
  port?: number;
  host?: string;
  apiKey?: string;
  faults?: Partial<FaultSettings>;
  /** Synthetic projects beyond the catalog, for load tests (see `GenerateOptions.extraProjects`). */
  extraProjects?: number;
}

export interface Simulator {
  /** Gateway base URL, e.g. `http://127.0.0.1:4010` (routes live under `/<service>/v1/...`). */
  url: string;
  /** MCP tool server (Streamable HTTP, stateless). */
  mcpUrl: string;
  apiKey: string;
  store: SimStore;
  faults: Faults;
  counter: RequestCounter;
  close(): Promise<void>;
}

const SIMULATED_HEADER = 'x-simulated';

/** Every body says it is simulated, so nothing downstream can pass demo numbers off as real ratings. */
function sendJson(res: ServerResponse, status: number, body: unknown, extraHeaders: Record<string, string> = {}): void {
  const marked = body && typeof body === 'object' && !Array.isArray(body) ? { ...body, simulated: true } : body;
  const text = JSON.stringify(marked);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    [SIMULATED_HEADER]: 'true',
    ...extraHeaders,
  });
  res.end(text);
}

function sendError(res: ServerResponse, err: HttpError, extraHeaders: Record<string, string> = {}): void {
  sendJson(res, err.status, err.body(), extraHeaders);
}

async function trickle(res: ServerResponse, status: number, body: unknown, ms: number): Promise<void> {
  const text = JSON.stringify({ ...(body as object), simulated: true });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', [SIMULATED_HEADER]: 'true' });
  const chunks = 10;
  const size = Math.ceil(text.length / chunks);
  for (let i = 0; i < chunks && !res.destroyed; i++) {
    res.write(text.slice(i * size, (i + 1) * size));
    await sleep(ms / chunks);
  }
  res.end();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createSimulatorHandler(opts: { store: SimStore; faults: Faults; counter: RequestCounter; apiKey: string }) {
  const { store, faults, counter, apiKey } = opts;
  const router = FindMyWay<FindMyWay.HTTPVersion.V1>({ ignoreTrailingSlash: true });
  // The tool server is loaded on its first request: its SDK takes longer to import than a REST
  // answer takes, and a demo that talks REST (`polbot ask`) never needs it.
  let mcpHandler: Promise<(req: IncomingMessage, res: ServerResponse) => Promise<void>> | undefined;
  const mcp = async (req: IncomingMessage, res: ServerResponse) => {
    mcpHandler ??= import('./mcp/handler.js').then((m) => m.createMcpHandler({ store, faults, counter }));
    return (await mcpHandler)(req, res);
  };

  for (const route of ROUTES) {
    const pattern = fullPath(route).replace(/\{(\w+)\}/g, ':$1');
    // The router only maps paths to route definitions; dispatch happens in `handle`.
    router.on('GET', pattern, () => undefined, route);
  }

  function authorize(req: IncomingMessage, res: ServerResponse): boolean {
    const key = req.headers['x-api-key'];
    if (key === undefined || key === '') {
      sendError(res, new HttpError(401, 'unauthorized', 'Missing x-api-key header'));
      return false;
    }
    if (key !== apiKey) {
      sendError(res, new HttpError(403, 'forbidden', 'Invalid API key'));
      return false;
    }
    return true;
  }

  async function answer(req: IncomingMessage, res: ServerResponse, url: URL, route: Route, params: Record<string, string | undefined>) {
    const action = faults.decide(url.pathname);
    switch (action.kind) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'status':
        sendError(
          res,
          new HttpError(action.status, action.status === 429 ? 'rate_limited' : 'upstream_error', `Simulated ${action.status}`),
          action.retryAfterSec !== undefined ? { 'retry-after': String(action.retryAfterSec) } : {},
        );
        return;
      case 'redirect':
        res.writeHead(action.status ?? 302, { location: action.location, [SIMULATED_HEADER]: 'true' });
        res.end();
        return;
      case 'delay':
        await sleep(action.ms);
        break;
      default:
        break;
    }
    let status = 200;
    let body: unknown;
    try {
      body = route.handler({ store, params, query: new Query(url.searchParams), healthFailing: faults.current.healthFailing });
      if (route.health && faults.current.healthFailing) status = 503;
    } catch (err) {
      if (err instanceof HttpError) return sendError(res, err);
      throw err;
    }
    if (action.kind === 'malformed') {
      const text = JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', [SIMULATED_HEADER]: 'true' });
      res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      return;
    }
    if (action.kind === 'shape') return sendJson(res, 200, { result: 'unexpected', items: 42, points: 'n/a' });
    if (action.kind === 'slow') return trickle(res, status, body, action.ms);
    sendJson(res, status, body);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator');
    counter.total++;
    counter.count(counter.byPath, url.pathname + url.search);
    try {
      if (url.pathname === '/mcp' || url.pathname === '/mcp/') {
        counter.count(counter.byRoute, `${req.method} /mcp`);
        if (!authorize(req, res)) return;
        const delay = faults.delayFor(url.pathname);
        if (delay > 0) await sleep(delay);
        // HTTP-level faults apply to the tool server too; a wrong shape is decided per tool (`mcp:<tool>`).
        const action = faults.decide(url.pathname);
        switch (action.kind) {
          case 'reset':
            return void req.socket.destroy();
          case 'status':
            return sendError(
              res,
              new HttpError(action.status, action.status === 429 ? 'rate_limited' : 'upstream_error', `Simulated ${action.status}`),
              action.retryAfterSec !== undefined ? { 'retry-after': String(action.retryAfterSec) } : {},
            );
          case 'redirect':
            res.writeHead(action.status ?? 302, { location: action.location, [SIMULATED_HEADER]: 'true' });
            return void res.end();
          case 'malformed':
            req.resume();
            res.writeHead(200, { 'content-type': 'application/json', [SIMULATED_HEADER]: 'true' });
            return void res.end('{"jsonrpc":"2.0","id":1,"result":{"conte');
          case 'delay':
          case 'slow':
            await sleep(action.ms);
            break;
          default:
            break;
        }
        return await mcp(req, res);
      }
      if (url.pathname === MOVE_PATH) {
        counter.count(counter.byRoute, `${req.method} ${MOVE_PATH}`);
        if (req.method !== 'POST')
          return sendError(res, new HttpError(405, 'method_not_allowed', 'Only POST is supported'), { allow: 'POST' });
        if (!authorize(req, res)) return;
        try {
          return sendJson(res, 200, applyMove(store, await readMove(req)));
        } catch (err) {
          if (err instanceof HttpError) return sendError(res, err);
          throw err;
        }
      }
      const found = router.find('GET', url.pathname);
      if (!found) return sendError(res, notFound(`No route ${url.pathname}`));
      const route = found.store as Route;
      counter.count(counter.byRoute, `GET ${fullPath(route)}`);
      if (req.method !== 'GET') {
        return sendError(res, new HttpError(405, 'method_not_allowed', 'Only GET is supported'), { allow: 'GET' });
      }
      if (!authorize(req, res)) return;
      const delay = faults.delayFor(url.pathname);
      if (delay > 0) await sleep(delay);
      await answer(req, res, url, route, found.params);
    } catch {
      if (!res.headersSent) sendError(res, new HttpError(500, 'internal_error', 'Simulator error'));
      else res.destroy();
    }
  };
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = options.seed ?? DEFAULT_SEED;
  const generateOptions: GenerateOptions = {
    seed,
    ...(options.asOf ? { asOf: options.asOf } : {}),
    ...(options.extraProjects ? { extraProjects: options.extraProjects } : {}),
  };
  const store = new SimStore(generateOptions);
  const faults = new Faults(seed);
  if (options.faults) faults.set(options.faults);
  const counter = new RequestCounter();
  const apiKey = options.apiKey ?? DEMO_API_KEY;
  const handle = createSimulatorHandler({ store, faults, counter, apiKey });
  const server: Server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const url = `http://${host}:${port}`;
  return {
    url,
    mcpUrl: `${url}/mcp`,
    apiKey,
    store,
    faults,
    counter,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
