import { DelegateBackoff, handleWhen, retry } from 'cockatiel';
import { UpstreamError } from './errors.js';

export interface RetryOptions {
  /** Overall deadline: attempts and the waits between them all fit inside it. */
  timeoutMs: number;
  /** Attempts, the first included. */
  maxAttempts: number;
  /** Base of the exponential backoff (with jitter) between attempts. */
  backoffMs: number;
  route: string;
  /** Called before each retry, e.g. to drop a broken connection. */
  onRetry?: (err: UpstreamError) => void;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Idempotent failures only: network-level errors, 502/503/504, and 429. */
export function isRetryable(err: UpstreamError): boolean {
  if (err.status !== undefined) return RETRYABLE_STATUS.has(err.status);
  return err.kind === 'unavailable' || err.kind === 'timeout';
}

/**
 * Runs `fn` with retries for idempotent failures, honouring Retry-After, inside one deadline.
 * A retry only happens when its wait still fits; otherwise the last error stands.
 */
export async function withRetries<T>(fn: (signal: AbortSignal) => Promise<T>, o: RetryOptions): Promise<T> {
  const deadline = Date.now() + o.timeoutMs;
  const signal = AbortSignal.timeout(o.timeoutMs);
  const policy = retry(
    handleWhen((err) => {
      if (!(err instanceof UpstreamError) || !isRetryable(err)) return false;
      return Date.now() + (err.retryAfterMs ?? o.backoffMs) < deadline - 50;
    }),
    {
      maxAttempts: Math.max(0, o.maxAttempts - 1),
      backoff: new DelegateBackoff((ctx) => {
        const err = 'error' in ctx.result ? ctx.result.error : undefined;
        if (err instanceof UpstreamError) o.onRetry?.(err);
        if (err instanceof UpstreamError && err.retryAfterMs !== undefined) return err.retryAfterMs;
        return o.backoffMs * 2 ** (ctx.attempt - 1) * (0.5 + Math.random());
      }),
    },
  );
  try {
    return await policy.execute(() => fn(signal), signal);
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    if (signal.aborted) throw new UpstreamError('timeout', o.route, { detail: `deadline of ${o.timeoutMs} ms exceeded` });
    throw new UpstreamError('unavailable', o.route, { detail: String((err as Error)?.message ?? err) });
  }
}
