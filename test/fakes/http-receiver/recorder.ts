/** One request a receiver got, answered or refused; faults and refusals are recorded too, so a test can count retries. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body as text; empty when it was over the size limit (see `bytes`). */
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  bytes: number;
  /**
   * What the receiver answered; for a hang, what it answered once the hang ended; 0 for a held
   * request lost on its way (`lose: 'request'`), which the receiver never acted on.
   */
  status: number;
  response: unknown;
  fault?: 'rate-limit' | 'failure' | 'hang' | 'hold';
  /** The client closed the connection before the answer (it timed out, for instance). */
  abandoned: boolean;
  at: Date;
}

export type RequestFilter = ((call: RecordedRequest) => boolean) | { status?: number; method?: string; path?: string };

interface Waiter<T> {
  predicate: (call: T) => boolean;
  resolve: (call: T) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

function toPredicate(filter: RequestFilter | undefined): (call: RecordedRequest) => boolean {
  if (filter === undefined) return () => true;
  if (typeof filter === 'function') return filter;
  return (call) =>
    (filter.status === undefined || call.status === filter.status) &&
    (filter.method === undefined || call.method === filter.method.toUpperCase()) &&
    (filter.path === undefined || call.path === filter.path);
}

/**
 * What a fake was asked, in order, and a wait for what it has not been asked yet. `describe`
 * writes one line a call for the error of a wait that timed out.
 */
export class CallLog<T> {
  readonly #name: string;
  readonly #describe: (call: T) => string;
  readonly #calls: T[] = [];
  readonly #waiters = new Set<Waiter<T>>();

  constructor(name: string, describe: (call: T) => string) {
    this.#name = name;
    this.#describe = describe;
  }

  record(call: T): void {
    this.#calls.push(call);
    for (const waiter of [...this.#waiters]) {
      let hit: boolean;
      try {
        hit = waiter.predicate(call);
      } catch (error) {
        // A throwing predicate is the test's bug: fail its wait, not the request being recorded.
        this.#settle(waiter);
        waiter.reject(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (hit) {
        this.#settle(waiter);
        waiter.resolve(call);
      }
    }
  }

  calls(predicate: (call: T) => boolean = () => true): T[] {
    return this.#calls.filter(predicate);
  }

  /**
   * The first matching call, already recorded or still to come: the code under test races
   * the test, and a call that won the race still counts. On timeout the error lists what was
   * received, since "timed out" alone rarely says what was sent instead.
   */
  waitFor(predicate: (call: T) => boolean, timeoutMs = 5_000): Promise<T> {
    const seen = this.#calls.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter<T> = {
        predicate,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          const seen = this.#calls.map(this.#describe).join('\n  ');
          reject(new Error(`${this.#name}: no matching request within ${timeoutMs} ms; received:\n  ${seen || '(none)'}`));
        }, timeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  clear(): void {
    this.#calls.length = 0;
  }

  /** Fails pending waits, so none outlives the fake. */
  dispose(): void {
    for (const waiter of [...this.#waiters]) {
      this.#settle(waiter);
      waiter.reject(new Error(`${this.#name} closed while a waitFor was pending`));
    }
  }

  #settle(waiter: Waiter<T>): void {
    clearTimeout(waiter.timer);
    this.#waiters.delete(waiter);
  }
}

export class RequestLog extends CallLog<RecordedRequest> {
  constructor(name: string) {
    super(name, (c) => `${c.method} ${c.path} -> ${c.status}${c.fault ? ` (${c.fault})` : ''}`);
  }

  override calls(filter?: RequestFilter): RecordedRequest[] {
    return super.calls(toPredicate(filter));
  }

  override waitFor(filter: RequestFilter, timeoutMs?: number): Promise<RecordedRequest> {
    return super.waitFor(toPredicate(filter), timeoutMs);
  }
}
