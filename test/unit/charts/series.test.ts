import { describe, expect, it } from 'vitest';
import { align, cleanSamples, dateLabels, downsampleIndices, thin } from '../../../src/charts/series.js';
import { DAY, LAST_DAY } from '../../helpers/charts.js';

const daily = (n: number, end = LAST_DAY) => Array.from({ length: n }, (_, i) => end - (n - 1 - i) * DAY);

describe('cleaning points', () => {
  it('skips NaN, null, missing and non-numeric values and sorts by time', () => {
    const points = [
      { timestamp: 30, pol: 0.3 },
      { timestamp: 10, pol: 0.1 },
      { timestamp: 20, pol: Number.NaN },
      { timestamp: 25, pol: null },
      { timestamp: 26, pol: '0.2' },
      { timestamp: Number.POSITIVE_INFINITY, pol: 0.2 },
      null,
      { pol: 0.4 },
      { timestamp: 40, pol: 0.4 },
    ] as unknown as { timestamp: number; pol: number }[];
    expect(cleanSamples(points, (p) => p.pol)).toEqual([
      { t: 10, v: 0.1 },
      { t: 30, v: 0.3 },
      { t: 40, v: 0.4 },
    ]);
  });

  it('keeps the later of two points with the same timestamp and tolerates a non-array', () => {
    expect(
      cleanSamples(
        [
          { timestamp: 1, value: 1 },
          { timestamp: 1, value: 2 },
        ],
        (p) => p.value,
      ),
    ).toEqual([{ t: 1, v: 2 }]);
    expect(cleanSamples(null, () => 1)).toEqual([]);
    expect(cleanSamples({} as never, () => 1)).toEqual([]);
  });

  it('aligns series on the union of their timestamps', () => {
    const a = align([
      [
        { t: 1, v: 1 },
        { t: 3, v: 3 },
      ],
      [
        { t: 2, v: 20 },
        { t: 3, v: 30 },
      ],
    ]);
    expect(a.timestamps).toEqual([1, 2, 3]);
    expect(a.values).toEqual([
      [1, null, 3],
      [null, 20, 30],
    ]);
  });
});

describe('downsampling', () => {
  it('keeps the first and last points exactly and at most max points', () => {
    const ts = daily(730);
    const values = [ts.map((_, i) => Math.sin(i / 10))];
    const keep = downsampleIndices(ts, values, 400);
    expect(keep.length).toBe(400);
    expect(keep[0]).toBe(0);
    expect(keep[keep.length - 1]).toBe(729);
    expect([...keep].sort((x, y) => x - y)).toEqual(keep);
  });

  it('keeps a one-day spike that striding would drop', () => {
    const ts = daily(1000);
    const row = ts.map(() => 0.01);
    row[503] = 0.4;
    const thinned = thin({ timestamps: ts, values: [row] }, 100);
    expect(thinned.values[0]).toContain(0.4);
    expect(thinned.timestamps[0]).toBe(ts[0]);
    expect(thinned.timestamps.at(-1)).toBe(ts.at(-1));
  });

  it('leaves short series alone', () => {
    const ts = daily(90);
    expect(downsampleIndices(ts, [ts.map(() => 1)], 400)).toHaveLength(90);
  });
});

describe('date labels', () => {
  const shown = (labels: string[]) => labels.filter((l) => l !== '');

  it('labels every day of a week', () => {
    expect(shown(dateLabels(daily(7)))).toEqual(['Nov 16', 'Nov 17', 'Nov 18', 'Nov 19', 'Nov 20', 'Nov 21', 'Nov 22']);
  });

  it('labels Mondays over a month', () => {
    expect(shown(dateLabels(daily(30)))).toEqual(['Oct 27', 'Nov 3', 'Nov 10', 'Nov 17']);
  });

  it('labels the 1st and 15th over 90 days', () => {
    expect(shown(dateLabels(daily(90)))).toEqual(['Sep 1', 'Sep 15', 'Oct 1', 'Oct 15', 'Nov 1', 'Nov 15']);
  });

  it('labels months with years over a year, at most about seven', () => {
    const labels = shown(dateLabels(daily(365)));
    expect(labels.length).toBeLessThanOrEqual(7);
    expect(labels.length).toBeGreaterThanOrEqual(4);
    for (const l of labels) expect(l).toMatch(/^[A-Z][a-z]{2} \d{4}$/);
    expect(shown(dateLabels(daily(730))).length).toBeLessThanOrEqual(8);
  });

  it('handles no points, one point and hourly data', () => {
    expect(dateLabels([])).toEqual([]);
    expect(dateLabels([LAST_DAY])).toEqual(['Nov 22']);
    const hourly = Array.from({ length: 48 }, (_, i) => LAST_DAY + i * 3600);
    const labels = shown(dateLabels(hourly));
    expect(labels.length).toBeLessThanOrEqual(8);
    expect(labels[0]).toMatch(/^Nov 2[23] \d\d:00$/);
  });
});
