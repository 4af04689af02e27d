import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { UpstreamError } from '../errors.js';
import { withinOrThrow } from '../../time/within.js';

export interface McpConnectionOptions {
  url?: string;
  command?: string;
  apiKey?: string;
  /**
   * A handshake taking longer is abandoned. Every call waits on the one handshake under way, so
   * one stalled handshake would otherwise hold every later call, long after the server is back.
   */
  connectTimeoutMs?: number;
}

/** Starting a child process legitimately takes longer than one call's deadline; a later call then finds it ready. */
const CHILD_START_MS = 30_000;

/**
 * One MCP client, created lazily and replaced after a transport failure. Over HTTP the key goes
 * in the `x-api-key` header and redirects are refused, so the key never leaves the configured host.
 */
export class McpConnection {
  private client: Promise<Client> | null = null;

  constructor(private readonly o: McpConnectionOptions) {
    if (!o.url && !o.command) throw new Error('MCP needs a URL or a command');
  }

  get(): Promise<Client> {
    if (!this.client) {
      const pending = this.connect();
      // A failed connect must not poison later attempts.
      pending.catch(() => {
        if (this.client === pending) this.client = null;
      });
      this.client = pending;
    }
    return this.client;
  }

  /** Drops the current client so the next call reconnects. */
  reset(): void {
    const old = this.client;
    this.client = null;
    void old?.then((c) => c.close()).catch(() => undefined);
  }

  async close(): Promise<void> {
    const old = this.client;
    this.client = null;
    await old?.then((c) => c.close()).catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const client = new Client({ name: 'polbot', version: '0.1.0' });
    let transport: StdioClientTransport | StreamableHTTPClientTransport;
    if (this.o.command) {
      const [command, ...args] = this.o.command.split(/\s+/).filter(Boolean);
      transport = new StdioClientTransport({
        command: command!,
        args,
        env: { ...(process.env as Record<string, string>), ...(this.o.apiKey ? { POL_API_KEY: this.o.apiKey } : {}) },
        stderr: 'ignore',
      });
    } else {
      transport = new StreamableHTTPClientTransport(new URL(this.o.url!), {
        requestInit: { headers: this.o.apiKey ? { 'x-api-key': this.o.apiKey } : {}, redirect: 'error' },
      });
    }
    const limit = Math.max(this.o.connectTimeoutMs ?? CHILD_START_MS, this.o.command ? CHILD_START_MS : 0);
    try {
      await withinOrThrow(
        client.connect(transport),
        limit,
        () => new McpError(ErrorCode.RequestTimeout, `MCP handshake took longer than ${limit} ms`),
      );
      return client;
    } catch (err) {
      // Closing aborts the handshake's requests (or ends the child), so nothing of it lingers.
      await client.close().catch(() => undefined);
      throw err;
    }
  }
}

/** Maps whatever the SDK or the transport threw to a typed upstream error. */
export function classifyMcpError(err: unknown, route: string): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const detail = String((err as Error)?.message ?? err);
  // The transport's own cause (ECONNREFUSED, a certificate error) is kept for diagnosis.
  const cause = { cause: err };
  if (err instanceof StreamableHTTPError || /HTTP (\d{3})/.test(detail)) {
    const status = err instanceof StreamableHTTPError && err.code ? err.code : Number(/HTTP (\d{3})/.exec(detail)?.[1]);
    if (status === 401 || status === 403) return new UpstreamError('unauthorized', route, { status, detail });
    if (status === 429) return new UpstreamError('rate_limited', route, { status, detail });
    if (status === 404) return new UpstreamError('unavailable', route, { status, detail });
    if (status >= 400) return new UpstreamError('unavailable', route, { status, detail });
  }
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return new UpstreamError('timeout', route, { detail });
    if (err.code === ErrorCode.ConnectionClosed) return new UpstreamError('unavailable', route, { detail });
    if (err.code === ErrorCode.MethodNotFound || err.code === ErrorCode.InvalidParams) {
      return new UpstreamError('not_available', route, { detail });
    }
    return new UpstreamError('bad_response', route, { detail });
  }
  if (err instanceof SyntaxError) return new UpstreamError('bad_response', route, { detail });
  if ((err as Error)?.name === 'AbortError' || (err as Error)?.name === 'TimeoutError') {
    return new UpstreamError('timeout', route, { detail, ...cause });
  }
  // fetch failures (reset, refused) and anything else at the transport level.
  return new UpstreamError('unavailable', route, { detail, ...cause });
}
