import type { ListedPols } from './listed.js';

/**
 * polbot's own readings of the assets each exchange lists, kept so that `exposure` can say what
 * got worse over a window (the upstream keeps no history of them). Compact by design: one reading
 * is one exchange's whole list (each asset's PoL by id), and of each day only the first and the
 * latest are kept, for 90 days. Every look at an exchange's exposure and every alert check that
 * reads its listed assets records one.
 */

export interface ListedReading {
  /** Epoch ms. */
  at: number;
  pols: ListedPols;
}

export interface EarliestReading {
  /** The earliest reading in the window asked about, or null when none falls in it. */
  reading: ListedReading | null;
  /** When the exchange's readings start (the oldest kept), or null when there are none. */
  firstAt: number | null;
}

export interface ListedReadings {
  /**
   * Where readings live: the database (kept across restarts and shared by replicas), or this
   * process alone (the console and `polbot ask`, which open no database).
   */
  readonly kept: 'database' | 'process';
  /** Records what a read saw at `at`; readings older than 90 days are dropped on the way. */
  record(exchange: string, at: number, pols: ListedPols): Promise<void>;
  /** The exchange's earliest reading from `from` on and before `before`, and when its readings start. */
  earliest(exchange: string, from: number, before: number): Promise<EarliestReading>;
}

const DAY = 86_400_000;
export const KEEP_MS = 90 * DAY;

/** The UTC day a time falls in, as the epoch ms of its midnight. */
export const dayOf = (t: number): number => Math.floor(t / DAY) * DAY;

const samePols = (a: ListedPols, b: ListedPols): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
};

/**
 * What a new reading does to the readings already kept of its day (oldest first): the day's first
 * stays as it is; a second is added; past that, the day's latest is replaced. A reading the same as
 * the day's only one adds nothing, and one older than the day's latest (a slow replica) is dropped.
 */
export function placement(day: readonly ListedReading[], at: number, pols: ListedPols): 'add' | 'replace' | 'skip' {
  const latest = day.at(-1);
  if (!latest) return 'add';
  if (at < latest.at) return 'skip';
  if (day.length === 1) return samePols(latest.pols, pols) ? 'skip' : 'add';
  return 'replace';
}
