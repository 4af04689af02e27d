import { type EntityRef, readable } from '../src/api/domain.js';
import { UpstreamError } from '../src/api/errors.js';
import { footerOf } from '../src/reply/footer.js';
import { inline, ref } from '../src/reply/inline.js';
import { skippedPoints } from './kit/card.js';
import { chartImage } from './kit/chart-image.js';
import { DATE_OPTIONS, daysBack, typedDates, type Window, windowOf } from './kit/date-range.js';
import type { CommandContext } from './kit/context.js';
import { resolveTarget } from './kit/resolve-target.js';
import { defineCommand, str } from './kit/spec.js';
import { parseTarget, targetRef } from './kit/target.js';

const RANGES = ['7d', '30d', '90d', '180d', '365d', 'all'] as const;
type Range = (typeof RANGES)[number];
const CHART_KINDS = ['pol', 'categories', 'metrics', 'reserves', 'inflation', 'voice'] as const;
type ChartKind = (typeof CHART_KINDS)[number];

const NEEDS_PROJECT: readonly ChartKind[] = ['inflation', 'voice'];
const NEEDS_EXCHANGE: readonly ChartKind[] = ['reserves'];

/** Days for a range; `all` is the whole history (no `days` sent upstream). */
const daysOf = (range: Range): number | undefined => (range === 'all' ? undefined : Number(range.slice(0, -1)));

export default defineCommand({
  name: 'chart',
  order: 14,
  words: ['chart'],
  summary: 'A chart over time',
  examples: [
    'chart bitcoin 365d categories',
    'chart bitcoin from 2026-03-01 to 2026-06-30',
    'chart aave since 2026-06-01 categories',
    'chart pepe last 45d metrics',
    'chart binance from 2026-03-01 to 2026-06-30',
    'chart kraken last 60d categories',
    'chart okx since 2026-09-01 metrics',
    'chart binance 365d reserves',
  ],
  options: [
    {
      type: 'entity',
      name: 'name',
      description: 'Project or exchange',
      required: true,
      missing: 'Which project or exchange should I chart?',
    },
    {
      type: 'choice',
      name: 'range',
      description: 'Time range (default 90 days)',
      choices: RANGES.map((r) => ({ value: r, label: r === 'all' ? 'all history' : r })),
      aliases: { '1w': '7d', '1m': '30d', '3m': '90d', '6m': '180d', '1y': '365d', '12m': '365d', max: 'all' },
      near: /^\d+[dwmy]$/,
    },
    { type: 'choice', name: 'kind', description: 'What to chart (default PoL)', choices: CHART_KINDS.map((k) => ({ value: k })) },
    ...DATE_OPTIONS,
  ],
  async handler(ctx, args) {
    const range = (str(args, 'range') || '90d') as Range;
    const chart = (str(args, 'kind') || null) as ChartKind | null;
    const read = windowOf(args, ctx.now(), 'chart bitcoin');
    if (!read.ok) return { kind: 'error', message: read.message, hint: read.hint };
    const window = read.window;
    const kindHint = chart && NEEDS_PROJECT.includes(chart) ? 'project' : chart && NEEDS_EXCHANGE.includes(chart) ? 'exchange' : undefined;
    const again = (name: string) => ({
      command: 'chart',
      args: { name, ...(window ? typedDates(args) : { range }), ...(chart ? { kind: chart } : {}) },
    });
    const resolved = await resolveTarget(ctx, parseTarget(str(args, 'name')), again, kindHint);
    if (!resolved.ok) return resolved.reply;
    const entity = resolved.entity;
    const what = chart ?? 'pol';
    const instead = inline`Try ${ref('chart', { name: targetRef(entity.kind, entity.slug), range, kind: 'pol' })}`;
    if (NEEDS_PROJECT.includes(what) && entity.kind !== 'project')
      return { kind: 'error', message: `The ${what} chart exists for projects only.`, hint: instead };
    if (NEEDS_EXCHANGE.includes(what) && entity.kind !== 'exchange')
      return { kind: 'error', message: 'The reserves chart exists for exchanges only.', hint: instead };
    const span: Span = window ? { window, days: daysBack(window.from, ctx.now()) } : { days: daysOf(range) };
    const [record, data] = await Promise.all([
      ctx.source.record(entity.kind, entity.slug).catch((err: unknown) => {
        if (err instanceof UpstreamError && err.kind !== 'not_found') return undefined;
        throw err;
      }),
      fetchSeries(ctx, entity, what, span),
    ]);
    const named: EntityRef = { ...entity, name: record?.data.name ?? entity.name };
    const footer = footerOf([record, data.fetched], ctx.now());
    const skipped = skippedPoints(data.fetched);
    if (skipped) footer.notes = [...(footer.notes ?? []), skipped];
    const rangeText = window ? window.label : range === 'all' ? 'all history' : range;
    if (data.empty) {
      const when = window ? ` for ${window.label}` : range === 'all' ? '' : ` in the last ${range}`;
      return {
        kind: 'text',
        title: `${named.name}: ${data.label}`,
        text: `There is no ${data.label} history for ${named.name}${when}.`,
        footer,
      };
    }
    const image = await chartImage(ctx, {
      ...data.spec,
      entity: named,
      days: span.days,
      ...(window ? { rangeLabel: window.label } : {}),
      simulated: footer.simulated,
    });
    return {
      kind: 'text',
      title: `${named.name}: ${data.label}, ${rangeText}`,
      text: data.summary,
      ...(image ? { image } : {}),
      ...(data.series ? { series: data.series } : {}),
      footer,
    };
  },
});

