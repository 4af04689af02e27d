import type { EntityRef } from '../api/domain.js';
import { formatSlot, nextSlot } from './schedule.js';
import type { Digest } from './store.js';

/**
 * How a watchlist and a digest's next post read in a list (a command's answer, an adapter's overview),
 * so that every place that lists digests and alert rules says the same.
 */

/** The first few names and how many more. */
export function namesSummary(entities: readonly EntityRef[], shown = 3): string {
  const names = entities.map((e) => e.name);
  return names.length <= shown ? names.join(', ') : `${names.slice(0, shown).join(', ')} +${names.length - shown} more`;
}

/** When the digest posts next, in its own time zone; its state instead when it is not active. */
export function nextRunText(d: Digest, now: number): string {
  if (d.state !== 'active') return d.state;
  const next = nextSlot(d.cron, d.timezone, now);
  return next === null ? 'none' : formatSlot(next, d.timezone, { weekday: true });
}
