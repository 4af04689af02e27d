import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Hold =
  /** The post never reaches the platform: the sender dies with it in flight. */
  | 'request'
  /** The post reaches the platform (it is recorded there), but the answer never comes back. */
  | 'response';

/** The channel a request posts a message into, or undefined for any other request. */
export type PostChannel = (method: string, path: string, body: Buffer, contentType: string) => string | undefined;

/** The arguments of a Slack `chat.postMessage`, form or JSON; undefined for any other request. */
function slackPostArgs(path: string, body: Buffer, contentType: string): Record<string, unknown> | undefined {
  if (path !== '/api/chat.postMessage') return undefined;
  const text = body.toString('utf8');
  if (contentType.includes('application/json')) return JSON.parse(text || '{}') as Record<string, unknown>;
  return Object.fromEntries(new URLSearchParams(text));
}

/** Slack: `chat.postMessage`, the channel among its form or JSON arguments. */
export const slackPost: PostChannel = (_method, path, body, contentType) => {
  const args = slackPostArgs(path, body, contentType);
  return args ? String(args.channel ?? '') : undefined;
};

/**
 * Slack: a reply in a thread (`chat.postMessage` with `thread_ts`), by the `ts` of the message it
 * follows, so that one alert's thread can be held while its channel's other posts pass. In Discord
 * `discordPost` does this already: a thread started on a message is a channel with the message's id.
 */
export const slackThreadReply: PostChannel = (_method, path, body, contentType) => {
  const threadTs = slackPostArgs(path, body, contentType)?.thread_ts;
  return typeof threadTs === 'string' && threadTs ? threadTs : undefined;
};

/** Discord: `POST /channels/{channel.id}/messages`. */
export const discordPost: PostChannel = (method, path) =>
  method === 'POST' ? /^\/api\/v\d+\/channels\/(\d+)\/messages$/.exec(path)?.[1] : undefined;

export interface HoldProxy {
  /** `http://127.0.0.1:PORT`: the fake's origin as the clients see it through the proxy. */
  origin: string;
  /** Per channel: hold its posts; absent channels pass through. */
  hold: Map<string, Hold>;
  /** Resolves when a post into the channel has arrived here. */
  arrived(channelId: string): Promise<void>;
  /** How many posts into the channel have arrived here, held or not. */
  count(channelId: string): number;
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

const HOP_BY_HOP = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * A loopback proxy in front of a fake platform, for killing a sender at a chosen point of a post.
 * Everything else (reads of the channel's history included) passes through to the fake unchanged.
 */
export async function startHoldProxy(upstreamOrigin: string, postChannel: PostChannel): Promise<HoldProxy> {
  const hold = new Map<string, Hold>();
  const waiters = new Map<string, (() => void)[]>();
  const arrivedChannels = new Map<string, number>();
  const sockets = new Set<Socket>();

  const forward = async (req: IncomingMessage, body: Buffer) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP_BY_HOP.has(k)) headers[k] = v;
    const method = req.method ?? 'GET';
    return fetch(`${upstreamOrigin}${req.url}`, { method, headers, ...(method === 'GET' || method === 'HEAD' ? {} : { body }) });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const channel = postChannel(req.method ?? 'GET', path, body, req.headers['content-type'] ?? '');
    if (channel !== undefined) {
      arrivedChannels.set(channel, (arrivedChannels.get(channel) ?? 0) + 1);
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
    const payload = Buffer.from(await answer.arrayBuffer());
    const headers: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      // fetch has already decoded the body.
      if (!HOP_BY_HOP.has(k) && k !== 'content-encoding') headers[k] = v;
    });
    res.writeHead(answer.status, headers);
    res.end(payload);
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
    origin: `http://127.0.0.1:${port}`,
    hold,
    arrived(channelId) {
      if (arrivedChannels.has(channelId)) return Promise.resolve();
      return new Promise((resolve) => waiters.set(channelId, [...(waiters.get(channelId) ?? []), resolve]));
    },
    count: (channelId) => arrivedChannels.get(channelId) ?? 0,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
