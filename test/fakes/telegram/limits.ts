import type { ResponseParameters } from 'grammy/types';
import { TelegramError, tooManyRequests } from './errors.js';

/**
 * Refusals that do not depend on what was asked: the ones a test schedules for a method's next
 * calls (`rateLimitNext`, `failNext`), and Telegram's flood control, off until switched on:
 * about 30 messages a second across all chats and about 20 a minute in one group. "About": a
 * send is refused when the previous 30 (or 20) all fell within the last 0.9 s (or 54 s), so a
 * client pacing at exactly the limit, with its timers' jitter, is let through, and a burst is not.
 * A refused send is answered 429 with `retry_after`, the whole seconds until it would pass, and
 * is not counted.
 */

export interface FailSpec {
  /** The error_code, e.g. 400, 403, 500, 502. */
  code: number;
  /** The description, e.g. `Bad Request: message can't be edited`; by default the status's usual words. */
  description?: string;
  parameters?: ResponseParameters;
  times?: number;
}

const OVERALL = { max: 30, windowMs: 900 };
const GROUP = { max: 20, windowMs: 54_000 };

const USUAL: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
};

interface Planned {
  error: () => TelegramError;
  remaining: number;
}

export class Limits {
  readonly #planned = new Map<string, Planned[]>();
  readonly #sends: number[] = [];
  readonly #groupSends = new Map<number, number[]>();
  flood = false;

  rateLimitNext(method: string, retryAfterSec: number, times = 1): void {
    if (!Number.isInteger(retryAfterSec) || retryAfterSec < 1)
      throw new RangeError(`retryAfterSec must be a whole number >= 1, got ${retryAfterSec}`);
    this.#plan(method, times, () => tooManyRequests(retryAfterSec));
  }

  failNext(method: string, spec: FailSpec): void {
    this.#plan(
      method,
      spec.times ?? 1,
      () => new TelegramError(spec.code, spec.description ?? USUAL[spec.code] ?? `Error ${spec.code}`, spec.parameters),
    );
  }

  clear(): void {
    this.#planned.clear();
  }

  /** The refusal scheduled for this call of `method`, if any; it is used up. */
  take(method: string): TelegramError | undefined {
    const queue = this.#planned.get(method.toLowerCase());
    const head = queue?.[0];
    if (!queue || !head) return undefined;
    head.remaining -= 1;
    if (head.remaining === 0) queue.shift();
    return head.error();
  }

  /** Counts a message sent to a chat, or refuses it under flood control. */
  send(chatId: number, now: number): void {
    if (this.flood) {
      const group = chatId < 0 ? (this.#groupSends.get(chatId) ?? []) : undefined;
      const wait = Math.max(waitMs(this.#sends, OVERALL, now), group ? waitMs(group, GROUP, now) : 0);
      if (wait > 0) throw tooManyRequests(Math.max(1, Math.ceil(wait / 1000)));
    }
    this.#sends.push(now);
    if (chatId < 0) this.#groupSends.set(chatId, [...(this.#groupSends.get(chatId) ?? []), now]);
  }

  #plan(method: string, times: number, error: () => TelegramError): void {
    if (!Number.isInteger(times) || times < 1) throw new RangeError(`times must be a positive integer, got ${times}`);
    const key = method.toLowerCase();
    this.#planned.set(key, [...(this.#planned.get(key) ?? []), { error, remaining: times }]);
  }
}

/** How long until one more send fits: 0 unless the last `max` sends all fall within the window. */
function waitMs(sends: number[], rule: { max: number; windowMs: number }, now: number): number {
  if (sends.length < rule.max) return 0;
  const oldest = sends[sends.length - rule.max]!;
  return Math.max(0, oldest + rule.windowMs - now);
}
