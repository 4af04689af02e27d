import type { IncomingMessage, ServerResponse } from 'node:http';
import { run, type RunnerHandle } from '@grammyjs/runner';
import { webhookCallback } from 'grammy';
import type { Core } from '../../commands/core/index.js';
import type { Queryable } from '../../src/db/index.js';
import type { Deliverer } from '../../src/delivery/port.js';
import type { HttpRoute } from '../../src/http/routes.js';
import type { Logger } from '../../src/log.js';
import { describe, TelegramAdapter, type TelegramAdapterOptions } from './adapter.js';
import type { TelegramSettings } from './config.js';
import { registerCommands } from './commands.js';
import { telegramDeliverer } from './deliverer.js';

export type { TelegramSettings } from './config.js';
export { COMMAND_LISTS, DESCRIPTIONS } from './commands.js';

export const WEBHOOK_PATH = '/telegram/webhook';
const UPDATES = ['message', 'callback_query', 'inline_query'] as const;
/** Telegram waits this long for a webhook's answer; a slower update is answered 200 and keeps running. */
const WEBHOOK_ANSWER_MS = 8_000;

export interface StartTelegramOptions {
  core: Core;
  telegram: TelegramSettings;
  db: Queryable;
  log: Logger;
  /** How long start-up waits for the Bot API to say who the bot is. */
  readyTimeoutMs?: number;
  noticeTtlMs?: number;
  moved?: TelegramAdapterOptions['moved'];
}

export interface TelegramHandle {
  readonly adapter: TelegramAdapter;
  readonly mode: 'webhook' | 'polling';
  readonly deliverer: Deliverer;
  status(): { ok: boolean; detail: string };
  stop(): Promise<void>;
}

export interface TelegramStart {
  /** `POST /telegram/webhook`, in webhook mode: joins the other routes before the server starts. */
  readonly route?: HttpRoute;
  /** Learns who the bot is, writes the command menu if it changed, then sets the webhook or starts polling. */
  start(): Promise<TelegramHandle>;
}

/**
 * Telegram, long polling by default; with a webhook URL, updates arrive on polbot's HTTP port and
 * every replica can take them (each update runs once: see SeenUpdates).
 */
export function telegram(options: StartTelegramOptions): TelegramStart {
  const { telegram: settings, log } = options;
  const adapter = new TelegramAdapter(options);
  const webhook = settings.webhookUrl
    ? webhookCallback(adapter.bot, 'http', {
        secretToken: settings.webhookSecret,
        onTimeout: 'return',
        timeoutMilliseconds: WEBHOOK_ANSWER_MS,
      })
    : undefined;
  const route: HttpRoute | undefined = webhook
    ? {
        path: WEBHOOK_PATH,
        method: 'POST',
        handle: async (req: IncomingMessage, res: ServerResponse) => {
          try {
            await webhook(req, res);
          } catch (err) {
            // A body that is not an update: refused, nothing run.
            log.warn({ error: describe(err) }, 'telegram webhook request refused');
            if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
            res.end('bad update');
          }
        },
      }
    : undefined;

  return {
    ...(route ? { route } : {}),
    async start() {
      const { bot } = adapter;
      // grammY asks who the bot is until Telegram answers; start-up waits a bounded while for that.
      const readyMs = options.readyTimeoutMs ?? 30_000;
      try {
        // grammY types its signal with the abort-controller shim, which Node's own signal satisfies at run time.
        await bot.init(AbortSignal.timeout(readyMs) as Parameters<typeof bot.init>[0]);
      } catch (err) {
        const info = describe(err);
        log.error({ error: info }, 'telegram start-up failed');
        const why =
          info.code === 401
            ? 'the bot token was refused (401 Unauthorized)'
            : info.name === 'GrammyError'
              ? String(info.description)
              : `the Bot API (${settings.apiUrl ?? 'https://api.telegram.org'}) did not answer within ${readyMs / 1000} s`;
        throw new Error(`Telegram: ${why}`);
      }
      await registerCommands(bot.api, log).catch((err: unknown) =>
        log.warn({ error: describe(err) }, 'the telegram command menu could not be written; commands still work'),
      );
      let runner: RunnerHandle | undefined;
      if (settings.webhookUrl) {
        await bot.api.setWebhook(settings.webhookUrl, {
          ...(settings.webhookSecret ? { secret_token: settings.webhookSecret } : {}),
          allowed_updates: [...UPDATES],
        });
      } else {
        // A webhook left from another deployment would keep every poll waiting in vain (409).
        if ((await bot.api.getWebhookInfo()).url) await bot.api.deleteWebhook();
        runner = run(bot, { runner: { fetch: { allowed_updates: [...UPDATES] }, silent: true } });
        // The runner retries what can pass and gives up on what cannot: another poller (409) or
        // a revoked token (401). That is said once, plainly, and /healthz reports it.
        void runner.task()?.catch((err: unknown) => {
          const info = describe(err);
          log.error(
            { error: info },
            info.code === 409
              ? 'telegram long polling stopped: another process polls this bot (409 Conflict); stop it, or use a webhook for several replicas'
              : info.code === 401
                ? 'telegram long polling stopped: the bot token was refused (401 Unauthorized)'
                : 'telegram long polling stopped',
          );
        });
      }
      const mode = settings.webhookUrl ? 'webhook' : 'polling';
      log.info({ bot: adapter.username, mode }, 'telegram adapter ready');
      let stopped = false;
      return {
        adapter,
        mode,
        deliverer: telegramDeliverer(adapter),
        status: () => ({ ok: runner ? runner.isRunning() : true, detail: `${mode}, @${adapter.username}` }),
        async stop() {
          if (stopped) return;
          stopped = true;
          if (runner?.isRunning()) await runner.stop();
          await adapter.drain();
          log.info('telegram adapter stopped');
        },
      };
    },
  };
}
