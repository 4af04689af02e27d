import type { Update } from 'grammy/types';
import type { Args } from './args.js';
import { badRequest, conflict } from './errors.js';

/**
 * The bot's update queue and getUpdates over it, as the Bot API keeps them: updates wait, in
 * order, until a getUpdates with a higher `offset` confirms them (a negative offset keeps only
 * the last ones); a getUpdates with `timeout` waits until an update comes or the time is up; a
 * second getUpdates ends the waiting one with 409; `allowed_updates` is remembered and decides
 * which updates are made at all (chat_member and reactions only on request). While a webhook is
 * set, getUpdates is refused and the webhook drains the queue instead (webhook.ts).
 */

/** Update types made when allowed_updates was never given (or given empty). */
const OPT_IN = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);
const MAX_TIMEOUT_SEC = 50;

export type UpdateBody = Omit<Update, 'update_id'>;

interface Poll {
  finish: (updates: Update[]) => void;
  fail: (error: Error) => void;
  offset: number;
  limit: number;
  timer: NodeJS.Timeout;
}

export class UpdateQueue {
  readonly #pending: Update[] = [];
  #nextId = 380_000_000 + Math.floor(Math.random() * 1_000_000);
  #allowed: Set<string> | undefined;
  #poll: Poll | undefined;
  #listeners = new Set<() => void>();
  /** True while a webhook is set; getUpdates is then refused. */
  webhookActive = false;

  /** Queues an update unless allowed_updates leaves its type out; returns it with its id, or null. */
  push(body: UpdateBody): Update | null {
    const type = Object.keys(body).find((k) => k !== 'update_id') ?? '';
    const allowed = this.#allowed ? this.#allowed.has(type) : !OPT_IN.has(type);
    if (!allowed) return null;
    const update = { update_id: this.#nextId++, ...body } as Update;
    this.#pending.push(update);
    this.#wake();
    for (const listener of this.#listeners) listener();
    return update;
  }

  pending(): Update[] {
    return [...this.#pending];
  }

  /** Removes every update up to `updateId`, as a confirmation or a webhook's 2xx does. */
  confirm(updateId: number): void {
    while (this.#pending.length > 0 && this.#pending[0]!.update_id <= updateId) this.#pending.shift();
  }

  drop(): void {
    this.#pending.length = 0;
  }

  onPush(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Remembers a call's allowed_updates, when it names them. */
  setAllowed(args: Args): void {
    const list = args.json('allowed_updates', "can't parse allowed_updates JSON object");
    if (list === undefined) return;
    if (!Array.isArray(list)) throw badRequest('allowed_updates must be an Array');
    this.#allowed = list.length === 0 ? undefined : new Set(list.map(String));
  }

  allowed(): string[] | undefined {
    return this.#allowed ? [...this.#allowed] : undefined;
  }

  /** getUpdates. `gone` fires when the client hangs up, so a long poll nobody waits for ends. */
  async getUpdates(args: Args, gone: AbortSignal): Promise<Update[]> {
    if (this.webhookActive) {
      throw conflict("can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
    }
    const offset = args.int('offset') ?? 0;
    const limit = Math.min(100, Math.max(1, args.int('limit') ?? 100));
    const timeoutSec = Math.min(MAX_TIMEOUT_SEC, Math.max(0, args.int('timeout') ?? 0));
    this.setAllowed(args);
    if (offset < 0) this.#pending.splice(0, Math.max(0, this.#pending.length + offset));
    else if (offset > 0) this.confirm(offset - 1);
    this.endPoll(conflict('terminated by other getUpdates request; make sure that only one bot instance is running'));

    const ready = this.#take(offset, limit);
    if (ready.length > 0 || timeoutSec === 0) return ready;
    return new Promise<Update[]>((resolve, reject) => {
      const poll: Poll = {
        offset,
        limit,
        finish: (updates) => {
          clearTimeout(poll.timer);
          if (this.#poll === poll) this.#poll = undefined;
          resolve(updates);
        },
        fail: (error) => {
          clearTimeout(poll.timer);
          if (this.#poll === poll) this.#poll = undefined;
          reject(error);
        },
        timer: setTimeout(() => poll.finish([]), timeoutSec * 1000),
      };
      this.#poll = poll;
      gone.addEventListener('abort', () => poll.finish([]), { once: true });
    });
  }

  /** Ends a waiting getUpdates: with 409 when something else took over, empty when the fake closes. */
  endPoll(error?: Error): void {
    const poll = this.#poll;
    if (!poll) return;
    if (error) poll.fail(error);
    else poll.finish([]);
  }

  #take(offset: number, limit: number): Update[] {
    return this.#pending.filter((u) => offset <= 0 || u.update_id >= offset).slice(0, limit);
  }

  #wake(): void {
    const poll = this.#poll;
    if (poll) poll.finish(this.#take(poll.offset, poll.limit));
  }
}
