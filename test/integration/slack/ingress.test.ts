import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogLevel, type App, type ReceiverEvent } from '@slack/bolt';
import { IngressReceiver } from '../../../adapters/slack/ingress/receiver.js';
import { boltLogger } from '../../../adapters/slack/bolt-logger.js';
import { createLogger } from '../../../src/log.js';
import { postToBolt, signSlackRequest, slashCommandBody } from '../../fakes/slack/index.js';
import { LogCapture, SIGNING_SECRET, startHarness, type Harness } from '../../helpers/slack/harness.js';

/** Slack's side, kept raw: these requests are what a hand-rolled receiver could get wrong. */
async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

describe('the Slack ingress thread, behind the real app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      customRoutes: [
        {
          path: '/healthz',
          method: 'GET',
          respond: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"ok"}' }),
        },
      ],
    });
  });
  afterAll(() => h.close());

  it("answers Slack's unsigned ssl_check with a bare 200 and hands nothing to the app", async () => {
    const before = h.sim.counter.total;
    const r = await post(h.endpoint, 'ssl_check=1&token=legacy&command=%2Fpol&text=bitcoin', {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
    });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The smuggled command was not run: nothing reached the upstream nor Slack.
    expect(h.sim.counter.total).toBe(before);
    expect(h.fake.calls('chat.postMessage')).toHaveLength(0);
  });

  it('echoes the challenge of a signed url_verification as JSON', async () => {
    const body = JSON.stringify({ type: 'url_verification', challenge: 'c-3f9a', token: 'legacy' });
    const r = await postToBolt(h.endpoint, body, SIGNING_SECRET, { contentType: 'application/json' });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({ challenge: 'c-3f9a' });
  });

  it('refuses an unsigned url_verification', async () => {
    const r = await post(h.endpoint, JSON.stringify({ type: 'url_verification', challenge: 'x' }), {
      'content-type': 'application/json',
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
    });
    expect(r.status).toBe(401);
  });

  it('refuses a body over 4 MB with 413, whether declared or not, and keeps serving', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024 + 10, 'a');
    const signed = signSlackRequest(SIGNING_SECRET, big.toString());
    const declared = await post(h.endpoint, big, { 'content-type': 'application/x-www-form-urlencoded', ...signed });
    expect(declared.status).toBe(413);
    // Chunked, with no length to refuse up front: cut off while reading.
    const chunked = await fetch(h.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...signed },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(1024 * 1024));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(h.logs.lines.some((l) => l.includes('exceeded the maximum allowed size'))).toBe(true);
    expect((await h.command('help')).status).toBe(200);
  });

  it('answers a signed but unreadable body with 400', async () => {
    const r = await postToBolt(h.endpoint, 'payload=%7Bnot-json', SIGNING_SECRET);
    expect(r.status).toBe(400);
    const json = await postToBolt(h.endpoint, '[1,2]', SIGNING_SECRET, { contentType: 'application/json' });
    expect(json.status).toBe(400);
  });

  it('answers 405 to other methods on the events path and 404 elsewhere', async () => {
    expect((await fetch(h.endpoint)).status).toBe(405);
    expect((await fetch(h.endpoint.replace('/slack/events', '/other'), { method: 'POST', body: 'x' })).status).toBe(404);
  });

  it('lets the app acknowledge what it does not acknowledge on arrival (Events API), through the main thread', async () => {
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: 'T0001',
      api_app_id: 'A0001',
      event: { type: 'app_home_opened', user: 'U0001' },
      event_id: 'Ev01',
      event_time: 1,
    });
    const r = await postToBolt(h.endpoint, body, SIGNING_SECRET, { contentType: 'application/json' });
    // Bolt's app acknowledges events itself; the acknowledgement crossed back to the thread.
    expect(r.status).toBe(200);
  });

  it('serves operational routes answered on the main thread', async () => {
    const res = await fetch(h.endpoint.replace('/slack/events', '/healthz?probe=1'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('acknowledges a burst of commands with 200s and answers every one', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
    const acks = await Promise.all(ids.map((id) => h.command('help', { responseId: id })));
    expect(acks.map((a) => a.status)).toEqual(ids.map(() => 200));
    expect(acks.every((a) => a.body === '')).toBe(true);
    for (const id of ids) await h.fake.waitFor('response_url', (c) => c.id === id, 10_000);
  });
});

describe('the ingress receiver', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'polbot-ingress-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  function receiver(logs: LogCapture, threadModule?: URL) {
    const log = createLogger({ level: 'debug', destination: logs });
    const events: ReceiverEvent[] = [];
    // Bolt's App is the library's; what the receiver needs of it is processEvent.
    const app = { processEvent: async (event: ReceiverEvent) => void events.push(event) } as unknown as App;
    const r = new IngressReceiver({
      signingSecret: SIGNING_SECRET,
      endpoint: '/slack/events',
      logger: boltLogger(log),
      logLevel: LogLevel.DEBUG,
      log,
      ...(threadModule ? { threadModule } : {}),
    });
    r.init(app);
    return { r, events };
  }

  it('starts the thread again after it dies, on the same port, and takes commands again', async () => {
    process.env.POLBOT_TEST_INGRESS_CRASH_MARKER = join(dir, 'crashed');
    const logs = new LogCapture();
    const { r, events } = receiver(logs, new URL('../../helpers/slack/fixtures/crash-once-thread.mjs', import.meta.url));
    try {
      const { port } = await r.start(0, '127.0.0.1');
      const url = `http://127.0.0.1:${port}/slack/events`;
      const deadline = Date.now() + 15_000;
      while (!logs.lines.some((l) => l.includes('listens again')) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(logs.lines.some((l) => l.includes('stopped unexpectedly'))).toBe(true);
      expect(logs.lines.some((l) => l.includes('listens again'))).toBe(true);
      const ack = await postToBolt(
        url,
        slashCommandBody({ command: '/pol', text: 'bitcoin', response_url: 'http://127.0.0.1:9/r' }),
        SIGNING_SECRET,
      );
      expect(ack.status).toBe(200);
      // Acknowledged first, handed over after.
      while (!events.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(events.map((e) => e.body.text)).toEqual(['bitcoin']);
    } finally {
      delete process.env.POLBOT_TEST_INGRESS_CRASH_MARKER;
      await r.stop();
    }
  });

  it('fails to start with the listen error when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const { r } = receiver(new LogCapture());
    try {
      await expect(r.start(port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await r.stop();
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
