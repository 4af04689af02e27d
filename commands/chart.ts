import type { EntityRef } from '../src/api/domain.js';
import { UpstreamError } from '../src/api/errors.js';
import { footerOf } from '../src/reply/footer.js';
import { inline, ref } from '../src/reply/inline.js';
import { skippedPoints } from './kit/card.js';
import { chartImage } from './kit/chart-image.js';
import type { CommandContext } from './kit/context.js';
import { resolveTarget } from './kit/resolve-target.js';
import { defineCommand, str } from './kit/spec.js';
import { parseTarget, targetRef } from './kit/target.js';

const RANGES = ['7d', '30d', '90d', '180d', '365d', 'all'] as const;
type Range = (typeof RANGES)[number];
const CHART_KINDS = ['pol', 'categories', 'reserves', 'inflation', 'voice'] as const;
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
  examples: ['chart bitcoin 365d categories'],
  options: [
    { type: 'entity', name: 'name', description: 'Project or exchange', required: true, missing: 'Which project or exchange should I chart?' },
    {
      type: 'choice',
      name: 'range',
      description: 'Time range (default 90 days)',
      choices: RANGES.map((r) => ({ value: r, label: r === 'all' ? 'all history' : r })),
      aliases: { '1w': '7d', '1m': '30d', '3m': '90d', '6m': '180d', '1y': '365d', '12m': '365d', max: 'all' },
      default: '90d',
      near: /^\d+[dwmy]$/,
    },
    { type: 'choice', name: 'kind', description: 'What to chart (default PoL)', choices: CHART_KINDS.map((k) => ({ value: k })) },
  ],
  async handler(ctx, args) {
    const range = (str(args, 'range') || '90d') as Range;
    const chart = (str(args, 'kind') || null) as ChartKind | null;
    const kindHint = chart && NEEDS_PROJECT.includes(chart) ? 'project' : chart && NEEDS_EXCHANGE.includes(chart) ? 'exchange' : undefined;
    const resolved = await resolveTarget(
      ctx,
      parseTarget(str(args, 'name')),
      (name) => ({ command: 'chart', args: { name, range, ...(chart ? { kind: chart } : {}) } }),
      kindHint,
    );
    if (!resolved.ok) return resolved.reply;
    const entity = resolved.entity;
    const what = chart ?? 'pol';
    const instead = inline`Try ${ref('chart', { name: targetRef(entity.kind, entity.slug), range, kind: 'pol' })}`;
    if (NEEDS_PROJECT.includes(what) && entity.kind !== 'project') return { kind: 'error', message: `The ${what} chart exists for projects only.`, hint: instead };
    if (NEEDS_EXCHANGE.includes(what) && entity.kind !== 'exchange') return { kind: 'error', message: 'The reserves chart exists for exchanges only.', hint: instead };
    const days = daysOf(range);
    const [record, data] = await Promise.all([
      ctx.source.record(entity.kind, entity.slug).catch((err: unknown) => {
        if (err instanceof UpstreamError && err.kind !== 'not_found') return undefined;
        throw err;
      }),
      fetchSeries(ctx, entity, what, days),
    ]);
    const named: EntityRef = { ...entity, name: record?.data.name ?? entity.name };
    const footer = footerOf([record, data.fetched], ctx.now());
    const skipped = skippedPoints(data.fetched);
    if (skipped) footer.notes = [...(footer.notes ?? []), skipped];
    if (data.empty) {
      return { kind: 'text', title: `${named.name}: ${data.label}`, text: `There is no ${data.label} history for ${named.name}${range === 'all' ? '' : ` in the last ${range}`}.`, footer };
    }
    const image = await chartImage(ctx, { ...data.spec, entity: named, days, simulated: footer.simulated });
    return {
      kind: 'text',
      title: `${named.name}: ${data.label}, ${range === 'all' ? 'all history' : range}`,
      text: data.summary,
      ...(image ? { image } : {}),
      ...(data.series ? { series: data.series } : {}),
      footer,
    };
  },
});


async function fetchSeries(ctx: CommandContext, entity: EntityRef, what: ChartKind, days: number | undefined) {
  const { source } = ctx;
  switch (what) {
    case 'categories': {
      const f = await source.byCategoryChart(entity.kind, entity.slug, days);
      return { fetched: f, empty: f.data.length === 0, series: undefined, label: 'category quality scores (higher is better)', summary: 'Category quality scores over time; higher is better.', spec: { kind: 'categories' as const, points: f.data } };
    }
    case 'reserves': {
      const f = await source.liabilitiesReservesChart(entity.slug, days);
      return { fetched: f, empty: f.data.length === 0, series: { label: 'Reserves / liabilities', values: f.data.map((p) => (p.liabilities > 0 ? p.reserves / p.liabilities : 0)) }, label: 'liabilities vs reserves', summary: 'Reserves and customer liabilities in USD; reserves above liabilities are safer.', spec: { kind: 'reserves' as const, points: f.data } };
    }
    case 'inflation': {
      const f = await source.inflationChart(entity.slug, days);
      return { fetched: f, empty: f.data.length === 0, series: { label: 'Inflation, % per year', values: f.data.map((p) => p.value) }, label: 'supply inflation', summary: 'Annualised supply inflation, % per year.', spec: { kind: 'inflation' as const, points: f.data } };
    }
    case 'voice': {
      const f = await source.voiceChart(entity.slug, days);
      return { fetched: f, empty: f.data.length === 0, series: { label: 'Proof of Voice', values: f.data.map((p) => p.value), direction: 'higher is better' as const }, label: 'Proof of Voice score', summary: 'Proof of Voice score over time; higher is better.', spec: { kind: 'voice' as const, points: f.data } };
    }
    default: {
      const f = await source.polChart(entity.kind, entity.slug, days);
      return { fetched: f, empty: f.data.length === 0, series: { label: 'PoL', values: f.data.map((p) => p.pol), direction: 'lower is safer' as const }, label: 'Probability of Loss (lower is safer)', summary: 'Probability of Loss over time; lower is safer.', spec: { kind: 'pol' as const, points: f.data } };
    }
  }
}

