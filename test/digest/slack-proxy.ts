import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FakeSlack } from '../fakes/slack/index.js';

export type Hold =
  /** The post never reaches Slack: the sender dies with it in flight. */
  | 'request'
  /** The post reaches Slack (it is recorded there), but the answer never comes back. */
  | 'response';

export interface SlackProxy {
  /** Web API base for the clients, `http://127.0.0.1:PORT/api/`. */
  url: string;
  /** Per channel: hold its chat.postMessage calls; absent channels pass through. */
  hold: Map<string, Hold>;
  /** Resolves when a chat.postMessage for the channel has arrived here. */
  arrived(channelId: string): Promise<void>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function argsOf(req: IncomingMessage, body: Buffer): URLSearchParams {
  const url = new URL(req.url ?? '/', 'http://proxy');
  const params = new URLSearchParams(url.search);
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    for (const [k, v] of Object.entries(JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>)) params.set(k, String(v));
  } else {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params.set(k, v);
  }
  return params;
}

/**
 * A loopback proxy in front of the fake Slack, for killing a sender at a chosen point of a post.
 * It also answers conversations.history from what the fake recorded, which the fake itself does
 * not serve, so a restarted sender can look for its own earlier post like a real adapter would.
 */
export async function startSlackProxy(fake: FakeSlack): Promise<SlackProxy> {
  const hold = new Map<string, Hold>();
  const waiters = new Map<string, (() => void)[]>();
  const arrivedChannels = new Set<string>();
  const sockets = new Set<Socket>();

  const forward = async (req: IncomingMessage, body: Buffer) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v;
    return fetch(`${fake.origin}${req.url}`, { method: req.method ?? 'POST', headers, ...(req.method === 'GET' ? {} : { body }) });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const method = new URL(req.url ?? '/', 'http://proxy').pathname.replace(/^\/api\//, '');
    const args = argsOf(req, body);
    const channel = args.get('channel') ?? '';
    if (method === 'conversations.history') {
      const messages = fake
        .calls('chat.postMessage')
        .filter((c) => c.args.channel === channel && (c.response as { ok?: boolean }).ok)
        .map((c) => ({ type: 'message', text: String(c.args.text ?? ''), ts: String((c.response as { ts?: string }).ts ?? '') }))
        .reverse();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, messages, has_more: false }));
      return;
    }
    if (method === 'chat.postMessage') {
      arrivedChannels.add(channel);
      for (const w of waiters.get(channel) ?? []) w();
      waiters.delete(channel);
      const mode = hold.get(channel);
      if (mode === 'request') return;
      if (mode === 'response') {
        await (await forward(req, body)).arrayBuffer();
        return;
      }
    }
    const answer = await forward(req, body);
    const text = Buffer.from(await answer.arrayBuffer());
    const headers: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive') headers[k] = v;
    });
    res.writeHead(answer.status, headers);
    res.end(text);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/`,
    hold,
    arrived(channelId) {
      if (arrivedChannels.has(channelId)) return Promise.resolve();
      return new Promise((resolve) => waiters.set(channelId, [...(waiters.get(channelId) ?? []), resolve]));
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
