export interface RecordedFile {
  /** Form field name, e.g. `files[0]`. */
  field: string;
  name: string;
  contentType: string;
  bytes: Buffer;
}

export interface RecordedCall {
  method: string;
  /** Path below the versioned API root, e.g. `/channels/123/messages`. */
  path: string;
  /** Templated path, e.g. `/channels/:channelId/messages`; `null` for unknown routes. */
  route: string | null;
  query: Record<string, string>;
  /** Parsed JSON body, or the parsed `payload_json` part of a multipart body. */
  body: unknown;
  files: RecordedFile[];
  headers: Record<string, string>;
  /** Status the fake answered with. */
  status: number;
  at: number;
  /** `http-response`: not a request but the app's HTTP response to an interaction, taken as its initial response. */
  via?: 'http-response';
}

export type CallFilter = ((call: RecordedCall) => boolean) | { method?: string; route?: string; path?: string | RegExp };

function toPredicate(filter: CallFilter | undefined): (call: RecordedCall) => boolean {
  if (filter === undefined) return () => true;
  if (typeof filter === 'function') return filter;
  return (call) =>
    (filter.method === undefined || call.method === filter.method.toUpperCase()) &&
    (filter.route === undefined || call.route === filter.route) &&
    (filter.path === undefined || (typeof filter.path === 'string' ? call.path === filter.path : filter.path.test(call.path)));
}

interface Waiter {
  predicate: (call: RecordedCall) => boolean;
  resolve: (call: RecordedCall) => void;
  reject: (error: Error) => void;
}

export class Recorder {
  #calls: RecordedCall[] = [];
  #raw: string[] = [];
  #waiters = new Set<Waiter>();

  record(call: RecordedCall, raw: string): void {
    this.#calls.push(call);
    this.#raw.push(raw);
    for (const waiter of [...this.#waiters]) {
      if (waiter.predicate(call)) {
        this.#waiters.delete(waiter);
        waiter.resolve(call);
      }
    }
  }

  /** Text of traffic that is not an HTTP request (gateway frames), kept for secret scans. */
  recordRaw(raw: string): void {
    this.#raw.push(raw);
  }

  calls(filter?: CallFilter): RecordedCall[] {
    return this.#calls.filter(toPredicate(filter));
  }

  /**
   * Resolves with the first call (already recorded or future) matching the filter.
   * The timeout error lists what was recorded, because "timed out" alone rarely tells
   * which request the code under test sent instead.
   */
  waitFor(filter: CallFilter, timeoutMs = 5_000): Promise<RecordedCall> {
    const predicate = toPredicate(filter);
    const existing = this.#calls.find(predicate);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (call) => {
          clearTimeout(timer);
          resolve(call);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        const seen = this.#calls.map((c) => `${c.method} ${c.path} -> ${c.status}`).join('\n  ');
        reject(new Error(`no matching Discord API call within ${timeoutMs}ms; recorded:\n  ${seen || '(none)'}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** Every request (request line, headers, body) and every gateway frame the client sent, as text. */
  rawPayloads(): string[] {
    return [...this.#raw];
  }

  clear(): void {
    this.#calls = [];
    this.#raw = [];
  }

  /** Fails pending waits so nothing outlives the fake. */
  dispose(): void {
    for (const waiter of this.#waiters) waiter.reject(new Error('fake Discord closed'));
    this.#waiters.clear();
  }
}
