import { describe, expect, it } from 'vitest';
import { conditionSuggestions, describeCondition, parseCondition, type Condition } from '../../../src/alerts/condition.js';
import { evaluate, isLevel, type Reading } from '../../../src/alerts/evaluate.js';

/** Alert conditions as people write them, said back in plain words, and judged from stored readings. */

const read = (text: string, kinds: ('project' | 'exchange')[] = ['project']) => parseCondition(text, kinds);
const ok = (text: string, kinds?: ('project' | 'exchange')[]): Condition => {
  const r = read(text, kinds);
  if (!r.ok) throw new Error(r.message);
  return r.condition;
};
const refused = (text: string, kinds?: ('project' | 'exchange')[]): string => {
  const r = read(text, kinds);
  if (r.ok) throw new Error(`accepted ${text}`);
  return r.message;
};

describe('alert conditions', () => {
  it('reads every form and says it back, PoL in percent with its direction', () => {
    expect(ok('pol above 5%')).toEqual({ kind: 'pol_above', threshold: 0.05 });
    expect(ok('PoL above 0.05')).toEqual({ kind: 'pol_above', threshold: 0.05 });
    expect(describeCondition(ok('pol over 12.5%'))).toBe('PoL at or above 12.5% (lower is safer)');
    expect(describeCondition(ok('pol above 0.004'))).toBe('PoL at or above 0.40% (lower is safer)');
    expect(ok('pol rises by 2pp in 7d')).toEqual({ kind: 'pol_rises', by: 0.02, windowSec: 7 * 86_400 });
    expect(describeCondition(ok('pol rises by 2 pp'))).toBe('PoL up by 2.0 percentage points or more within 1 day');
    expect(describeCondition(ok('pol rises by 1.5% within 2w'))).toBe('PoL up by 1.5 percentage points or more within 2 weeks');
    expect(describeCondition(ok('rating below A'))).toBe('rating below A (BBB or worse)');
    expect(describeCondition(ok('downgrade'))).toBe('any rating downgrade');
    expect(describeCondition(ok('new red flag'))).toBe('a new red flag');
    expect(describeCondition(ok('security below 60', ['project', 'exchange']))).toBe('Security quality score below 60 (higher is better)');
    expect(describeCondition(ok('solvency score below 70', ['exchange']))).toBe('Solvency quality score below 70 (higher is better)');
    expect(describeCondition(ok('any change'))).toBe('any change in PoL, rating or red flags');
  });

  it('refuses a threshold outside its domain, a number that could mean two things, and what it does not know, with the grammar', () => {
    expect(refused('new red flag', ['project', 'exchange'])).toMatch(/^Red flags are published for projects only/);
    expect(refused('red flags', ['exchange'])).toMatch(/projects only/);
    expect(refused('pol above 150%')).toContain('A PoL level is between 0% and 100%, not 150%.');
    expect(refused('pol above 5')).toContain(
      'Write a PoL level as a percent (5%) or as a probability between 0 and 1 (such as 0.05), not 5.',
    );
    expect(refused('pol above 1')).toContain('not 1.');
    expect(refused('rating below Z')).toContain("'z' is not a rating: ratings run AAA, AA, A, BBB, BB, B, CCC, CC, C, D.");
    expect(refused('rating below D')).toContain('Nothing is rated below D.');
    expect(refused('security below 200')).toContain('A quality score runs from 0 to 100 (higher is better), not 200.');
    expect(refused('financial below 50', ['exchange'])).toContain(
      "'financial' is not a category of an exchange: security, transparency, solvency.",
    );
    expect(refused('financial below 50', ['project', 'exchange'])).toContain('both projects and exchanges: security');
    expect(refused('pol rises by 2pp in 90d')).toContain('A window is from 1 hour to 30 days.');
    expect(refused('when the moon is full')).toMatch(
      /is not a condition I know\. Conditions: pol above 5% · .* · any change · a listed asset is downgraded · a listed asset above 20%\.$/,
    );
  });

  it("reads conditions on an exchange's listed assets, says what a downgrade of one means, and refuses them on a project", () => {
    for (const text of ['a listed asset is downgraded', 'listed assets downgraded', 'any listed asset gets downgraded', 'listed downgrade'])
      expect(ok(text, ['exchange']), text).toEqual({ kind: 'listed_downgrade' });
    expect(ok('a listed asset above 20%', ['exchange'])).toEqual({ kind: 'listed_above', threshold: 0.2 });
    expect(ok('listed assets over 0.35', ['exchange'])).toEqual({ kind: 'listed_above', threshold: 0.35 });
    expect(describeCondition({ kind: 'listed_downgrade' })).toBe(
      'a listed asset downgraded: its PoL up by 1 percentage point or more since the last check (listed assets carry no rating)',
    );
    expect(describeCondition(ok('a listed asset above 20%', ['exchange']))).toBe('a listed asset at or above 20.0% PoL (lower is safer)');
    for (const text of ['a listed asset is downgraded', 'a listed asset above 20%'])
      expect(refused(text, ['project', 'exchange']), text).toMatch(
        /^Listed assets are published for exchanges only; watch a project with pol above 5% or downgrade instead\. Conditions: /,
      );
    expect(refused('a listed asset above 20', ['exchange'])).toContain('Write a PoL level as a percent (20%)');
    expect(refused('a listed asset above 120%', ['exchange'])).toContain('A PoL level is between 0% and 100%, not 120%.');
    expect(conditionSuggestions('listed')).toEqual(['a listed asset is downgraded', 'a listed asset above 20%']);
  });
});

