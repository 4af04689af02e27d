import { ratingRank as rank } from '../api/rules.js';
import { atOrAbove, type ListedNow, polsOf, risen } from '../exposure/listed.js';
import { LISTED_DOWNGRADE_POINTS, percentText, type Condition } from './condition.js';

/**
 * Whether a condition holds, judged from what checks have seen of one entity: the reading now,
 * the one before it (as stored, so a restart compares with what was last seen, not with nothing)
 * and, for a rise within a window, the readings inside that window. A value the upstream sent
 * unreadable (null here) neither fires an alert nor clears one: the verdict is "cannot tell".
 */

export interface Reading {
  /** Unix seconds. */
  at: number;
  /** Probability of loss, 0..1; null when unavailable or unreadable. */
  pol: number | null;
  rating: string | null;
  /** Red flags as shown; null when they could not be read (an empty list means none). */
  flags: string[] | null;
  /** Category quality scores, 0..100; null when they could not be read. */
  categories: Record<string, number> | null;
  /**
   * An exchange's listed assets, each with its PoL, for conditions on them; null when they could
   * not be read, absent when no condition needs them (and in readings stored before they were read).
   */
  listed?: ListedNow | null;
}

export interface Verdict {
  /** True or false, or null when the reading cannot tell (a value missing or unreadable). */
  holds: boolean | null;
  /** The value that matters, before and now, in the words the alert shows; with its direction. */
  change?: { from: string | null; to: string; trend: 'worse' | 'better' | 'flat' };
  /** The red flags that are new, for `new red flag` and `any change`. */
  newFlags?: string[];
  /**
   * For conditions on listed assets: how many are concerned, and the first few of them, worst
   * first, in words (`Pepe (PEPE) 35.0% → 65.0%`), with `+N more` for the rest.
   */
  listed?: { count: number; assets: string[] };
}

/** How many listed assets a verdict names before `+N more`. */
const LISTED_NAMED = 5;

function listedWords(lines: readonly string[]): NonNullable<Verdict['listed']> {
  const named = lines.slice(0, LISTED_NAMED);
  return { count: lines.length, assets: lines.length > named.length ? [...named, `+${lines.length - named.length} more`] : named };
}

const highest = (listed: ListedNow | null | undefined): number | null =>
  listed ? Object.values(listed).reduce<number | null>((max, a) => (max === null || a.pol > max ? a.pol : max), null) : null;

/** Level conditions stay true while the value is past the line, and clear by themselves when it is not. */
export const isLevel = (c: Condition): boolean =>
  c.kind === 'pol_above' || c.kind === 'rating_below' || c.kind === 'category_below' || c.kind === 'listed_above';

const trendOf = (from: number | undefined | null, to: number, worseWhenHigher: boolean): 'worse' | 'better' | 'flat' =>
  from === undefined || from === null || from === to ? 'flat' : to > from === worseWhenHigher ? 'worse' : 'better';

function polChange(previous: Reading | undefined, now: Reading): Verdict['change'] {
  if (now.pol === null) return undefined;
  const from = previous?.pol ?? null;
  return { from: from === null ? null : percentText(from), to: percentText(now.pol), trend: trendOf(from, now.pol, true) };
}

function newFlags(previous: Reading | undefined, now: Reading): string[] | null {
  if (!previous || previous.flags === null || now.flags === null) return null;
  const before = new Set(previous.flags);
  return now.flags.filter((f) => !before.has(f));
}

