import type { Condition } from './condition.js';
import { COOLDOWN_CHOICES, durationSec } from './duration.js';
import type { AlertRule } from './store.js';

/**
 * How `alert stats` judges a rule: noisy when it opened at least `incidents` alerts in the window
 * and at least `share` of them were resolved as noise. Fewer alerts say too little to act on.
 */
export const NOISY = { incidents: 5, share: 0.5 } as const;

/** What would make a noisy rule quieter. */
export type Suggestion =
  /** A level rule: the same names at a higher line. */
  | { kind: 'line'; threshold: number }
  /** A change rule: the same condition, longer quiet after each alert (a cooldown as typed: `1h`). */
  | { kind: 'cooldown'; cooldown: string }
  /** Anything else, or nothing higher or longer to offer: pause it. */
  | { kind: 'pause' };

/** Conditions that fire on a move rather than a level: a longer cooldown thins them out. */
const CHANGES: ReadonlySet<Condition['kind']> = new Set(['pol_rises', 'downgrade', 'any_change', 'listed_downgrade']);

export function quieter(rule: Pick<AlertRule, 'condition' | 'cooldownSec'>, defaultCooldownSec: number): Suggestion {
  const c = rule.condition;
  if (c.kind === 'pol_above') {
    // Half as high again, to a tenth of a percentage point; a line at 100% would never be crossed.
    const threshold = Math.round(c.threshold * 1.5 * 1000) / 1000;
    return threshold > c.threshold && threshold < 1 ? { kind: 'line', threshold } : { kind: 'pause' };
  }
  if (CHANGES.has(c.kind)) {
    // Twice the cooldown, or the next one that can be typed; no cooldown at all becomes the default.
    const wanted = rule.cooldownSec > 0 ? rule.cooldownSec * 2 : defaultCooldownSec;
    const offered = COOLDOWN_CHOICES.find((v) => (durationSec(v) ?? 0) >= wanted);
    return offered !== undefined ? { kind: 'cooldown', cooldown: offered } : { kind: 'pause' };
  }
  return { kind: 'pause' };
}
