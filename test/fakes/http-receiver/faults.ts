/**
 * Faults a test schedules for the next requests a receiver gets, in the order they were asked
 * for: `rateLimitNext({ times: 2 })` then `failNext({ status: 503 })` answers 429, 429, 503, and
 * the fourth request is handled. Any request counts, valid or not, as a loaded server answers
 * before it reads what it was sent.
 */
export interface RateLimitOptions {
  times?: number;
  /** Sent as `Retry-After`; omitted, the 429 carries no Retry-After at all. */
  retryAfterSec?: number;
}

export interface FailOptions {
  /** A 5xx status. */
  status: number;
  times?: number;
}

export interface HangOptions {
  /** How long the request is held before it is handled as usual; a client that gave up by then is recorded as `abandoned`. */
  ms: number;
  times?: number;
}

export interface HoldOptions {
  /**
   * What a held request comes to when its client goes away (it was killed, or gave up): `response`,
   * the receiver acts on it and only the answer is lost; `request`, it never reaches the receiver
   * and nothing is done with it. A request the test releases is handled and answered as usual.
   */
  lose: 'request' | 'response';
  times?: number;
}

export type Fault =
  | { kind: 'rate-limit'; retryAfterSec?: number }
  | { kind: 'failure'; status: number }
  | { kind: 'hang'; ms: number }
  | { kind: 'hold'; lose: HoldOptions['lose'] };

interface Queued {
  fault: Fault;
  remaining: number;
}

export class FaultPlan {
  readonly #queue: Queued[] = [];

  rateLimitNext(options: RateLimitOptions = {}): void {
    const { retryAfterSec } = options;
    if (retryAfterSec !== undefined && (!Number.isInteger(retryAfterSec) || retryAfterSec < 0)) {
      throw new RangeError(`retryAfterSec must be a whole number of seconds >= 0, got ${retryAfterSec}`);
    }
    this.#queue.push({
      fault: retryAfterSec === undefined ? { kind: 'rate-limit' } : { kind: 'rate-limit', retryAfterSec },
      remaining: times(options.times),
    });
  }

  failNext(options: FailOptions): void {
    if (!Number.isInteger(options.status) || options.status < 500 || options.status > 599) {
      throw new RangeError(`status must be a 5xx, got ${options.status}`);
    }
    this.#queue.push({ fault: { kind: 'failure', status: options.status }, remaining: times(options.times) });
  }

  hangNext(options: HangOptions): void {
    if (!Number.isFinite(options.ms) || options.ms < 0) throw new RangeError(`ms must be >= 0, got ${options.ms}`);
    this.#queue.push({ fault: { kind: 'hang', ms: options.ms }, remaining: times(options.times) });
  }

  holdNext(options: HoldOptions): void {
    if (options.lose !== 'request' && options.lose !== 'response')
      throw new RangeError(`lose must be 'request' or 'response', got ${options.lose}`);
    this.#queue.push({ fault: { kind: 'hold', lose: options.lose }, remaining: times(options.times) });
  }

  take(): Fault | undefined {
    const head = this.#queue[0];
    if (!head) return undefined;
    head.remaining -= 1;
    if (head.remaining === 0) this.#queue.shift();
    return head.fault;
  }

  clear(): void {
    this.#queue.length = 0;
  }
}

function times(value: number | undefined): number {
  const n = value ?? 1;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`times must be a positive integer, got ${n}`);
  return n;
}
