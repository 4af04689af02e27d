import type { Update, WebhookInfo } from 'grammy/types';
import { secretWatch } from '../../helpers/secret-watch.js';
import type { Args } from './args.js';
import { badRequest, conflict, tooManyRequests } from './errors.js';
import { Described } from './http.js';
import type { UpdateQueue } from './updates.js';

/**
 * setWebhook, deleteWebhook and getWebhookInfo, and the delivery they start: every queued update
 * is POSTed to the URL as JSON, one at a time in order, with `X-Telegram-Bot-Api-Secret-Token`
 * when a secret was set. A 2xx confirms the update (a JSON body naming a `method` is run as that
 * call, as Telegram runs webhook replies); anything else is recorded as the last error
 * (`Wrong response from the webhook: 401 Unauthorized`) and the update is sent again after a
 * delay that doubles (or the receiver's Retry-After). Unlike Telegram, plain HTTP on loopback is
 * accepted, so tests need no certificate.
 */

export interface WebhookDelivery {
  updateId: number;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The receiver's status; 0 when the connection failed. */
  status: number;
  at: Date;
}

interface Config {
  url: string;
  secret: string;
  maxConnections: number;
  ipAddress?: string;
}

export interface WebhookDeps {
  queue: UpdateQueue;
  now: () => number;
  /** First delay before an update is sent again; Telegram starts at 1 s. */
  retryBaseMs: number;
  /** Runs a method a webhook answered with. */
  runReply: (method: string, body: Record<string, unknown>) => Promise<void>;
}

const SECRET = /^[A-Za-z0-9_-]*$/;

export class Webhook {
  #config: Config | undefined;
  #lastError: { date: number; message: string } | undefined;
  #nextSetAt = 0;
  #running = false;
  /** Ends the wait for an update to deliver. */
  #wakeIdle: (() => void) | undefined;
  /** Ends the wait before sending a refused update again (only when the webhook goes). */
  #wakeRetry: (() => void) | undefined;
  #closed = false;
  readonly deliveries: WebhookDelivery[] = [];

  constructor(private readonly deps: WebhookDeps) {
    deps.queue.onPush(() => this.#wakeIdle?.());
  }

  set(args: Args): Described {
    const url = args.string('url') ?? '';
    if (url === '') return this.remove(args);
    const secret = args.string('secret_token') ?? '';
    secretWatch.secret(secret, 'Telegram webhook secret');
    const now = this.deps.now();
    if (now < this.#nextSetAt) throw tooManyRequests(1);
    this.#nextSetAt = now + 1000;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw badRequest('invalid webhook URL specified');
    }
    if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && parsed.hostname === '127.0.0.1')) {
      throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
    }
    if (secret.length > 256) throw badRequest('secret token is too long');
    if (!SECRET.test(secret)) throw badRequest('secret token contains unallowed characters');
    const next: Config = { url, secret, maxConnections: Math.min(100, Math.max(1, args.int('max_connections') ?? 40)) };
    const ip = args.string('ip_address');
    if (ip) next.ipAddress = ip;
    const drop = args.bool('drop_pending_updates');
    this.deps.queue.setAllowed(args);
    const same = this.#config && this.#config.url === next.url && this.#config.secret === next.secret;
    if (same && this.#config!.maxConnections === next.maxConnections && !drop) {
      return new Described(true, 'Webhook is already set');
    }
    if (drop) this.deps.queue.drop();
    this.deps.queue.endPoll(conflict('terminated by setWebhook request'));
    this.#config = next;
    this.#lastError = undefined;
    this.deps.queue.webhookActive = true;
    // A new webhook is tried at once, not after the old one's backoff.
    this.#wakeRetry?.();
    this.#start();
    return new Described(true, 'Webhook was set');
  }

  remove(args: Args): Described {
    if (args.bool('drop_pending_updates')) this.deps.queue.drop();
    const had = this.#config !== undefined;
    this.#config = undefined;
    this.deps.queue.webhookActive = false;
    this.#wakeIdle?.();
    this.#wakeRetry?.();
    return new Described(true, had ? 'Webhook was deleted' : 'Webhook is already deleted');
  }

  info(): WebhookInfo {
    const info: WebhookInfo = {
      url: this.#config?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: this.deps.queue.pending().length,
    };
    if (this.#lastError) Object.assign(info, { last_error_date: this.#lastError.date, last_error_message: this.#lastError.message });
    if (this.#config)
      Object.assign(info, { max_connections: this.#config.maxConnections, ip_address: this.#config.ipAddress ?? '127.0.0.1' });
    const allowed = this.deps.queue.allowed();
    if (allowed) info.allowed_updates = allowed as WebhookInfo['allowed_updates'];
    return info;
  }

  close(): void {
    this.#closed = true;
    this.#config = undefined;
    this.#wakeIdle?.();
    this.#wakeRetry?.();
  }

  #start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#loop().finally(() => {
      this.#running = false;
    });
  }

  async #loop(): Promise<void> {
    let delayMs = this.deps.retryBaseMs;
    while (!this.#closed && this.#config) {
      const update = this.deps.queue.pending()[0];
      if (!update) {
        await new Promise<void>((resolve) => {
          this.#wakeIdle = resolve;
        });
        continue;
      }
      const outcome = await this.#post(this.#config, update);
      if (outcome.ok) {
        this.deps.queue.confirm(update.update_id);
        delayMs = this.deps.retryBaseMs;
        continue;
      }
      this.#lastError = { date: Math.floor(this.deps.now() / 1000), message: outcome.error };
      const wait = outcome.retryAfterSec !== undefined ? outcome.retryAfterSec * 1000 : delayMs;
      delayMs = Math.min(delayMs * 2, 60_000);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.#wakeRetry = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  async #post(config: Config, update: Update): Promise<{ ok: true } | { ok: false; error: string; retryAfterSec?: number }> {
    const body = JSON.stringify(update);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (config.secret) headers['x-telegram-bot-api-secret-token'] = config.secret;
    const delivery: WebhookDelivery = { updateId: update.update_id, url: config.url, headers, body, status: 0, at: new Date() };
    this.deliveries.push(delivery);
    let response: Response;
    try {
      response = await fetch(config.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(60_000) });
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      return { ok: false, error: code === 'ECONNREFUSED' ? 'Connection refused' : 'Webhook connection closed' };
    }
    delivery.status = response.status;
    const text = await response.text().catch(() => '');
    if (response.status < 200 || response.status > 299) {
      const retryAfter = Number(response.headers.get('retry-after'));
      return {
        ok: false,
        error: `Wrong response from the webhook: ${response.status} ${response.statusText}`,
        ...(Number.isInteger(retryAfter) && retryAfter > 0 ? { retryAfterSec: retryAfter } : {}),
      };
    }
    await this.#reply(text);
    return { ok: true };
  }

  /** A webhook may answer with one method call; Telegram runs it, and nobody sees its result. */
  async #reply(text: string): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof body !== 'object' || body === null) return;
    const method = String((body as { method?: unknown }).method ?? '');
    const name = method.toLowerCase();
    const refused = ['deletewebhook', 'setwebhook', 'close', 'logout'];
    if (name === '' || refused.includes(name) || name.startsWith('get')) return;
    await this.deps.runReply(method, body as Record<string, unknown>);
  }
}
