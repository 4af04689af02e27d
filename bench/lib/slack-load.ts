/**
 * Slack's side of a burst, in its own process so that sending 500 requests costs polbot's event
 * loop nothing: signed slash commands posted to the app's Request URL at once, each one timed to
 * the HTTP response (the acknowledgement Slack waits 3 seconds for).
 */
import { Pool } from 'undici';
import { signSlackRequest, slashCommandBody } from '../../test/fakes/slack/index.js';
import { serveParent } from './child.js';

export interface LoadRequest {
  origin: string;
  secret: string;
  responseOrigin: string;
  commands: string[];
  /** Keep-alive connections opened before the burst (a busy app's are already open). */
  warmConnections: boolean;
}

export interface LoadResult {
  times: number[];
  statuses: Record<string, number>;
  wallMs: number;
}

let pool: Pool | undefined;
let run = 0;

async function burst(req: LoadRequest): Promise<LoadResult> {
  pool ??= new Pool(req.origin, { connections: req.commands.length, pipelining: 1 });
  if (req.warmConnections) {
    // Any path opens a connection; Bolt answers unknown ones with 404 and keeps the socket.
    await Promise.all(req.commands.map(async () => (await pool!.request({ path: '/warm-up', method: 'GET' })).body.dump()));
  }
  run++;
  const bodies = req.commands.map((text, i) =>
    slashCommandBody({
      command: '/pol',
      text,
      response_url: `${req.responseOrigin}/response/run${run}-${i}`,
      // Many people in many channels, as a real burst would be.
      user_id: `U${String(i).padStart(8, '0')}`,
      channel_id: `C${String(i % 50).padStart(8, '0')}`,
    }),
  );
  const statuses: Record<string, number> = {};
  const started = performance.now();
  const times = await Promise.all(
    bodies.map(async (body) => {
      const t0 = performance.now();
      const res = await pool!.request({
        path: '/slack/events',
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
          ...signSlackRequest(req.secret, body),
        },
        body,
      });
      await res.body.text();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      return performance.now() - t0;
    }),
  );
  return { times, statuses, wallMs: performance.now() - started };
}

serveParent(
  {},
  async (msg) => {
    if (msg.op !== 'burst') throw new Error(`unknown op ${msg.op}`);
    const result = await burst(msg.request as LoadRequest);
    // The next burst goes to a new app on a new port.
    await pool?.close();
    pool = undefined;
    return { result };
  },
  async () => {
    await pool?.close();
  },
);
