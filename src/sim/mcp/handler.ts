import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SimStore } from '../data/store.js';
import type { Faults, RequestCounter } from '../faults.js';
import { wrongShape, type ToolContext, type ToolDef } from './tools/common.js';
import { TOOL_NAMES, TOOLS } from './tools/index.js';

export interface McpDeps {
  store: SimStore;
  faults: Faults;
  counter: RequestCounter;
}

export const SERVER_NAME = 'polbot-upstream-simulator';
export const SERVER_VERSION = '1.0.0';
/** Tool calls are a few hundred bytes; anything near this is a client bug or abuse. */
export const MAX_BODY_BYTES = 1024 * 1024;

const INSTRUCTIONS =
  'Simulated risk-intelligence API: every number is generated test data, not a real rating. ' +
  'Resolve project slugs with resolve_project_slug before calling project tools; no tool resolves exchange slugs.';

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

type BodyResult = { ok: true; text: string } | { ok: false; tooLarge: true };

/**
 * Collects the body up to `limit` bytes. Past the limit it just stops reading and leaves the
 * socket to the 413 answer (sent with `connection: close`): breaking out of an async iterator
 * instead would destroy the request, and with it the socket, racing that answer.
 */
function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false, tooLarge: true });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve({ ok: false, tooLarge: true });
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => onError(new Error('Request closed before its body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Tool names of the `tools/call` requests in a body (a single message or a batch). */
function calledTools(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const names: string[] = [];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const { method, params } = m as { method?: unknown; params?: { name?: unknown } };
    const name = params?.name;
    // Only registered names are counted, so a misbehaving client cannot grow the map without bound.
    if (method === 'tools/call' && typeof name === 'string' && TOOL_NAMES.has(name)) names.push(name);
  }
  return names;
}

export function buildServer(ctx: ToolContext): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    // No outputSchema on purpose: the 'shape' fault must reach clients as a misbehaving upstream
    // would send it; with a schema the SDK server would turn it into a tool error and SDK
    // clients would reject it before the code under test saw it.
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      (args: unknown) => callTool(tool, args, ctx),
    );
  }
  return server;
}

function callTool(tool: ToolDef, args: unknown, ctx: ToolContext): CallToolResult {
  // HTTP-level faults (status, reset, latency) are decided for `/mcp` by the gateway; only the
  // body shape belongs to the tool result.
  const fault = ctx.faults.decide(`mcp:${tool.name}`);
  if (fault.kind === 'shape') return wrongShape();
  return tool.run(args, ctx);
}

/** Idle servers kept for reuse; a burst beyond this just builds more, which are then dropped. */
const MAX_IDLE_SERVERS = 32;

/**
 * Reuses McpServer instances across requests, one request at a time each, because building one
 * (Server constructor plus 23 registrations) was about half of the server-side cost of a tool call
 * on loopback. This is safe only under these rules, which `acquire`/`release` enforce:
 * - a server is lent to one request at a time and comes back only after `close()` resolved, which
 *   detaches its transport and aborts any handler still running (the SDK's Protocol sends each
 *   response on the transport captured when the request arrived, never on a later one);
 * - a server that answered `initialize` is dropped, since it keeps that client's capabilities and
 *   version; every pooled server has therefore never seen a client, exactly like a fresh one;
 * - a server whose request failed is dropped.
 * The transport is never reused: the SDK refuses a second request on a stateless transport.
 */
class ServerPool {
  private readonly idle: McpServer[] = [];

  constructor(private readonly build: () => McpServer) {}

  acquire(): McpServer {
    return this.idle.pop() ?? this.build();
  }

  async release(server: McpServer, reusable: boolean): Promise<void> {
    try {
      await server.close();
    } catch {
      return;
    }
    if (reusable && this.idle.length < MAX_IDLE_SERVERS) this.idle.push(server);
  }
}

function hasInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => !!m && typeof m === 'object' && (m as { method?: unknown }).method === 'initialize');
}

/**
 * Streamable HTTP in stateless mode: each POST is answered by its own transport (no session id,
 * no SSE) with a server that serves no other request meanwhile. GET and DELETE have no session to
 * stream to or to end, so they are refused, as in the SDK's stateless example.
 */
export function createMcpHandler(deps: McpDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const ctx: ToolContext = { store: deps.store, faults: deps.faults };
  const pool = new ServerPool(() => buildServer(ctx));

  return async function handleMcp(req, res) {
    res.setHeader('x-simulated', 'true');
    if (req.method !== 'POST') {
      return jsonRpcError(res, 405, -32000, 'Method not allowed.', { allow: 'POST' });
    }

    const raw = await readBody(req, MAX_BODY_BYTES);
    if (!raw.ok) {
      // The rest of an oversized body is never read, so the connection cannot be reused.
      return jsonRpcError(res, 413, -32600, `Request body exceeds ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.text);
    } catch {
      return jsonRpcError(res, 400, -32700, 'Parse error: body is not valid JSON');
    }
    for (const name of calledTools(body)) deps.counter.count(deps.counter.byTool, name);

    if (req.socket.destroyed) return;

    const server = pool.acquire();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    let reusable = !hasInitialize(body);
    // Listened for before handling, so a client that hangs up early still releases the server.
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch {
      reusable = false;
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
      else res.destroy();
    } finally {
      // Only once the handler has settled and the response is gone is the server idle.
      void closed.then(() => pool.release(server, reusable));
    }
  };
}
