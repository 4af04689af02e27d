import { DelegateBackoff, handleWhen, retry } from 'cockatiel';
import type { Platform, WorkspaceRef } from '../workspace.js';
import type { Reply } from '../reply/model.js';

/**
 * The one way polbot posts unasked: digests, alert messages, their redraws in place, follow-ups in
 * their threads, and the search for an earlier post after a takeover. Each chat platform's adapter
 * implements it; digests and alerts know only this. Every failure is a DeliveryError that says
 * whether trying again can help and whether the channel itself is out of reach.
 */
export interface Deliverer {
  readonly platform: Platform;
  /** Posts one message; resolves with where it is (the platform's message reference), to redraw or follow it later. */
  post(channelId: string, reply: Reply, workspace?: WorkspaceRef): Promise<string>;
  /** Redraws a posted message in place. */
  update(channelId: string, ref: string, reply: Reply, workspace?: WorkspaceRef): Promise<void>;
  /** A short follow-up in the thread of a posted message. */
  followUp(channelId: string, ref: string, reply: Reply, workspace?: WorkspaceRef): Promise<void>;
  /**
   * Where the bot's recent message carrying `key` is in the channel, or null when there is none.
   * Asked before posting work that was claimed before: its earlier holder may have died, or its
   * post failed, after the platform took the message. Without it that gap can post twice.
   */
  find?(channelId: string, key: string, workspace?: WorkspaceRef): Promise<string | null>;
  /**
   * Whether the bot's reply carrying `key` is in the thread of the posted message `ref`. Asked
   * before posting a reply that was claimed before (an escalation's step): its earlier holder may
   * have died after the platform took it. Without it that gap can post the reply twice.
   */
  findReply?(channelId: string, ref: string, key: string, workspace?: WorkspaceRef): Promise<boolean>;
}

export type DeliveryScope = 'channel' | 'message';

export class DeliveryError extends Error {
  override name = 'DeliveryError';
  /** Retrying will not help. */
  readonly permanent: boolean;
  /** Safe to show in the channel and in `digest list` ("the channel no longer exists"). */
  readonly reason: string;
  /**
   * For permanent errors: `channel` (gone, bot removed, no permission: the digest is marked
   * failing) or `message` (this message was refused, e.g. too large: only this run fails).
   */
  readonly scope: DeliveryScope;
  readonly retryAfterMs?: number;

  constructor(reason: string, opts: { permanent: boolean; scope?: DeliveryScope; retryAfterMs?: number; cause?: unknown }) {
    super(reason, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.reason = reason;
    this.permanent = opts.permanent;
    this.scope = opts.scope ?? 'channel';
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

export interface PostRetryOptions {
  /** Attempts, the first included. */
  attempts: number;
  /** Base of the exponential backoff between attempts (with jitter). */
  backoffMs: number;
  /** Longest single wait, whatever Retry-After says. */
  maxWaitMs: number;
}

export const DEFAULT_POST_RETRY: PostRetryOptions = { attempts: 4, backoffMs: 1_000, maxWaitMs: 30_000 };

/** Anything that is not a DeliveryError (a network error, a bug in an adapter) is transient. */
export function asDeliveryError(err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new DeliveryError(`delivery failed: ${message.slice(0, 200)}`, { permanent: false, cause: err });
}

/** Runs a platform call; a failure is said as a DeliveryError by `explain` (one that already is stays). */
export async function delivering<T>(explain: (err: unknown) => DeliveryError, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw err instanceof DeliveryError ? err : explain(err);
  }
}

/**
 * Posts with retries on transient errors (honouring Retry-After); permanent errors stop at once.
 * A failed attempt may still have landed (a timeout after the platform accepted it), so a retry
 * first asks the deliverer, when it can tell, whether the key is already in the channel.
 */
export async function postWithRetry(
  deliverer: Deliverer,
  channelId: string,
  reply: Reply,
  key: string,
  o: PostRetryOptions = DEFAULT_POST_RETRY,
  workspace?: WorkspaceRef,
): Promise<void> {
  let attempt = 0;
  const once = async () => {
    if (attempt++ > 0 && deliverer.find) {
      let landed: boolean;
      try {
        landed = (await deliverer.find(channelId, key, workspace)) !== null;
      } catch (err) {
        throw new DeliveryError(`could not check for an earlier post (${asDeliveryError(err).reason})`, { permanent: false, cause: err });
      }
      if (landed) return;
    }
    await deliverer.post(channelId, reply, workspace);
  };
  const policy = retry(
    handleWhen((err) => !asDeliveryError(err).permanent),
    {
      maxAttempts: Math.max(0, o.attempts - 1),
      backoff: new DelegateBackoff((ctx) => {
        const err = 'error' in ctx.result ? asDeliveryError(ctx.result.error) : undefined;
        const wait = err?.retryAfterMs ?? o.backoffMs * 2 ** (ctx.attempt - 1) * (0.5 + Math.random());
        return Math.min(o.maxWaitMs, wait);
      }),
    },
  );
  try {
    await policy.execute(once);
  } catch (err) {
    throw asDeliveryError(err);
  }
}

/**
 * Whether `text` (a message as the platform returns it, serialised) carries `key` as a whole: not
 * as the start of a longer word or number, so alert #1's key is not found in alert #12's message.
 * The adapters' channel searches use it for every key an unasked post carries.
 */
export function carriesKey(text: string, key: string): boolean {
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
    if (!/[\p{L}\p{N}]/u.test(text.charAt(at + key.length))) return true;
  }
  return false;
}

/** A deliverer whose adapter starts later than the stores: until it is up, every step fails in a way that is retried. */
export function lateDeliverer(platform: Platform, get: () => Deliverer | null): Deliverer {
  const ready = (): Deliverer => {
    const d = get();
    if (!d) throw new DeliveryError(`${platform} is not connected yet`, { permanent: false });
    return d;
  };
  return {
    platform,
    post: async (channelId, reply, workspace) => ready().post(channelId, reply, workspace),
    update: async (channelId, ref, reply, workspace) => ready().update(channelId, ref, reply, workspace),
    followUp: async (channelId, ref, reply, workspace) => ready().followUp(channelId, ref, reply, workspace),
    // A search that cannot run yet fails, and is retried: "not found" would post a second message.
    find: async (channelId, key, workspace) => {
      const d = ready();
      if (!d.find) throw new DeliveryError(`${platform} cannot search the channel for an earlier post`, { permanent: false });
      return d.find(channelId, key, workspace);
    },
    findReply: async (channelId, ref, key, workspace) => {
      const d = ready();
      if (!d.findReply) throw new DeliveryError(`${platform} cannot search a thread for an earlier reply`, { permanent: false });
      return d.findReply(channelId, ref, key, workspace);
    },
  };
}
