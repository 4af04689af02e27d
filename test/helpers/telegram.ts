import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'grammy/types';
import { startBot, type Bot } from '../../app/bot.js';
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
