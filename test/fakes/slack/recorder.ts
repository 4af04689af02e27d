/**
 * One request the fake received. Rejected attempts (rate limits, injected errors)
 * are recorded too, so a test can count retries.
 */
export interface RecordedCall {
  /** Web API method name, or `upload` / `response_url` for the non-API endpoints. */
  method: string;
  args: Record<string, unknown>;
  headers: Record<string, string>;
  at: Date;
  /** HTTP status the fake answered with. */
  status: number;
  /** Body the fake answered with (parsed JSON, or text for non-JSON answers). */
  response: unknown;
  /** The response_url id or the uploaded file id, for the endpoints keyed by one. */
  id?: string;
}

export type CallPredicate = (call: RecordedCall) => boolean;

interface Waiter {
  method: string;
  predicate: CallPredicate | undefined;
  resolve: (call: RecordedCall) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export const DEFAULT_WAIT_MS = 2_000;

export class CallRecorder {
  private readonly log: RecordedCall[] = [];
  private readonly raw: string[] = [];
  private readonly waiters = new Set<Waiter>();

  record(call: RecordedCall): void {
    this.log.push(call);
    for (const waiter of [...this.waiters]) {
      // A throwing predicate is a bug in the test; surface it there rather than
      // crashing the request handler that is recording the call.
      let hit: boolean;
      try {
        hit = matches(call, waiter.method, waiter.predicate);
      } catch (error) {
        clearTimeout(waiter.timer);
        this.waiters.delete(waiter);
        waiter.reject(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (hit) this.settle(waiter, call);
    }
  }

  recordRaw(text: string): void {
    this.raw.push(text);
  }

  calls(method?: string): RecordedCall[] {
    return method === undefined ? [...this.log] : this.log.filter((c) => c.method === method);
  }

  rawPayloads(): string[] {
    return [...this.raw];
  }

  /**
   * Resolves with the first recorded call that matches, including calls that
   * arrived before waitFor was called: tests race the code under test, and a
   * call that won the race must still count.
   */
  waitFor(method: string, predicate?: CallPredicate, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedCall> {
    const seen = this.log.find((c) => matches(c, method, predicate));
    if (seen) return Promise.resolve(seen);
    return new Promise<RecordedCall>((resolve, reject) => {
      const waiter: Waiter = {
        method,
        predicate,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new Error(this.describeTimeout(method, predicate, timeoutMs)));
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  clear(): void {
    this.log.length = 0;
    this.raw.length = 0;
  }

  rejectAll(reason: string): void {
    for (const waiter of [...this.waiters]) {
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.reject(new Error(reason));
    }
  }

  private settle(waiter: Waiter, call: RecordedCall): void {
    clearTimeout(waiter.timer);
    this.waiters.delete(waiter);
    waiter.resolve(call);
  }

  private describeTimeout(method: string, predicate: CallPredicate | undefined, timeoutMs: number): string {
    const sameMethod = this.log.filter((c) => c.method === method).length;
    const seen = this.log.map((c) => `${c.method}(${c.status})`).join(', ') || 'none';
    const filter = predicate ? ` matching the predicate (${sameMethod} ${method} call(s) did not match)` : '';
    return `fake Slack: no ${method} call${filter} within ${timeoutMs}ms; calls seen: ${seen}`;
  }
}

function matches(call: RecordedCall, method: string, predicate: CallPredicate | undefined): boolean {
  return call.method === method && (predicate === undefined || predicate(call));
}