/** What to fetch: a length back from now, or a window of dates (fetched as days and cut to it where a route takes no dates). */
interface Span {
  days: number | undefined;
  window?: Window;
}

const within = <P extends { timestamp: number }>(points: P[], window: Window | undefined) =>
  window ? points.filter((p) => p.timestamp >= window.from && p.timestamp <= window.to) : points;

/** How many metrics a metrics chart draws: the heaviest ones. */
const CHART_METRICS = 6;

async function fetchSeries(ctx: CommandContext, entity: EntityRef, what: ChartKind, span: Span) {
  const { source } = ctx;
  const { days, window } = span;
  switch (what) {
    case 'categories': {
      const f = window
        ? await source.byCategoryHistory(entity.kind, entity.slug, window.from, window.to)
        : await source.byCategoryChart(entity.kind, entity.slug, days);
      return {
        fetched: f,
        empty: f.data.length === 0,
        series: undefined,
        label: 'category quality scores (higher is better)',
        summary: 'Category quality scores over time; higher is better.',
        spec: { kind: 'categories' as const, points: f.data },
      };
    }
    case 'metrics': {
      const [f, now] = await Promise.all([
        window
          ? source.byMetricHistory(entity.kind, entity.slug, window.from, window.to)
          : source.byMetricChart(entity.kind, entity.slug, days),
        source.byMetric(entity.kind, entity.slug),
      ]);
      const heaviest = [...now.data.metrics]
        .sort((a, b) => (readable(b.weight) ?? 0) - (readable(a.weight) ?? 0))
        .slice(0, CHART_METRICS)
        .map((m) => ({ key: m.metric, label: m.label }));
      return {
        fetched: f,
        empty: f.data.length === 0 || heaviest.length === 0,
        series: undefined,
        label: 'metric quality scores (higher is better)',
        summary: `The ${heaviest.length} heaviest metrics' quality scores over time; higher is better.`,
        spec: { kind: 'metrics' as const, points: f.data, metrics: heaviest },
      };
    }
    case 'reserves': {
      const f = await source.liabilitiesReservesChart(entity.slug, days);
      const points = within(f.data, window);
      return {
        fetched: f,
        empty: points.length === 0,
        series: { label: 'Reserves / liabilities', values: points.map((p) => (p.liabilities > 0 ? p.reserves / p.liabilities : 0)) },
        label: 'liabilities vs reserves',
        summary: 'Reserves and customer liabilities in USD; reserves above liabilities are safer.',
        spec: { kind: 'reserves' as const, points },
      };
    }
    case 'inflation': {
      const f = await source.inflationChart(entity.slug, days);
      const points = within(f.data, window);
      return {
        fetched: f,
        empty: points.length === 0,
        series: { label: 'Inflation, % per year', values: points.map((p) => p.value) },
        label: 'supply inflation',
        summary: 'Annualised supply inflation, % per year.',
        spec: { kind: 'inflation' as const, points },
      };
    }
    case 'voice': {
      const f = await source.voiceChart(entity.slug, days);
      const points = within(f.data, window);
      return {
        fetched: f,
        empty: points.length === 0,
        series: { label: 'Proof of Voice', values: points.map((p) => p.value), direction: 'higher is better' as const },
        label: 'Proof of Voice score',
        summary: 'Proof of Voice score over time; higher is better.',
        spec: { kind: 'voice' as const, points },
      };
    }
    default: {
      const f = window
        ? await source.polHistory(entity.kind, entity.slug, window.from, window.to)
        : await source.polChart(entity.kind, entity.slug, days);
      return {
        fetched: f,
        empty: f.data.length === 0,
        series: { label: 'PoL', values: f.data.map((p) => p.pol), direction: 'lower is safer' as const },
        label: 'Probability of Loss (lower is safer)',
        summary: 'Probability of Loss over time; lower is safer.',
        spec: { kind: 'pol' as const, points: f.data },
      };
    }
  }
}
