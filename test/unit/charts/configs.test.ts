import type { Tick } from 'chart.js';
import { describe, expect, it } from 'vitest';
import {
  categoriesChartConfig,
  describeCategoriesChart,
  describeChart,
  describeInflationChart,
  describePolChart,
  describeReservesChart,
  describeVoiceChart,
  describeWatchlistChart,
  MAX_WATCHLIST_LINES,
  polChartConfig,
  type BuiltChart,
  type ChartSpec,
} from '../../../src/charts/index.js';
import { MAX_POINTS } from '../../../src/charts/configs/common.js';
import { serializeForQuickChart, localOnly, portable } from '../../../src/charts/portable.js';
import { categoryPoints, polPoints, reservesPoints, valuePoints } from '../../helpers/charts.js';

type AnyOptions = {
  plugins: { title: { text: string; display: boolean }; subtitle: { text: string | string[] }; legend: { display?: boolean } };
  scales: {
    y: {
      type?: string;
      min?: number;
      max?: number;
      suggestedMin?: number;
      suggestedMax?: number;
      ticks: { callback?: (v: number, i: number, t: Tick[]) => string };
    };
  };
};
const opts = (b: BuiltChart) => b.config.options as unknown as AnyOptions;
const title = (b: BuiltChart) => opts(b).plugins.title.text;
const subtitle = (b: BuiltChart) => [opts(b).plugins.subtitle.text].flat().join(' | ');
const tick = (b: BuiltChart, value: number, values: number[]) =>
  opts(b).scales.y.ticks.callback!(
    value,
    0,
    values.map((v) => ({ value: v }) as Tick),
  );

const PROJECT = ['security', 'financial', 'operational', 'reputational', 'regulatory'];
const EXCHANGE = ['security', 'transparency', 'solvency'];

const specs: ChartSpec[] = [
  { kind: 'pol', entityName: 'Bitcoin', range: '90d', points: polPoints(90) },
  { kind: 'categories', entityName: 'Bitcoin', range: '90d', points: categoryPoints(90, PROJECT) },
  { kind: 'reserves', entityName: 'Binance', range: '365d', points: reservesPoints(365) },
  { kind: 'inflation', entityName: 'Bitcoin', range: '30d', points: valuePoints(30, 1.5, 0.4) },
  { kind: 'voice', entityName: 'Bitcoin', range: '180d', points: valuePoints(180, 70, 8) },
  {
    kind: 'watchlist',
    listName: 'Risk desk',
    range: '30d',
    series: [
      { name: 'Bitcoin', points: polPoints(30) },
      { name: 'Solana', points: polPoints(30, 2) },
    ],
  },
];