const at = (day: number, values: Partial<Reading>): Reading => ({
  at: day * 86_400,
  pol: null,
  rating: null,
  flags: [],
  categories: {},
  ...values,
});

describe('judging a condition from readings', () => {
  it('a level holds while the value is past the line, and clears by itself; an unreadable value cannot tell', () => {
    const c = ok('pol above 5%');
    expect(isLevel(c)).toBe(true);
    expect(evaluate(c, at(1, { pol: 0.031 }), at(2, { pol: 0.054 }))).toEqual({
      holds: true,
      change: { from: '3.1%', to: '5.4%', trend: 'worse' },
    });
    expect(evaluate(c, at(2, { pol: 0.054 }), at(3, { pol: 0.049 })).holds).toBe(false);
    expect(evaluate(c, at(2, { pol: 0.054 }), at(3, { pol: null })).holds).toBeNull();
    // With no reading before (a new rule), a level already past the line holds.
    expect(evaluate(c, undefined, at(1, { pol: 0.08 })).holds).toBe(true);
  });

  it('a rise within a window compares with the lowest reading inside it', () => {
    const c = ok('pol rises by 2pp in 7d');
    const history = [at(1, { pol: 0.01 }), at(5, { pol: 0.03 }), at(8, { pol: 0.035 })];
    // Day 10: the window runs from day 3, so day 1's 1% is outside it; the low is day 5's 3%.
    expect(evaluate(c, history[2], at(10, { pol: 0.049 }), history)).toMatchObject({ holds: false });
    expect(evaluate(c, history[2], at(10, { pol: 0.05 }), history)).toMatchObject({
      holds: true,
      change: { from: '3.0%', to: '5.0%', trend: 'worse' },
    });
    expect(evaluate(c, undefined, at(10, { pol: 0.05 }), []).holds).toBeNull();
  });

  it('a downgrade, a rating below a line, a new red flag and a category score are judged against the stored reading', () => {
    expect(evaluate(ok('downgrade'), at(1, { rating: 'A' }), at(2, { rating: 'BBB' }))).toMatchObject({
      holds: true,
      change: { from: 'A', to: 'BBB', trend: 'worse' },
    });
    expect(evaluate(ok('downgrade'), at(1, { rating: 'BBB' }), at(2, { rating: 'A' })).holds).toBe(false);
    expect(evaluate(ok('downgrade'), undefined, at(2, { rating: 'BBB' })).holds).toBeNull();
    expect(evaluate(ok('rating below A'), at(1, { rating: 'A' }), at(2, { rating: 'BBB' })).holds).toBe(true);
    expect(evaluate(ok('rating below A'), at(1, { rating: 'BBB' }), at(2, { rating: 'A' })).holds).toBe(false);
    expect(
      evaluate(
        ok('new red flag'),
        at(1, { flags: ['Market maker: wash trading'] }),
        at(2, { flags: ['Market maker: wash trading', 'Investor: unlock'] }),
      ),
    ).toEqual({
      holds: true,
      newFlags: ['Investor: unlock'],
    });
    // Flags that could not be read are not "all flags are new".
    expect(evaluate(ok('new red flag'), at(1, { flags: null }), at(2, { flags: ['Investor: unlock'] })).holds).toBeNull();
    expect(evaluate(ok('security below 60'), at(1, { categories: { security: 61.2 } }), at(2, { categories: { security: 58.4 } }))).toEqual(
      {
        holds: true,
        change: { from: '61.2', to: '58.4', trend: 'worse' },
      },
    );
    expect(evaluate(ok('any change'), at(1, { pol: 0.02, rating: 'BBB' }), at(2, { pol: 0.02, rating: 'BBB' })).holds).toBe(false);
    expect(evaluate(ok('any change'), at(1, { pol: 0.02, rating: 'BBB' }), at(2, { pol: 0.021, rating: 'BBB' })).holds).toBe(true);
  });
});

