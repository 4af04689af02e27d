import type { LookupFunction } from 'node:net';
import { Pool, errors as undiciErrors } from 'undici';
import { UpstreamError, badResponse } from '../errors.js';
import { withRetries } from '../retry.js';

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Overall deadline per call, retries and backoff included. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** Attempts per call, the first included. */
  maxAttempts?: number;
  maxBodyBytes?: number;
  connections?: number;
  /** Base of the exponential backoff between retries. */
  backoffMs?: number;
  /** Name resolution; the system's by default. */
  lookup?: LookupFunction;
  /** Called once per HTTP exchange (retries each count), for metrics. */
  onExchange?: (e: { route: string; status: number | 'error'; durationMs: number }) => void;
}

export interface JsonResponse {
  body: unknown;
  simulated: boolean;
}

type QueryValue = string | number | boolean | readonly (string | number)[] | undefined;
export type QueryParams = Record<string, QueryValue>;

const MAX_REDIRECTS = 3;

/** Retry-After as seconds or an HTTP date, in milliseconds. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function encodeQuery(query: QueryParams): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    // Arrays go as repeated keys: the most widely understood encoding, and the simulator accepts it.
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/**
 * GET-only JSON client for the upstream gateway: one keep-alive pool, the key on every request and
 * only to the configured origin, deadlines, bounded bodies, retries for idempotent failures, and
 * coalescing of identical in-flight requests.
 */
export class HttpClient {
  private readonly pool: Pool;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly inflight = new Map<string, Promise<JsonResponse>>();
  private readonly o: Required<Omit<HttpClientOptions, 'onExchange' | 'lookup'>> & Pick<HttpClientOptions, 'onExchange' | 'lookup'>;

  constructor(options: HttpClientOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.o = {
      timeoutMs: 5_000,
      connectTimeoutMs: Math.min(2_000, options.timeoutMs ?? 5_000),
      maxAttempts: 3,
      maxBodyBytes: 5 * 1024 * 1024,
      connections: 64,
      backoffMs: 100,
      ...options,
    };
    this.pool = new Pool(this.origin, {
      connections: this.o.connections,
      keepAliveTimeout: 10_000,
      connect: { timeout: this.o.connectTimeoutMs, ...(this.o.lookup ? { lookup: this.o.lookup } : {}) },
    });
  }

  /** `path` must already be encoded (see `routePath`); `route` names the template for errors and metrics. */
  getJson(path: string, query: QueryParams, route: string, options: { retry?: boolean } = {}): Promise<JsonResponse> {
    const target = `${this.basePath}${path}${encodeQuery(query)}`;
    const existing = this.inflight.get(target);
    if (existing) return existing;
    const pending = this.withRetries(target, route, options.retry ?? true).finally(() => this.inflight.delete(target));
    this.inflight.set(target, pending);
    return pending;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private withRetries(target: string, route: string, retries: boolean): Promise<JsonResponse> {
    return withRetries((signal) => this.exchange(target, route, signal, 0), {
      timeoutMs: this.o.timeoutMs,
      maxAttempts: retries ? this.o.maxAttempts : 1,
      backoffMs: this.o.backoffMs,
      route,
    });
  }

  private async exchange(target: string, route: string, signal: AbortSignal, redirects: number): Promise<JsonResponse> {
    const started = performance.now();
    let status: number | 'error' = 'error';
    try {
      const res = await this.pool
        .request({
          path: target,
          method: 'GET',
          headers: { 'x-api-key': this.o.apiKey, accept: 'application/json' },
          signal,
          headersTimeout: this.o.timeoutMs,
          bodyTimeout: this.o.timeoutMs,
        })
        .catch((err: unknown) => {
          throw this.networkError(err, route, signal);
        });
      status = res.statusCode;

      if (status >= 300 && status < 400) {
        await res.body.dump();
        return this.followRedirect(res.headers.location, target, route, signal, redirects);
      }
      const text = await this.readBody(res.body, route, signal);
      if (status >= 400) throw this.statusError(status, res.headers['retry-after'], route, text);

      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw badResponse(route, `malformed JSON (${text.length} bytes)`);
      }
      const simulated =
        res.headers['x-simulated'] === 'true' ||
        (typeof body === 'object' && body !== null && (body as { simulated?: unknown }).simulated === true);
      return { body, simulated };
    } finally {
      this.o.onExchange?.({ route, status, durationMs: performance.now() - started });
    }
  }

  private followRedirect(
    location: string | string[] | undefined,
    from: string,
    route: string,
    signal: AbortSignal,
    redirects: number,
  ): Promise<JsonResponse> {
    const loc = Array.isArray(location) ? location[0] : location;
    if (!loc) throw badResponse(route, 'redirect without a location');
    const next = new URL(loc, `${this.origin}${from}`);
    // The key is only ever sent to the configured origin: a redirect elsewhere is refused, not followed.
    if (next.origin !== this.origin) {
      throw new UpstreamError('bad_response', route, {
        message: `The risk-data service redirected to another host; polbot refused to follow it (${route}).`,
        detail: 'cross-origin redirect refused',
      });
    }
    if (redirects >= MAX_REDIRECTS) throw badResponse(route, 'too many redirects');
    return this.exchange(next.pathname + next.search, route, signal, redirects + 1);
  }

  private async readBody(
    body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
    route: string,
    signal: AbortSignal,
  ): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > this.o.maxBodyBytes) {
          body.destroy();
          throw badResponse(route, `response larger than ${this.o.maxBodyBytes} bytes`);
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof UpstreamError) throw err;
      throw this.networkError(err, route, signal);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private statusError(status: number, retryAfter: string | string[] | undefined, route: string, text: string): UpstreamError {
    const detail = `HTTP ${status}: ${text.slice(0, 200)}`;
    if (status === 401 || status === 403) return new UpstreamError('unauthorized', route, { status, detail });
    if (status === 404) return new UpstreamError('not_found', route, { status, detail });
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(retryAfter);
      return new UpstreamError('rate_limited', route, { status, detail, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
    }
    if (status === 400 || status === 422) return new UpstreamError('invalid_input', route, { status, detail });
    return new UpstreamError('unavailable', route, { status, detail });
  }

  private networkError(err: unknown, route: string, signal: AbortSignal): UpstreamError {
    if (err instanceof UpstreamError) return err;
    const detail = String((err as Error)?.message ?? err);
    if (signal.aborted || err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
      return new UpstreamError('timeout', route, { detail, cause: err });
    }
    return new UpstreamError('unavailable', route, { detail, cause: err });
  }
}
