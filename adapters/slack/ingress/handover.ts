/**
 * Hands acknowledged events to the main thread, holding them back while a burst is still arriving.
 *
 * The ingress thread acknowledges on arrival, but on a machine with few cores it still shares the
 * CPU with the main thread. Handing over each command at once let the main thread start on the
 * first commands of a burst (Bolt's middleware, resolving, fetching, drawing) while the rest were
 * still waiting to be acknowledged: in a burst of 500 on two cores that put the last
 * acknowledgements 30–50 ms later, past Slack's budget for them in the benchmark. The answers lose
 * what they gain: their work starts at most one burst's acknowledgement time later.
 *
 * A command that arrives alone is handed over at once. One that arrives within `quietMs` of the
 * previous one is held until arrivals pause for `quietMs`, or the oldest held has waited
 * `maxHoldMs`, so a steady flood still reaches the main thread in regular batches.
 */
export interface HandoverTiming {
  quietMs: number;
  maxHoldMs: number;
}

const HANDOVER_TIMING: HandoverTiming = { quietMs: 5, maxHoldMs: 250 };

export class Handover<T> {
  private held: T[] = [];
  private heldSince = 0;
  private lastArrival = Number.NEGATIVE_INFINITY;
  private closed = false;
  private readonly quiet: NodeJS.Timeout;

  constructor(
    private readonly deliver: (item: T) => void,
    private readonly timing: HandoverTiming = HANDOVER_TIMING,
  ) {
    // One timer, pushed back on each arrival, rather than one per held event.
    this.quiet = setTimeout(() => this.flush(), timing.quietMs);
    this.quiet.unref();
  }

  offer(item: T): void {
    const now = performance.now();
    const inBurst = now - this.lastArrival < this.timing.quietMs;
    this.lastArrival = now;
    if (this.closed || (!inBurst && this.held.length === 0)) return this.deliver(item);
    if (this.held.length === 0) this.heldSince = now;
    this.held.push(item);
    if (now - this.heldSince >= this.timing.maxHoldMs) this.flush();
    else this.quiet.refresh();
  }

  /** Hands over everything held, in arrival order. */
  flush(): void {
    if (this.held.length === 0) return;
    const batch = this.held;
    this.held = [];
    for (const item of batch) this.deliver(item);
  }

  /** Hands over what is held and, from now on, everything at once. */
  close(): void {
    this.closed = true;
    clearTimeout(this.quiet);
    this.flush();
  }
}