export function evaluate(c: Condition, previous: Reading | undefined, now: Reading, history: readonly Reading[] = []): Verdict {
  switch (c.kind) {
    case 'pol_above': {
      if (now.pol === null) return { holds: null };
      return { holds: now.pol >= c.threshold, change: polChange(previous, now) };
    }
    case 'pol_rises': {
      if (now.pol === null) return { holds: null };
      const since = now.at - c.windowSec;
      const inWindow = [...history, ...(previous ? [previous] : [])].filter((r) => r.at >= since && r.at < now.at && r.pol !== null);
      if (!inWindow.length) return { holds: null };
      const low = inWindow.reduce((a, b) => (b.pol! < a.pol! ? b : a));
      return {
        holds: now.pol - low.pol! >= c.by - 1e-12,
        change: { from: percentText(low.pol!), to: percentText(now.pol), trend: trendOf(low.pol, now.pol, true) },
      };
    }
    case 'rating_below': {
      const r = rank(now.rating);
      if (r === undefined) return { holds: null };
      const from = rank(previous?.rating);
      return { holds: r > rank(c.rating)!, change: { from: previous?.rating ?? null, to: now.rating!, trend: trendOf(from, r, true) } };
    }
    case 'downgrade': {
      const [before, after] = [rank(previous?.rating), rank(now.rating)];
      if (before === undefined || after === undefined) return { holds: null };
      return { holds: after > before, change: { from: previous!.rating, to: now.rating!, trend: trendOf(before, after, true) } };
    }
    case 'new_red_flag': {
      const added = newFlags(previous, now);
      if (added === null) return { holds: null };
      return { holds: added.length > 0, newFlags: added };
    }
    case 'category_below': {
      const score = now.categories?.[c.category];
      if (score === undefined) return { holds: null };
      const from = previous?.categories?.[c.category];
      return {
        holds: score < c.score,
        change: { from: from === undefined ? null : from.toFixed(1), to: score.toFixed(1), trend: trendOf(from, score, false) },
      };
    }
    case 'any_change': {
      if (!previous) return { holds: null };
      const added = newFlags(previous, now) ?? [];
      const removed = previous.flags && now.flags ? previous.flags.filter((f) => !now.flags!.includes(f)) : [];
      const polMoved = previous.pol !== null && now.pol !== null && Math.abs(now.pol - previous.pol) >= 0.00005;
      const ratingMoved = previous.rating !== null && now.rating !== null && previous.rating !== now.rating;
      return {
        holds: polMoved || ratingMoved || added.length > 0 || removed.length > 0,
        change: polChange(previous, now),
        newFlags: added,
      };
    }
    case 'listed_above': {
      if (!now.listed) return { holds: null };
      const above = atOrAbove(now.listed, c.threshold);
      const top = highest(now.listed);
      const before = highest(previous?.listed);
      return {
        holds: above.length > 0,
        ...(top !== null
          ? { change: { from: before === null ? null : percentText(before), to: percentText(top), trend: trendOf(before, top, true) } }
          : {}),
        listed: listedWords(above.map((a) => `${a.name} ${percentText(a.pol)}`)),
      };
    }
    case 'listed_downgrade': {
      if (!now.listed || !previous?.listed) return { holds: null };
      const up = risen(now.listed, polsOf(previous.listed), LISTED_DOWNGRADE_POINTS);
      const worst = up[0];
      return {
        holds: up.length > 0,
        ...(worst ? { change: { from: percentText(worst.from), to: percentText(worst.to), trend: 'worse' as const } } : {}),
        listed: listedWords(up.map((r) => `${r.name} ${percentText(r.from)} → ${percentText(r.to)}`)),
      };
    }
  }
}

/**
 * How bad a reading is on a condition's measure, on one scale where more is worse (PoL itself, a
 * rating's rank, a score turned round), so an incident can keep the worst value it saw since it
 * opened. Null where the measure has no single value (red flags) or the reading cannot tell.
 */
export function badnessOf(c: Condition, r: Reading): number | null {
  switch (c.kind) {
    case 'pol_above':
    case 'pol_rises':
    case 'any_change':
      return r.pol;
    case 'rating_below':
    case 'downgrade':
      return rank(r.rating) ?? null;
    case 'category_below': {
      const score = r.categories?.[c.category];
      return score === undefined ? null : -score;
    }
    case 'new_red_flag':
      return null;
    case 'listed_above':
      return highest(r.listed);
    case 'listed_downgrade':
      // The incident's value is the PoL its worst-risen asset reached; a reading alone cannot say which that is.
      return null;
  }
}
