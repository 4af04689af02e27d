import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logPercentTickCallback, percentUnitTickCallback } from '../../../src/charts/configs/common.js';
import {
  formatPercent,
  formatPercentUnits,
  formatPlain,
  formatPol,
  formatScore,
  formatUsd,
  logPercentTick,
  percentTick,
  percentUnitTick,
} from '../../../src/charts/format.js';
import { portableSource } from '../../../src/charts/portable.js';
import * as fmt from '../../../src/reply/format.js';
import { socialFields } from '../../../src/reply/social.js';

/**
 * Numbers are never shown in exponent notation: not 4.2e-12 for a tiny score, not 1e+21 for a huge
 * amount. `String`, template literals and `toPrecision` write it below 1e-6, `toFixed` from 1e21.
 */

/** An exponent as JavaScript writes one: a digit, then e, then the power (4.2e-12, 1e+21). */
const EXPONENT = /\d[eE][+-]?\d/;

const ticks = (...values: number[]) => values.map((value) => ({ value }));

const compile = <F>(fn: unknown): F => new Function(`return (${portableSource(fn)});`)() as F;

describe('tiny and huge values in replies', () => {
  it('shows a tiny quality score as "<0.01", keeping two significant digits down to 0.01', () => {
    expect(fmt.score(4.2e-12)).toBe('<0.01');
    expect(fmt.score(0.0099)).toBe('<0.01');
    expect(fmt.score(0.012)).toBe('0.012');
    expect(fmt.score(0.04)).toBe('0.04');
    expect(fmt.score(0.05)).toBe('0.1');
  });

  it('shows tiny and huge counts, percents and changes in plain digits', () => {
    expect(fmt.count(4.2e-12)).toBe('<0.01');
    expect(fmt.count(1e21)).toBe('1,000,000,000,000,000,000,000');
    expect(fmt.percent(4.2e-12)).toBe('<0.1%');
    expect(fmt.percent(1e21)).toBe('1000000000000000000000%');
    expect(fmt.percent(-1e22)).toBe('-10000000000000000000000%');
    expect(fmt.polChange(1e20)).toBe('+10000000000000000000000 pp');
    expect(fmt.polChange(-4.2e-12)).toBe('−<0.001 pp');
    expect(fmt.pol(4.2e-12)).toBe('<0.001%');
    expect(fmt.decimal(1e21)).toBe('1,000,000,000,000,000,000,000');
    expect(fmt.decimal(4.2e-12)).toBe('0');
    expect(fmt.share(4.2e-12)).toBe('0.00000000042%');
  });

  it('keeps money in its compact form however large, and small money in plain digits', () => {
    expect(fmt.usd(1e30)).toBe('$1,000,000,000,000,000,000T');
    expect(fmt.usd(4.2e-12)).toBe('$0.0000000000042');
    expect(fmt.price(4.2e-12)).toBe('$0.0000000000042');
    expect(fmt.price(1e21)).toBe('$1,000,000,000,000,000,000,000.00');
  });

  it('writes years without separators or exponents', () => {
    expect(fmt.year(2017)).toBe('2017');
    expect(fmt.year(1e21)).toBe('1000000000000000000000');
    expect(fmt.year(Number.NaN)).toBe('unreadable (not a number)');
  });

  it('shows social signals of any size in plain digits', () => {
    expect(socialFields({ followers: 1e21, engagementRate: 4.2e-12, websiteAgeDays: 1e21, botScore: 4.2e-12 })).toEqual([
      { label: 'Followers', value: '1,000,000,000,000,000,000,000' },
      { label: 'Engagement rate', value: '0' },
      { label: 'Website age', value: '1,000,000,000,000,000,000,000 days' },
      { label: 'Bot score', value: '<0.01' },
    ]);
  });
});

describe('tiny and huge values in charts', () => {
  it('labels scores, percents and counts in plain digits', () => {
    expect(formatScore(4.2e-12)).toBe('0.0');
    expect(formatScore(1e21)).toBe('1000000000000000000000');
    expect(formatPol(4.2e-12)).toBe('0.000%');
    expect(formatPercent(1e20)).toBe('10000000000000000000000%');
    expect(formatPercentUnits(4.2e-12)).toBe('0%');
    expect(formatPercentUnits(1e21)).toBe('1000000000000000000000%');
    expect(formatPlain(1e21)).toBe('1000000000000000000000');
    expect(formatPlain(2024)).toBe('2024');
    expect(formatUsd(1e30)).toBe('$1,000,000,000,000,000,000T');
  });

  it('labels log-axis ticks of tiny probabilities in plain digits, on QuickChart too', () => {
    const remote = compile<(v: number) => string>(logPercentTickCallback);
    for (const [value, text] of [
      [1e-12, '0.0000000001%'],
      [2e-9, '0.0000002%'],
      [0.0005, '0.05%'],
    ] as const) {
      expect(logPercentTick(value)).toBe(text);
      expect(remote(value)).toBe(text);
    }
  });

  it('labels an inflation axis of huge rates in plain digits, on QuickChart too', () => {
    const remote = compile<(v: number, i: number, t: { value: number }[]) => string>(percentUnitTickCallback);
    const set = ticks(0, 1e21, 2e21);
    const shown = ['0%', '1000000000000000000000%', '2000000000000000000000%'];
    expect(set.map((t) => percentUnitTick(t.value, set))).toEqual(shown);
    expect(set.map((t, i) => remote(t.value, i, set))).toEqual(shown);
  });
});

describe('no formatter writes an exponent', () => {
  /** Finite numbers across the whole double range, tiny ones (4.2e-12) and huge ones (1e+300) alike. */
  const anyFinite = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.double({ min: -1e-3, max: 1e-3, noNaN: true }),
    fc.integer({ min: -320, max: 300 }).map((power) => 4.2 * 10 ** power),
  );

  const formatters: [string, (v: number) => string][] = [
    ['pol', (v) => fmt.pol(v)],
    ['polChange', (v) => fmt.polChange(v)],
    ['score', (v) => fmt.score(v)],
    ['usd', (v) => fmt.usd(v)],
    ['price', (v) => fmt.price(v)],
    ['percent', (v) => fmt.percent(v)],
    ['share', (v) => fmt.share(v)],
    ['decimal', (v) => fmt.decimal(v)],
    ['count', (v) => fmt.count(v)],
    ['year', (v) => fmt.year(v)],
    ['age', (v) => fmt.age(Math.abs(v))],
    [
      'social',
      (v) =>
        socialFields({ a: v, aPct: v, aShare: v, aDays: v, aScore: v, searchTrendScore: v })
          .map((f) => f.value)
          .join(' '),
    ],
    ['chart percent', (v) => formatPercent(v)],
    ['chart PoL', (v) => formatPol(v)],
    ['chart score', (v) => formatScore(v)],
    ['chart USD', (v) => formatUsd(v)],
    ['chart percent units', (v) => formatPercentUnits(v)],
    ['chart plain', (v) => formatPlain(v)],
    ['log tick', (v) => logPercentTick(v)],
    ['percent tick', (v) => percentTick(v, ticks(v, v * 2))],
    ['percent-unit tick', (v) => percentUnitTick(v, ticks(v, v * 2))],
  ];

  it.each(formatters)('%s', (_name, format) => {
    fc.assert(
      fc.property(anyFinite, (v) => {
        expect(format(v)).not.toMatch(EXPONENT);
      }),
      { numRuns: 500 },
    );
  });
});
