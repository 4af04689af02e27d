import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/sim/server.js';
import { postToBolt, slashCommandBody, startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { startTestSimulator } from '../../helpers/sim.js';

const BIN = join(import.meta.dirname, '../../../bin/polbot.js');
const SECRET = 'start-test-signing-secret-91c2';
const TOKEN = 'xoxb-start-test-token-0001';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

let sim: Simulator;
let fake: FakeSlack;
let child: ChildProcess;
let port: number;
let output = '';
beforeAll(async () => {
  sim = await startTestSimulator();
  fake = await startFakeSlack({ botToken: TOKEN });
  port = await freePort();
  child = spawn('node', [BIN, 'start'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      POL_API_BASE_URL: sim.url,
      POL_API_KEY: sim.apiKey,
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: fake.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      POLBOT_DATA_DIR: await mkdtemp(join(tmpdir(), 'polbot-start-')),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  secretWatch.output('`polbot start` stdout', child.stdout);
  secretWatch.output('`polbot start` stderr', child.stderr);
  await waitFor(async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok && output.includes('polbot started') ? true : undefined));
}, 60_000);

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await fake.close();
  await sim.close();
});

describe('polbot start with Slack in HTTP mode', () => {
  it('serves health and metrics next to the Slack events endpoint', async () => {
    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as any;
    expect(health.upstream.source).toBe('rest');
    expect(health.components.database.ok).toBe(true);
    expect(health.components.slack.ok).toBe(true);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('polbot_command_duration_seconds');
    // The start-up check ran against the upstream and logged that it agrees.
    await waitFor(async () => (output.includes('upstream check: every source answers as polbot expects') ? true : undefined), 10_000);
  });

  it('finishes an answer under way after SIGTERM, then exits cleanly', async () => {
    sim.faults.set({ latencyMs: 1_500 });
    const body = slashCommandBody({
      text: 'kraken',
      response_url: fake.responseUrl('sigterm'),
      channel_id: 'C0SIGTERM',
      user_id: 'U0SIGTERM',
    });
    const ack = await postToBolt(`http://127.0.0.1:${port}/slack/events`, body, SECRET);
    expect(ack.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const posted = await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'C0SIGTERM' && JSON.stringify(c.args.blocks ?? '').includes('Kraken'),
      15_000,
    );
    expect(JSON.stringify(posted.args.blocks)).toContain('lower is safer');
    expect(await exited).toBe(0);
    expect(output).toContain('shutting down');
    expect(output).not.toContain(sim.apiKey);
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain(SECRET);
  }, 30_000);
});
