/**
 * Slack's side of a burst, in its own process so that sending 500 requests costs polbot's event
 * loop nothing: signed slash commands posted to the app's Request URL at once, each one timed to
 * the HTTP response (the acknowledgement Slack waits 3 seconds for).
 *
 * Requests are written as prepared bytes on connections opened beforehand, rather than through an
 * HTTP client: on a machine with two cores the client's own work per request (building, queueing,
 * parsing) was most of a 500-request burst's measured latency, before the app had done anything.
 * Slack sends from its own machines; this keeps the sender as cheap as it can be here.
 */
import { connect, type Socket } from 'node:net';
import { signSlackRequest, slashCommandBody } from '../../test/fakes/slack/index.js';
import { serveParent } from './child.js';

export interface LoadRequest {
  origin: string;
  secret: string;
  responseOrigin: string;
  commands: string[];
  /** Connections opened before the burst (a busy app's are already open); otherwise each request connects. */
  warmConnections: boolean;
}

export interface LoadResult {
  times: number[];
  statuses: Record<string, number>;
  wallMs: number;
  /** When the first request was written (epoch ms), to time the answers that follow. */
  startedAt: number;
}

let run = 0;

function open(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Resolves with the status once a whole response (headers, and a Content-Length or chunked body) has arrived. */
function response(socket: Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    const done = (status: number) => {
      socket.off('data', onData);
      socket.off('error', reject);
      socket.off('close', onClose);
      resolve(status);
    };
    const onClose = () => reject(new Error(`connection closed after ${buffered.length} bytes`));
    const onData = (chunk: Buffer) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffered.subarray(0, end).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      const body = buffered.length - (end + 4);
      if (length) {
        if (body >= Number(length[1])) done(status);
      } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
        if (buffered.subarray(end + 4).includes('0\r\n\r\n')) done(status);
      } else done(status);
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', onClose);
  });
}

async function burst(req: LoadRequest): Promise<LoadResult> {
  const { hostname, port } = new URL(req.origin);
  run++;
  const host = `${hostname}:${port}`;
  const requests = req.commands.map((text, i) => {
    const body = slashCommandBody({
      command: '/pol',
      text,
      response_url: `${req.responseOrigin}/response/run${run}-${i}`,
      // Many people in many channels, as a real burst would be; other people and channels in each
      // burst, so polbot's per-person and per-channel rate limits never turn a later burst away.
      user_id: `U${String(run).padStart(3, '0')}${String(i).padStart(6, '0')}`,
      channel_id: `C${String(run).padStart(3, '0')}${String(i % 50).padStart(6, '0')}`,
    });
    const signed = signSlackRequest(req.secret, body);
    const head =
      `POST /slack/events HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: Slackbot 1.0 (+https://api.slack.com/robots)\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Slack-Signature: ${signed['x-slack-signature']}\r\nX-Slack-Request-Timestamp: ${signed['x-slack-request-timestamp']}\r\n` +
      '\r\n';
    return Buffer.from(head + body);
  });
  const sockets: Socket[] = req.warmConnections ? await Promise.all(requests.map(() => open(hostname, Number(port)))) : [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  const startedAt = Date.now();
  try {
    const times = await Promise.all(
      requests.map(async (bytes, i) => {
        const t0 = performance.now();
        const socket = sockets[i] ?? (await open(hostname, Number(port)));
        sockets[i] = socket;
        const answered = response(socket);
        socket.write(bytes);
        const status = await answered;
        statuses[status] = (statuses[status] ?? 0) + 1;
        return performance.now() - t0;
      }),
    );
    return { times, statuses, wallMs: performance.now() - started, startedAt };
  } finally {
    for (const s of sockets) s?.destroy();
  }
}

serveParent(
  {},
  async (msg) => {
    if (msg.op !== 'burst') throw new Error(`unknown op ${msg.op}`);
    return { result: await burst(msg.request as LoadRequest) };
  },
  async () => undefined,
);