describe('config builders', () => {
  it('title PoL charts by entity, measure and range, and say lower is safer', () => {
    const b = describePolChart(polPoints(90), { entityName: 'Bitcoin', range: '90d' });
    expect(title(b)).toBe('Bitcoin · PoL, 90 days');
    expect(subtitle(b)).toContain('lower is safer');
    expect(subtitle(b)).not.toContain('SIMULATED');
    expect(b.config.type).toBe('line');
    expect(b.config.data.datasets).toHaveLength(1);
    expect(b.config.data.labels).toHaveLength(90);
    expect(opts(b).plugins.legend.display).toBe(false);
    expect(b.alt).toMatch(/^PoL of Bitcoin over 90 days: from \d+\.\d+% to \d+\.\d+%, lower is safer\.$/);
  });

  it('draws an alert’s line dashed across a PoL chart, names it, and keeps it on the axis', () => {
    const points = [0.012, 0.013, 0.011, 0.12].map((pol, i) => ({ timestamp: 1_764_000_000 + i * 86_400, pol }));
    const b = describePolChart(points, { entityName: 'Kraken', range: '30d' }, { value: 0.2, label: 'alert at 20.0%' });
    expect(b.config.data.datasets).toHaveLength(2);
    const line = b.config.data.datasets[1]!;
    expect(line).toMatchObject({ label: 'alert at 20.0%', borderDash: [8, 5], fill: false });
    expect(line.data).toEqual([0.2, 0.2, 0.2, 0.2]);
    expect(subtitle(b)).toContain('dashed: alert at 20.0%');
    expect(b.alt).toBe('PoL of Kraken over 30 days: from 1.20% to 12.0%, lower is safer. Dashed: alert at 20.0%.');
    // The axis reaches the line even though every value is below it.
    expect(opts(b).scales.y.suggestedMax).toBeGreaterThanOrEqual(0.2);
    // Without a line, the chart is as before.
    expect(describePolChart(points, { entityName: 'Kraken', range: '30d' }).config.data.datasets).toHaveLength(1);
  });

  it('formats the PoL axis as percentages', () => {
    const b = describePolChart(polPoints(90), { entityName: 'Bitcoin', range: '90d' });
    expect(tick(b, 0.0015, [0.001, 0.0015, 0.002])).toBe('0.15%');
    expect(tick(b, 0.02, [0, 0.01, 0.02])).toBe('2%');
    const y = opts(b).scales.y;
    expect(y.suggestedMin).toBeGreaterThanOrEqual(0);
    expect(y.suggestedMax).toBeLessThanOrEqual(1);
  });

  it('mark every kind as simulated when asked, and only then', () => {
    for (const spec of specs) {
      expect(subtitle(describeChart({ ...spec, simulated: true }))).toContain('SIMULATED DATA');
      expect(describeChart({ ...spec, simulated: true }).alt).toContain('Simulated data');
      expect(subtitle(describeChart(spec))).not.toContain('SIMULATED');
      const empty = spec.kind === 'watchlist' ? { ...spec, series: [] } : { ...spec, points: [] };
      expect(subtitle(describeChart({ ...empty, simulated: true } as ChartSpec))).toContain('SIMULATED DATA');
    }
  });

  it('draw one line per category with fixed colours, on 0..100, higher is better', () => {
    const project = describeCategoriesChart(categoryPoints(90, [...PROJECT].reverse()), { entityName: 'Bitcoin', range: '90d' });
    expect(project.config.data.datasets.map((d) => d.label)).toEqual([
      'Security',
      'Financial',
      'Operational',
      'Reputational',
      'Regulatory',
    ]);
    expect(opts(project).scales.y).toMatchObject({ min: 0, max: 100 });
    expect(subtitle(project)).toContain('higher is better');
    expect(opts(project).plugins.legend.display).not.toBe(false);
    const exchange = categoriesChartConfig(categoryPoints(30, EXCHANGE), { entityName: 'Binance', range: '30d' });
    expect(exchange.data.datasets.map((d) => d.label)).toEqual(['Security', 'Transparency', 'Solvency']);
    expect(exchange.data.datasets[0]!.borderColor).toBe(project.config.data.datasets[0]!.borderColor);
    const colours = project.config.data.datasets.map((d) => d.borderColor);
    expect(new Set(colours).size).toBe(colours.length);
  });

  it('draw reserves and liabilities as two USD lines', () => {
    const b = describeReservesChart(reservesPoints(90), { entityName: 'Binance', range: '90d' });
    expect(b.config.data.datasets.map((d) => d.label)).toEqual(['Reserves', 'Liabilities']);
    expect(tick(b, 1.2e9, [1e9, 1.2e9])).toBe('$1.2B');
    expect(b.alt).toMatch(/reserves \$[\d.]+B to \$[\d.]+B; liabilities \$[\d.]+B to \$[\d.]+B \(ratio \d\.\d\d\)/);
  });

  it('draw inflation in % per year and Proof of Voice on 0..100', () => {
    const inflation = describeInflationChart(valuePoints(30, 1.5, 0.4), { entityName: 'Bitcoin', range: '30d' });
    expect(subtitle(inflation)).toContain('% per year');
    expect(tick(inflation, 1.5, [1, 1.5, 2])).toBe('1.5%');
    const voice = describeVoiceChart(valuePoints(180, 70, 8), { entityName: 'Bitcoin', range: '180d' });
    expect(opts(voice).scales.y).toMatchObject({ min: 0, max: 100 });
    expect(subtitle(voice)).toContain('higher is better');
  });

  it('cap watchlists at 12 distinct colours, keep the riskiest and say so', () => {
    const series = Array.from({ length: 20 }, (_, i) => ({
      name: `Entity ${i}`,
      points: polPoints(30).map((p) => ({ ...p, pol: (i + 1) / 100 })),
    }));
    const b = describeWatchlistChart(series, { range: '30d', listName: 'Exchanges' });
    const shown = b.config.data.datasets.map((d) => d.label);
    expect(shown).toHaveLength(MAX_WATCHLIST_LINES);
    expect(shown).toEqual(Array.from({ length: 12 }, (_, i) => `Entity ${i + 8}`));
    expect(new Set(b.config.data.datasets.map((d) => d.borderColor)).size).toBe(12);
    expect(subtitle(b)).toContain('top 12 of 20');
    expect(subtitle(b)).toContain('lower is safer');
    expect(title(b)).toBe('Exchanges · PoL, 30 days');
    expect(b.alt).toContain('8 more not shown');
  });

  it('switch watchlists to a log axis when PoL spans orders of magnitude', () => {
    const wide = describeWatchlistChart(
      [
        { name: 'Safe', points: polPoints(30).map((p) => ({ ...p, pol: 0.0008 })) },
        { name: 'Risky', points: polPoints(30).map((p) => ({ ...p, pol: 0.3 })) },
      ],
      { range: '30d' },
    );
    expect(opts(wide).scales.y.type).toBe('logarithmic');
    expect(subtitle(wide)).toContain('log scale');
    const narrow = describeWatchlistChart(
      [
        { name: 'A', points: polPoints(30) },
        { name: 'B', points: polPoints(30, 1) },
      ],
      { range: '30d' },
    );
    expect(opts(narrow).scales.y.type).toBe('linear');
  });

  it('return a valid "No data" config for empty or unusable series', () => {
    for (const spec of specs) {
      const junk = [{ timestamp: 1, pol: Number.NaN, value: null, reserves: 'x', scores: null }];
      const variants =
        spec.kind === 'watchlist'
          ? [
              { ...spec, series: [] },
              { ...spec, series: [{ name: 'x', points: junk }] },
            ]
          : [
              { ...spec, points: [] },
              { ...spec, points: junk },
            ];
      for (const v of variants) {
        const b = describeChart(v as ChartSpec);
        expect(b.empty).toBe(true);
        expect(b.config.data.datasets).toEqual([]);
        expect(subtitle(b)).toContain('No data for this period');
        expect(b.alt).toContain('no data for this period');
        expect(title(b).length).toBeGreaterThan(0);
      }
    }
  });

  it('skip NaN and null values without dropping the rest', () => {
    const points = polPoints(30).map((p, i) => (i % 5 === 0 ? { ...p, pol: i % 10 === 0 ? Number.NaN : (null as unknown as number) } : p));
    const b = describePolChart(points, { entityName: 'Bitcoin', range: '30d' });
    expect(b.config.data.datasets[0]!.data).toHaveLength(24);
    expect(b.config.data.datasets[0]!.data.every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true);
  });

  it('thin long series but keep the first and last points exact', () => {
    const points = polPoints(730);
    const config = polChartConfig(points, { entityName: 'Bitcoin', range: 'all' });
    const data = config.data.datasets[0]!.data as number[];
    expect(data.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(data[0]).toBe(points[0]!.pol);
    expect(data.at(-1)).toBe(points.at(-1)!.pol);
  });

  it('keep titles plain and short whatever the upstream name holds', () => {
    const name = `Evil\u202e\u0000Coin\n${'x'.repeat(500)}`;
    const t = title(describePolChart(polPoints(10), { entityName: name, range: '90d' }));
    expect(Array.from(t).length).toBeLessThanOrEqual(80);
    expect(t).not.toMatch(/[\u0000-\u001f\u202a-\u202e]/);
    expect(t).toContain('PoL, 90 days');
    expect(title(describePolChart(polPoints(10), { entityName: 'Bitcoin', range: '90d', title: '' }))).toBe('');
    expect(opts(describePolChart(polPoints(10), { entityName: 'Bitcoin', range: '90d', title: '' })).plugins.title.display).toBe(false);
    expect(title(describePolChart(polPoints(10), { entityName: 'Bitcoin', range: '90d', title: 'Custom' }))).toBe('Custom');
  });
});

describe('QuickChart serialisation', () => {
  const evaluate = (source: string) => new Function(`return (${source});`)() as Record<string, unknown>;

  it('keeps upstream text inside string literals, whatever it contains', () => {
    const name = '"}),x:1,\\"__BEGINFUNCTION__f()__ENDFUNCTION__';
    const b = describePolChart(polPoints(10), { entityName: name, range: '90d' });
    const source = serializeForQuickChart(b.config);
    const parsed = evaluate(source) as { options: { plugins: { title: { text: string } } } };
    expect(parsed.options.plugins.title.text).toBe(title(b));
    expect(parsed.options.plugins.title.text).toContain('__BEGINFUNCTION__');
  });

  it('inlines portable functions, drops local-only ones and refuses unmarked ones', () => {
    const fn = portable((v: number) => `${v}!`, 'function (v) { return v + "!"; }');
    const source = serializeForQuickChart({
      type: 'line',
      data: { datasets: [] },
      plugins: [localOnly({ id: 'x' })],
      options: { scales: { y: { ticks: { callback: fn } } } },
    } as never);
    const parsed = evaluate(source) as { plugins: unknown[]; options: { scales: { y: { ticks: { callback: (v: number) => string } } } } };
    expect(parsed.plugins).toEqual([]);
    expect(parsed.options.scales.y.ticks.callback(3)).toBe('3!');
    expect(() => serializeForQuickChart({ type: 'line', data: { datasets: [] }, options: { onClick: () => {} } } as never)).toThrow(
      /no portable form/,
    );
  });
});
