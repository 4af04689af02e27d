import { RATING_SCALE } from '../api/rules.js';
import { LISTED_DOWNGRADE_POINTS, type Condition } from './condition.js';
import type { Reading } from './evaluate.js';

/**
 * In demo mode, `alert test` also moves the simulator across the rule's line, so that a real
 * alert follows within a minute. This says how: the smallest move that makes the condition hold
 * from what was last read. Only the simulator can move; the real upstream never is.
 */
export type DemoMove =
  | { pol: number }
  | { rating: string }
  | { categories: Record<string, number> }
  | { redFlag: string }
  /** One asset the exchange lists, moved to a PoL or up by some points (the simulator picks one it can move). */
  | { listedAsset: { pol: number } | { rise: number } };

export function demoMove(c: Condition, now: Reading): DemoMove {
  const pol = now.pol ?? 0.02;
  switch (c.kind) {
    case 'pol_above':
      return { pol: Math.min(0.95, Math.max(c.threshold * 1.2, c.threshold + 0.005)) };
    case 'pol_rises':
      return { pol: Math.min(0.95, pol + c.by + 0.005) };
    case 'any_change':
      return { pol: Math.min(0.95, pol + 0.01) };
    case 'rating_below':
      return {
        rating: RATING_SCALE[Math.min(RATING_SCALE.length - 1, RATING_SCALE.indexOf(c.rating as (typeof RATING_SCALE)[number]) + 1)]!,
      };
    case 'downgrade': {
      const at = RATING_SCALE.indexOf((now.rating ?? 'BBB') as (typeof RATING_SCALE)[number]);
      return { rating: RATING_SCALE[Math.min(RATING_SCALE.length - 1, Math.max(0, at) + 1)]! };
    }
    case 'category_below':
      return { categories: { [c.category]: Math.max(0, c.score - 10) } };
    case 'new_red_flag':
      return { redFlag: 'Demo: a team wallet moved a large balance to an exchange' };
    case 'listed_above':
      return { listedAsset: { pol: Math.min(0.95, Math.max(c.threshold * 1.2, c.threshold + 0.005)) } };
    case 'listed_downgrade':
      return { listedAsset: { rise: LISTED_DOWNGRADE_POINTS * 2 } };
  }
}
