import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/sim/server.js';
import { type FakeTelegram, startFakeTelegram } from '../../fakes/telegram/index.js';
import { last } from '../../helpers/discord.js';
import { freePort } from '../../helpers/compose.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { polText } from '../../helpers/truth.js';

/**
 * `polbot start` as a deployment runs it with nothing but TELEGRAM_BOT_TOKEN (and the fake's API
 * URL): it polls, answers, reports Telegram in /healthz, and on SIGTERM stops polling, finishes
 * what is under way and exits cleanly, never printing the token.
 */

const BIN = join(import.meta.dirname, '../../../bin/polbot.js');

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await Promise.resolve(probe()).catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

let sim: Simulator;
let fake: FakeTelegram;
let child: ChildProcess;
let port: number;
let output = '';
beforeAll(async () => {
  sim = await startTestSimulator();
  fake = await startFakeTelegram();
  port = await freePort();
  child = spawn('node', [BIN, 'start'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      POL_API_BASE_URL: sim.url,
      POL_API_KEY: sim.apiKey,
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_URL: fake.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      POLBOT_DATA_DIR: await mkdtemp(join(tmpdir(), 'polbot-telegram-start-')),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  secretWatch.output('`polbot start` stdout', child.stdout);
  secretWatch.output('`polbot start` stderr', child.stderr);
  await waitFor(async () =>
    (await fetch(`http://127.0.0.1:${port}/healthz`)).ok && output.includes('telegram adapter ready') ? true : undefined,
  );
}, 60_000);

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await fake.close();
  await sim.close();
});

describe('polbot start with Telegram', () => {
  it('polls, answers a command, and reports Telegram in its health', async () => {
    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as {
      components: Record<string, { ok: boolean; detail?: string }>;
    };
    expect(health.components.telegram).toEqual({ ok: true, detail: `polling, @${fake.bot.username}` });
    const ana = fake.addUser({ first_name: 'Ana' });
    const said = fake.say({ chatId: ana.id, from: ana, text: '/pol kraken' });
    const card = await waitFor(() =>
      fake
        .messages(ana.id)
        .find((m) => m.sender === 'bot' && (m.message as Message).reply_to_message?.message_id === said.message.message_id),
    );
    expect((card.message as Message).caption).toContain(polText(last(sim.store.exchange('kraken')!.pol)));
  });

  it('finishes an answer under way after SIGTERM, stops polling, then exits cleanly', async () => {
    sim.faults.set({ latencyMs: 1_500 });
    const ben = fake.addUser({ first_name: 'Ben' });
    const said = fake.say({ chatId: ben.id, from: ben, text: '/pol aave' });
    // The update is taken before the signal; its answer is still on its way.
    await waitFor(() => (fake.pendingUpdates().length === 0 && fake.calls('getUpdates').length > 1 ? true : undefined), 10_000);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const answer = await waitFor(
      () =>
        fake
          .messages(ben.id)
          .find((m) => m.sender === 'bot' && (m.message as Message).reply_to_message?.message_id === said.message.message_id),
      15_000,
    );
    expect((answer.message as Message).caption).toContain('lower is safer');
    expect(await exited).toBe(0);
    expect(output).toContain('telegram adapter stopped');
    expect(output).not.toContain(fake.token);
    expect(output).not.toContain(fake.token.split(':')[1]!);
    expect(output).not.toContain(sim.apiKey);
  }, 30_000);
});
