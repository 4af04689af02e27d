/**
 * Runs a pass, then waits `everyMs`, then runs the next: passes never overlap, however long one
 * takes (a slow delivery holds the next check back rather than doubling up on it). A failed pass is
 * reported and the next still comes. Hand-written rather than a cron library: it is one timer.
 */
export class Ticker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      if (this.stopped) return;
      const pass = this.pass().catch(this.onError);
      this.running = pass;
      await pass;
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.everyMs);
    };
    void loop();
  }

  /** Stops ticking and waits for the pass under way, so a clean shutdown leaves no claim behind. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