describe('judging conditions on listed assets', () => {
  const listed = (day: number, pols: Record<string, [string, number]>): Reading =>
    at(day, { listed: Object.fromEntries(Object.entries(pols).map(([id, [name, pol]]) => [id, { name, pol }])) });

  it('a downgrade is a PoL up 1 point or more since the last check, named worst first, a few then how many more', () => {
    const c = ok('a listed asset is downgraded', ['exchange']);
    expect(isLevel(c)).toBe(false);
    const before = listed(1, { '1': ['Pepe (PEPE)', 0.35], '2': ['Bonk (BONK)', 0.3], '3': ['Shiba Inu (SHIB)', 0.27] });
    // Exactly one point counts; 0.9 of a point does not; an asset listed since has nothing to compare with.
    const after = listed(2, {
      '1': ['Pepe (PEPE)', 0.36],
      '2': ['Bonk (BONK)', 0.55],
      '3': ['Shiba Inu (SHIB)', 0.279],
      '4': ['New (NEW)', 0.9],
    });
    expect(evaluate(c, before, after)).toEqual({
      holds: true,
      change: { from: '30.0%', to: '55.0%', trend: 'worse' },
      listed: { count: 2, assets: ['Bonk (BONK) 30.0% → 55.0%', 'Pepe (PEPE) 35.0% → 36.0%'] },
    });
    expect(evaluate(c, before, listed(2, { '1': ['Pepe (PEPE)', 0.359] })).holds).toBe(false);
    // No earlier reading, or a list that could not be read: cannot tell.
    expect(evaluate(c, undefined, after).holds).toBeNull();
    expect(evaluate(c, before, at(2, { listed: null })).holds).toBeNull();
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [String(i), [`A${i}`, 0.1] as [string, number]]));
    const worse = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [String(i), [`A${i}`, 0.2 + i / 100] as [string, number]]));
    expect(evaluate(c, listed(1, many), listed(2, worse)).listed).toEqual({
      count: 8,
      assets: ['A7 10.0% → 27.0%', 'A6 10.0% → 26.0%', 'A5 10.0% → 25.0%', 'A4 10.0% → 24.0%', 'A3 10.0% → 23.0%', '+3 more'],
    });
  });

  it('a listed asset above a level holds while any is at or over it, highest first, and clears by itself', () => {
    const c = ok('a listed asset above 20%', ['exchange']);
    expect(isLevel(c)).toBe(true);
    const before = listed(1, { '1': ['Pepe (PEPE)', 0.19], '2': ['Bonk (BONK)', 0.1] });
    expect(evaluate(c, before, listed(2, { '1': ['Pepe (PEPE)', 0.2], '2': ['Bonk (BONK)', 0.31] }))).toEqual({
      holds: true,
      change: { from: '19.0%', to: '31.0%', trend: 'worse' },
      listed: { count: 2, assets: ['Bonk (BONK) 31.0%', 'Pepe (PEPE) 20.0%'] },
    });
    expect(evaluate(c, before, listed(2, { '1': ['Pepe (PEPE)', 0.199] })).holds).toBe(false);
    expect(evaluate(c, before, at(2, { listed: null })).holds).toBeNull();
  });
});
