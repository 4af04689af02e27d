import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'grammy/types';
import { startBot, type Bot } from '../../app/bot.js';
import { telegram, type TelegramHandle } from '../../adapters/telegram/index.js';
import type { Core } from '../../commands/core/index.js';
import { AlertService } from '../../src/alerts/service.js';
import { AlertStore } from '../../src/alerts/store.js';
import { openPglite, type Db } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrations.js';
import { lateDeliverer } from '../../src/delivery/port.js';
import { createDigests, type Digests } from '../../src/digest/index.js';
import { moveChannel } from '../../src/installs/moves.js';
import { applyMove, type Move } from '../../src/sim/admin.js';
import type { SimStore } from '../../src/sim/data/store.js';
import { demoCore } from './core.js';
import { loadConfig } from '../../app/config.js';
import type { Logger } from '../../src/log.js';
import { type FakeTelegram, type FakeTelegramOptions, startFakeTelegram, type TelegramCall } from '../fakes/telegram/index.js';
import { memoryLogger } from './discord.js';

/**
 * `polbot start` with Telegram against the fake Bot API: the composition root builds it from the
 * environment, as a deployment does, with its own database under a temporary directory.
 */
export interface TelegramStack {
  fake: FakeTelegram;
  bot: Bot;
  dataDir: string;
  logLines: string[];
  log: Logger;
  /** Stops the bot and starts it again on the same database and fake (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TelegramStackOptions {
  env?: Record<string, string>;
  fake?: FakeTelegramOptions;
  /** An existing fake (a second replica). */
  shared?: FakeTelegram;
  dataDir?: string;
}

export async function startTelegramStack(options: TelegramStackOptions = {}): Promise<TelegramStack> {
  const fake = options.shared ?? (await startFakeTelegram(options.fake));
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'polbot-telegram-')));
  const { log, lines } = memoryLogger();
  const config = () =>
    loadConfig({
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_URL: fake.url,
      POLBOT_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT_PER_USER: '0',
      ...options.env,
    });
  const stack: TelegramStack = {
    fake,
    bot: await startBot(config(), log as Parameters<typeof startBot>[1]),
    dataDir,
    logLines: lines,
    log,
    async restart() {
      await stack.bot.stop();
      stack.bot = await startBot(config(), log as Parameters<typeof startBot>[1]);
    },
    async close() {
      await stack.bot.stop();
      if (!options.shared) await fake.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}

/** What a sent message shows: its text or caption, and its buttons as label -> callback_data. */
export function shown(call: TelegramCall): { text: string; buttons: { text: string; data?: string; url?: string }[] } {
  const result = call.result as Message | undefined;
  const text = (result && ('text' in result ? result.text : 'caption' in result ? result.caption : undefined)) ?? '';
  const markup = (result as { reply_markup?: { inline_keyboard: { text: string; callback_data?: string; url?: string }[][] } })
    ?.reply_markup;
  return {
    text,
    buttons: (markup?.inline_keyboard ?? []).flat().map((b) => ({
      text: b.text,
      ...(b.callback_data !== undefined ? { data: b.callback_data } : {}),
      ...(b.url !== undefined ? { url: b.url } : {}),
    })),
  };
}

/**
 * The adapter on its own, with the product's digest and alert services on a database of its own
 * and a clock the test moves: for what needs time or a short-lived note (a group's notes last
 * `noticeTtlMs` here rather than a minute).
 */
export interface TelegramParts {
  fake: FakeTelegram;
  core: Core;
  db: Db;
  handle: TelegramHandle;
  digests: Digests;
  alerts: AlertService;
  sim: SimStore;
  logLines: string[];
  clock: { now: number };
  /** Moves an entity on the simulator and forgets what the cache held. */
  move(move: Move): void;
  close(): Promise<void>;
}

export async function startTelegramParts(options: { noticeTtlMs?: number; fake?: FakeTelegramOptions } = {}): Promise<TelegramParts> {
  const fake = await startFakeTelegram(options.fake);
  const core = await demoCore({ RATE_LIMIT_PER_USER: '0' });
  const db = await openPglite();
  await migrate(db);
  const { log, lines } = memoryLogger();
  const clock = { now: Date.now() };
  let handle: TelegramHandle | null = null;
  const deliverers = [lateDeliverer('telegram', () => handle?.deliverer ?? null)];
  const digests = await createDigests({ db, ctx: core.ctx, deliverers, log, now: () => clock.now });
  const alerts = new AlertService({
    store: new AlertStore(db),
    deps: core.ctx,
    deliverers,
    complete: core.complete,
    leaseMs: 60_000,
    now: () => clock.now,
  });
  core.ctx.digests = digests.service;
  core.ctx.alerts = alerts;
  handle = await telegram({
    core,
    telegram: { token: fake.token, apiUrl: fake.url },
    db,
    log,
    ...(options.noticeTtlMs !== undefined ? { noticeTtlMs: options.noticeTtlMs } : {}),
    moved: (from, to) => moveChannel(db, 'telegram', from, to),
  }).start();
  const started = handle;
  const sim = core.upstream.sim!.store;
  return {
    fake,
    core,
    db,
    handle: started,
    digests,
    alerts,
    sim,
    logLines: lines,
    clock,
    move(move) {
      applyMove(sim, move);
      core.upstream.source.cache.clear();
    },
    async close() {
      await started.stop();
      await alerts.stop();
      await digests.stop();
      await fake.close();
      await core.close();
      await db.close();
    },
  };
}

/** Polls `find` until it gives something (not undefined or false), or fails the test naming `what`. */
export async function until<T>(find: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
