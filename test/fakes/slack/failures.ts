/** Slack answers most API errors with HTTP 200 and `ok:false`; `status` exists for the rest. */
export interface FailOptions {
  error: string;
  /** How many consecutive calls fail; defaults to 1. */
  times?: number;
  /** HTTP status; defaults to 200 as on the real Web API. */
  status?: number;
}

export interface RateLimitOptions {
  /**
   * Sent as the Retry-After header. @slack/web-api parses it with parseInt, so
   * fractions are truncated and 0 means an immediate retry.
   */
  retryAfterSec: number;
  times?: number;
}

export interface PlannedFailure {
  status: number;
  body: { ok: false; error: string };
  headers: Record<string, string>;
}

interface Queued {
  failure: PlannedFailure;
  remaining: number;
}

/**
 * Failures a test schedules ahead of the call that should hit them. Rate limits
 * are consulted before errors because real Slack throttles before it looks at
 * the arguments.
 */
export class FailurePlan {
  private readonly rateLimits = new Map<string, Queued[]>();
  private readonly errors = new Map<string, Queued[]>();
  private readonly channels = new Map<string, string>();

  failNext(method: string, options: FailOptions): void {
    enqueue(this.errors, method, {
      failure: { status: options.status ?? 200, body: { ok: false, error: options.error }, headers: {} },
      remaining: positive(options.times),
    });
  }

  rateLimitNext(method: string, options: RateLimitOptions): void {
    if (!Number.isFinite(options.retryAfterSec) || options.retryAfterSec < 0) {
      throw new RangeError(`retryAfterSec must be a non-negative number, got ${options.retryAfterSec}`);
    }
    enqueue(this.rateLimits, method, {
      failure: {
        status: 429,
        body: { ok: false, error: 'ratelimited' },
        headers: { 'retry-after': String(options.retryAfterSec) },
      },
      remaining: positive(options.times),
    });
  }

  /** Every call aimed at the channel fails until the channel is restored; `null` restores it. */
  failChannel(channelId: string, error: string | null): void {
    if (error === null) this.channels.delete(channelId);
    else this.channels.set(channelId, error);
  }

  channelError(channelId: unknown): string | undefined {
    return typeof channelId === 'string' ? this.channels.get(channelId) : undefined;
  }

  /** Consumes and returns the next scheduled failure for the method, if any. */
  take(method: string): PlannedFailure | undefined {
    return consume(this.rateLimits, method) ?? consume(this.errors, method);
  }

  clear(): void {
    this.rateLimits.clear();
    this.errors.clear();
    this.channels.clear();
  }
}

function positive(times: number | undefined): number {
  const n = times ?? 1;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`times must be a positive integer, got ${n}`);
  return n;
}

function enqueue(queues: Map<string, Queued[]>, method: string, entry: Queued): void {
  const queue = queues.get(method) ?? [];
  queue.push(entry);
  queues.set(method, queue);
}

function consume(queues: Map<string, Queued[]>, method: string): PlannedFailure | undefined {
  const queue = queues.get(method);
  const head = queue?.[0];
  if (!queue || !head) return undefined;
  head.remaining -= 1;
  if (head.remaining === 0) queue.shift();
  return head.failure;
}
