import { DelegateBackoff, handleWhen, retry } from 'cockatiel';
import type { WorkspaceRef } from '../workspace.js';
import type { Reply } from '../reply/model.js';

/**
 * How a digest reaches a channel. The Slack and Discord adapters implement it; the scheduler only
 * knows this interface. `key` names the run and part ("digest #12 · 2026-11-22 09:00 Europe/Berlin
 * (GMT+1)"); it is already in the reply's footer notes, so it is visible in the posted message.
 */
export interface Deliverer {
  readonly platform: 'slack' | 'discord';
  /** Posts one message. Throws DeliveryError; anything else counts as a transient failure. */
  post(channelId: string, reply: Reply, key: string, workspace?: WorkspaceRef): Promise<void>;
  /**
   * Whether a message carrying `key` is already in the channel (e.g. the bot's recent messages).
   * Asked only when taking over a run whose previous holder died mid-delivery: it closes the gap
   * between "the platform accepted the post" and "the database recorded it". Without it, that gap
   * can produce a duplicate after a crash.
   */
  alreadyDelivered?(channelId: string, key: string, workspace?: WorkspaceRef): Promise<boolean>;
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
    if (attempt++ > 0 && deliverer.alreadyDelivered) {
      let landed: boolean;
      try {
        landed = await deliverer.alreadyDelivered(channelId, key, workspace);
      } catch (err) {
        throw new DeliveryError(`could not check for an earlier post (${asDeliveryError(err).reason})`, { permanent: false, cause: err });
      }
      if (landed) return;
    }
    await deliverer.post(channelId, reply, key, workspace);
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
