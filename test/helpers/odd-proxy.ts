import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/**
 * A loopback reverse proxy in front of the simulator that changes answers on their way to polbot:
 * the upstream that sends odd values, for tests. REST bodies are changed as JSON; tool-server
 * answers (JSON-RPC over Streamable HTTP with JSON responses) have their structured content changed
 * for `tools/call` (and the text copy of it, so both agree) and their whole result for `tools/list`.
 */

export interface Exchange {
  kind: 'rest' | 'mcp';
  /** REST: the path without the query (`/projects_data/v1/aave/pol/current`); MCP: the tool name, or `tools/list`. */
  route: string;
}

/** Returns the body to send on (the same object, changed in place, is fine). */
export type Mutator = (body: unknown, at: Exchange) => unknown;

export interface OddProxy {
  /** Base URL standing in for the gateway (`POL_API_BASE_URL`). */
  url: string;
  /** Standing in for the tool server (`POL_MCP_URL`). */
  mcpUrl: string;
  /** Sets the change made to every answer from now on; `null` passes answers through. */
  set(mutator: Mutator | null): void;
  /** Answers changed so far, per `kind route`. */
  changed(): Map<string, number>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'content-encoding']);

export async function startOddProxy(target: string): Promise<OddProxy> {
  let mutator: Mutator | null = null;
  const changed = new Map<string, number>();

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const upstream = await request(`${target}${req.url}`, {
        method: req.method as 'GET',
        headers: forwardable(req.headers),
        ...(body.length ? { body } : {}),
      });
      const text = await upstream.body.text();
      const headers = forwardable(upstream.headers);
      const isJson = String(upstream.headers['content-type'] ?? '').includes('application/json');
      let out = text;
      if (mutator && isJson && text) {
        const path = (req.url ?? '/').split('?')[0]!;
        out = path.endsWith('/mcp') ? changeMcp(body, text, mutator, changed) : changeRest(path, text, mutator, changed);
      }
      res.writeHead(upstream.statusCode, headers);
      res.end(out);
    })().catch((err: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`odd proxy: ${(err as Error).message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    mcpUrl: `${url}/mcp`,
    set: (m) => {
      mutator = m;
    },
    changed: () => changed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function count(changed: Map<string, number>, at: Exchange): void {
  const key = `${at.kind} ${at.route}`;
  changed.set(key, (changed.get(key) ?? 0) + 1);
}

function changeRest(path: string, text: string, mutator: Mutator, changed: Map<string, number>): string {
  const at: Exchange = { kind: 'rest', route: path };
  const before = text;
  const after = JSON.stringify(mutator(JSON.parse(text), at));
  if (after !== before) count(changed, at);
  return after;
}

function changeMcp(requestBody: Buffer, text: string, mutator: Mutator, changed: Map<string, number>): string {
  const call = JSON.parse(requestBody.toString() || '{}') as { method?: string; params?: { name?: string } };
  const answer = JSON.parse(text) as { result?: { structuredContent?: unknown; content?: { type: string; text?: string }[] } };
  if (!answer.result) return text;
  if (call.method === 'tools/list') {
    const at: Exchange = { kind: 'mcp', route: 'tools/list' };
    const before = JSON.stringify(answer.result);
    answer.result = mutator(answer.result, at) as typeof answer.result;
    if (JSON.stringify(answer.result) !== before) count(changed, at);
    return JSON.stringify(answer);
  }
  if (call.method !== 'tools/call' || answer.result.structuredContent === undefined) return text;
  const at: Exchange = { kind: 'mcp', route: call.params?.name ?? '' };
  const before = JSON.stringify(answer.result.structuredContent);
  const content = mutator(answer.result.structuredContent, at);
  const after = JSON.stringify(content);
  if (after === before) return text;
  count(changed, at);
  answer.result.structuredContent = content;
  const first = answer.result.content?.[0];
  if (first?.type === 'text') first.text = after;
  return JSON.stringify(answer);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function forwardable(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k.toLowerCase())) out[k] = v;
  return out;
}

// ---- Building mutators -------------------------------------------------------------------------

/** Changes only the answers of routes (REST path or tool name) that match. */
export function onRoute(pattern: RegExp, mutator: Mutator): Mutator {
  return (body, at) => (pattern.test(at.route) ? mutator(body, at) : body);
}

/** Several changes, in order. */
export function compose(...mutators: Mutator[]): Mutator {
  return (body, at) => mutators.reduce((b, m) => m(b, at), body);
}

type Step = string | number;

/** `items[2].name` -> ['items', 2, 'name']; `*` as a step means every element of a list. */
function steps(path: string): Step[] {
  return [...path.matchAll(/([^.[\]]+)|\[(\d+|\*)\]/g)].map((m) => (m[2] !== undefined ? (m[2] === '*' ? '*' : Number(m[2])) : m[1]!));
}

function visit(body: unknown, path: string, leaf: (parent: Record<string | number, unknown>, key: Step) => void): unknown {
  const walk = (node: unknown, rest: Step[]): void => {
    if (node === null || typeof node !== 'object' || rest.length === 0) return;
    const [head, ...tail] = rest;
    const targets = head === '*' && Array.isArray(node) ? node.map((_, i) => i) : [head!];
    for (const key of targets) {
      const container = node as Record<string | number, unknown>;
      if (tail.length === 0) {
        if (key in container) leaf(container, key);
      } else walk(container[key], tail);
    }
  };
  walk(body, steps(path));
  return body;
}

/** Sets the value at `path` where it exists (`categories[0].score`, `items[*].pol`). */
export const setAt =
  (path: string, value: unknown): Mutator =>
  (body) =>
    visit(body, path, (parent, key) => {
      parent[key] = value;
    });

/** Removes the field at `path` (or, for a list element, sets it to null). */
export const removeAt =
  (path: string): Mutator =>
  (body) =>
    visit(body, path, (parent, key) => {
      if (Array.isArray(parent)) parent[key as number] = null;
      else delete parent[key];
    });

/** Renames the field at `path` to `to`. */
export const renameAt =
  (path: string, to: string): Mutator =>
  (body) =>
    visit(body, path, (parent, key) => {
      parent[to] = parent[key];
      delete parent[key];
    });

/** A small seeded generator (mulberry32): the same seed and route change the same fields. */
function seeded(seed: number, route: string): () => number {
  let a = seed;
  for (const ch of route) a = Math.imul(a ^ ch.charCodeAt(0), 2654435761);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type RandomChange = 'missing or renamed' | 'wrong types' | 'another body';

/** Bodies that belong elsewhere: another shape, a bare list, text, and an answer about another entity. */
const ALIEN_BODIES: readonly unknown[] = [
  { status: 'ok', items: 'n/a', page: 'one' },
  [{ timestamp: 1_700_000_000, value: 0.42 }],
  'service temporarily moved',
  {
    slug: 'someone-else',
    requestedSlug: 'someone-else',
    pol: 0.5,
    rating: 'B',
    timestamp: 1_700_000_000,
    categories: [],
    points: [],
    items: [],
  },
];

/**
 * Changes about one field in five at random (or, for `another body`, about two answers in five
 * whole), seeded by `seed` and the route, so the same answer changes the same way whatever order
 * the calls come in; `keep` names fields never touched.
 */
export function randomChanges(mode: RandomChange, seed: number, keep: ReadonlySet<string>, rate = 0.2): Mutator {
  return (body: unknown, at: Exchange) => {
    if (at.route === 'tools/list' || at.route.endsWith('/health') || at.route === 'check_health') return body;
    const next = seeded(seed, at.route);
    if (mode === 'another body') return next() < rate * 2 ? ALIEN_BODIES[Math.floor(next() * ALIEN_BODIES.length)] : body;
    const walk = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(walk);
      if (node === null || typeof node !== 'object') return node;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) {
        if (keep.has(key) || next() >= rate) {
          out[key] = walk(value);
          continue;
        }
        if (mode === 'missing or renamed') {
          if (next() < 0.5) continue;
          out[`${key}_v2`] = value;
        } else {
          out[key] = Array.isArray(value)
            ? { items: value }
            : value !== null && typeof value === 'object'
              ? [value]
              : typeof value === 'number'
                ? 'n/a'
                : 42;
        }
      }
      return out;
    };
    return walk(body);
  };
}
