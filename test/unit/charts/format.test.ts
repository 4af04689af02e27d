import { describe, expect, it } from 'vitest';
import {
  cleanText,
  formatDate,
  formatPercent,
  formatPercentUnits,
  formatPol,
  formatUsd,
  logPercentTick,
  percentDecimals,
  percentTick,
  percentUnitTick,
  rangeLabel,
  roundLogTicks,
} from '../../../src/charts/format.js';
import {
  logPercentTickCallback,
  percentTickCallback,
  percentUnitTickCallback,
  roundLogTicks as roundLogTicksCallback,
  usdTickCallback,
} from '../../../src/charts/configs/common.js';
import { portableSource } from '../../../src/charts/portable.js';

const ticks = (...values: number[]) => values.map((value) => ({ value }));

/** Evaluates a formatter's QuickChart source the way QuickChart would. */
const compile = <F>(fn: unknown): F => {
  const source = portableSource(fn);
  expect(source, 'formatter has portable source').toBeTypeOf('string');
  return new Function(`return (${source});`)() as F;
};

describe('percent formatting', () => {
  it('formats fractions as percentages', () => {
    expect(formatPercent(0.0123)).toBe('1.23%');
    expect(formatPercent(0.5, 0)).toBe('50%');
    expect(formatPercent(0)).toBe('0.00%');
    expect(formatPercent(-0.00001)).toBe('0.00%');
    expect(formatPercent(Number.NaN)).toBe('–');
  });

  it('gives PoL enough digits to tell small probabilities apart', () => {
    expect(formatPol(0.003)).toBe('0.30%');
    expect(formatPol(0.0018)).toBe('0.18%');
    expect(formatPol(0.0008)).toBe('0.080%');
    expect(formatPol(0.2403)).toBe('24.0%');
  });

  it('chooses tick decimals from the step between ticks', () => {
    expect(percentDecimals(0.0005)).toBe(2);
    expect(percentDecimals(0.001)).toBe(1);
    expect(percentDecimals(0.002)).toBe(1);
    expect(percentDecimals(0.01)).toBe(0);
    expect(percentDecimals(0.1)).toBe(0);
    expect(percentDecimals(0.00002)).toBe(3);
    expect(percentTick(0.0015, ticks(0.001, 0.0015, 0.002))).toBe('0.15%');
    expect(percentTick(0.02, ticks(0, 0.01, 0.02))).toBe('2%');
    expect(percentTick(0.0123, ticks(0.012, 0.0123))).toBe('1.23%');
    expect(percentUnitTick(2.5, ticks(2, 2.5, 3))).toBe('2.5%');
    expect(percentUnitTick(4, ticks(0, 2, 4))).toBe('4%');
  });

  it('labels log axes per tick', () => {
    expect(logPercentTick(0.001)).toBe('0.1%');
    expect(logPercentTick(0.0005)).toBe('0.05%');
    expect(logPercentTick(0.2)).toBe('20%');
    expect(roundLogTicks(0.0006, 0.35)).toEqual([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]);
    expect(roundLogTicks(0.000011, 0.9)).toEqual([0.0001, 0.001, 0.01, 0.1]);
    expect(roundLogTicks(0, 1)).toEqual([]);
  });

  it('formats inflation already in percent units', () => {
    expect(formatPercentUnits(1.2)).toBe('1.2%');
    expect(formatPercentUnits(3.456)).toBe('3.46%');
    expect(formatPercentUnits(12.34)).toBe('12.3%');
  });
});

describe('money, dates, ranges and text', () => {
  it('formats USD compactly', () => {
    expect(formatUsd(1.234e9)).toBe('$1.2B');
    expect(formatUsd(1e9)).toBe('$1B');
    expect(formatUsd(8e8)).toBe('$800M');
    expect(formatUsd(950)).toBe('$950');
  });

  it('formats dates in UTC whatever the local zone', () => {
    const t = Date.UTC(2025, 10, 22, 23, 30) / 1000;
    expect(formatDate(t, 'day')).toBe('Nov 22');
    expect(formatDate(t, 'month')).toBe('Nov 2025');
    expect(formatDate(t, 'hour')).toBe('Nov 22 23:30');
  });

  it('spells out range tokens', () => {
    expect(rangeLabel('90d')).toBe('90 days');
    expect(rangeLabel('1d')).toBe('1 day');
    expect(rangeLabel('all')).toBe('all history');
    expect(rangeLabel('Q3 2025')).toBe('Q3 2025');
  });

  it('reduces upstream text to one plain, bounded line', () => {
    expect(cleanText('Evil\u202eCoin\u0000\nName\u200b')).toBe('EvilCoin Name');
    expect(cleanText('  lots   of\tspace ')).toBe('lots of space');
    const long = cleanText('x'.repeat(10_000));
    expect(Array.from(long)).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
    expect(cleanText(undefined)).toBe('');
    expect(cleanText(42)).toBe('');
  });
});

describe('QuickChart formatter sources', () => {
  const tickSets = [
    ticks(0.001, 0.0015, 0.002, 0.0025, 0.003),
    ticks(0, 0.01, 0.02, 0.03),
    ticks(0.1, 0.2, 0.3),
    ticks(0.0001, 0.00012, 0.00014),
    ticks(0.05),
    ticks(-0.0000001, 0.0005, 0.001),
  ];

  it('percent ticks agree with the local formatter', () => {
    const remote = compile<(v: number, i: number, t: { value: number }[]) => string>(percentTickCallback);
    for (const set of tickSets) {
      for (const [i, t] of set.entries()) expect(remote(t.value, i, set)).toBe(percentTick(t.value, set));
    }
  });

  it('percent-unit ticks agree with the local formatter', () => {
    const remote = compile<(v: number, i: number, t: { value: number }[]) => string>(percentUnitTickCallback);
    for (const set of [ticks(0, 0.5, 1, 1.5), ticks(2, 4, 6), ticks(0.1, 0.15, 0.2), ticks(10, 20)]) {
      for (const [i, t] of set.entries()) expect(remote(t.value, i, set)).toBe(percentUnitTick(t.value, set));
    }
  });

  it('USD and log ticks agree with the local formatters', () => {
    const usd = compile<(v: number) => string>(usdTickCallback);
    for (const v of [0, 950, 8e8, 1e9, 1.25e9, 3.4e12]) expect(usd(v)).toBe(formatUsd(v));
    const log = compile<(v: number) => string>(logPercentTickCallback);
    for (const v of [0.0001, 0.0005, 0.002, 0.05, 0.2, 1]) expect(log(v)).toBe(logPercentTick(v));
    const after = compile<(axis: { min: number; max: number; ticks: { value: number }[] }) => void>(roundLogTicksCallback);
    for (const [min, max] of [
      [0.0006, 0.35],
      [0.00001, 0.9],
      [0.02, 0.6],
    ] as const) {
      const axis = { min, max, ticks: [] as { value: number }[] };
      after(axis);
      expect(axis.ticks.map((t) => t.value)).toEqual(roundLogTicks(min, max));
    }
  });
});
