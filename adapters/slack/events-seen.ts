import type { Queryable } from '../../src/db/connection.js';

/** Slack retries an event for up to about an hour; ids are kept long enough to catch its retries and duplicates. */
const KEEP_MS = 15 * 60_000;
/** Forgetting old ids is done now and then, not on every event. */
const PRUNE_EVERY = 200;

/**
 * Event ids (and command trigger ids) already taken, across replicas: a Slack retry
 * (`X-Slack-Retry-Num`), a duplicate delivery or a replayed request reaches whichever replica, and
 * only the first one processes it.
 */
export class SeenEvents {
  private sincePrune = 0;

  constructor(
    private readonly db: Queryable,
    private readonly clock: () => number = Date.now,
  ) {}

  /** True the first time `eventId` is offered (within 15 minutes), false for every repeat. */
  async first(eventId: string): Promise<boolean> {
    const now = this.clock();
    if (++this.sincePrune >= PRUNE_EVERY) {
      this.sincePrune = 0;
      await this.db.query('DELETE FROM slack_events_seen WHERE seen_at < $1', [new Date(now - KEEP_MS).toISOString()]);
    }
    const rows = await this.db.query(
      // A row older than the window is taken over, as if it had been pruned.
      `INSERT INTO slack_events_seen (event_id, seen_at) VALUES ($1, $2)
       ON CONFLICT (event_id) DO UPDATE SET seen_at = EXCLUDED.seen_at WHERE slack_events_seen.seen_at < $3
       RETURNING event_id`,
      [eventId, new Date(now).toISOString(), new Date(now - KEEP_MS).toISOString()],
    );
    return rows.length > 0;
  }
}
