import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../src/alerts/condition.js';
import { quieter } from '../../../src/alerts/quality.js';

/** What `alert stats` suggests for a noisy rule, by its condition. */

const DEFAULT_COOLDOWN = 1800;
const rule = (condition: Condition, cooldownSec = DEFAULT_COOLDOWN) => ({ condition, cooldownSec });

describe('a quieter rule', () => {
  it('raises a PoL line by half, to a tenth of a point, and pauses a line that cannot go higher', () => {
    expect(quieter(rule({ kind: 'pol_above', threshold: 0.05 }), DEFAULT_COOLDOWN)).toEqual({ kind: 'line', threshold: 0.075 });
    expect(quieter(rule({ kind: 'pol_above', threshold: 0.09 }), DEFAULT_COOLDOWN)).toEqual({ kind: 'line', threshold: 0.135 });
    expect(quieter(rule({ kind: 'pol_above', threshold: 0.025 }), DEFAULT_COOLDOWN)).toEqual({ kind: 'line', threshold: 0.038 });
    expect(quieter(rule({ kind: 'pol_above', threshold: 0.7 }), DEFAULT_COOLDOWN)).toEqual({ kind: 'pause' });
  });

  it('doubles the cooldown of a change rule, to one that can be typed', () => {
    const rises: Condition = { kind: 'pol_rises', by: 0.02, windowSec: 86_400 };
    expect(quieter(rule(rises, 900), DEFAULT_COOLDOWN)).toEqual({ kind: 'cooldown', cooldown: '30m' });
    expect(quieter(rule({ kind: 'downgrade' }, 1800), DEFAULT_COOLDOWN)).toEqual({ kind: 'cooldown', cooldown: '1h' });
    expect(quieter(rule({ kind: 'any_change' }, 3600), DEFAULT_COOLDOWN)).toEqual({ kind: 'cooldown', cooldown: '2h' });
    expect(quieter(rule({ kind: 'downgrade' }, 6 * 3600), DEFAULT_COOLDOWN)).toEqual({ kind: 'cooldown', cooldown: '12h' });
    expect(quieter(rule({ kind: 'downgrade' }, 86_400), DEFAULT_COOLDOWN)).toEqual({ kind: 'cooldown', cooldown: '48h' });
    // No cooldown at all: the default, since twice nothing is nothing.
    expect(quieter(rule({ kind: 'downgrade' }, 0), DEFAULT_COOLDOWN)).toEqual({ kind: 'cooldown', cooldown: '30m' });
    // Two hours doubles to four, which is not offered: the next one that is.
    expect(quieter(rule({ kind: 'downgrade' }, 7200), DEFAULT_COOLDOWN)).toEqual({ kind: 'cooldown', cooldown: '6h' });
    expect(quieter(rule({ kind: 'downgrade' }, 172_800), DEFAULT_COOLDOWN)).toEqual({ kind: 'pause' });
  });

  it('pauses any other rule', () => {
    for (const condition of [
      { kind: 'rating_below', rating: 'BBB' },
      { kind: 'new_red_flag' },
      { kind: 'category_below', category: 'security', score: 60 },
    ] as Condition[])
      expect(quieter(rule(condition), DEFAULT_COOLDOWN), condition.kind).toEqual({ kind: 'pause' });
  });
});
