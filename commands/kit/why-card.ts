import { type EntityRef, isUnreadable, type MetricScore } from '../../src/api/domain.js';
import { okValue, settle } from '../../src/api/settle.js';
import * as fmt from '../../src/reply/format.js';
import { footerOf } from '../../src/reply/footer.js';
import type { Action, CardReply, Field, Reply, Section } from '../../src/reply/model.js';
import { headline, partMissing } from './card.js';
import { chartImage } from './chart-image.js';
import type { CommandContext } from './context.js';
import { targetRef } from './target.js';

/**
 * Why an entity's PoL is what it is: its metrics ranked by how much each pushes the PoL up (a
 * heavy metric with a poor quality score) or holds it down (a heavy metric with a good one), in
 * plain words, with the history of the metrics that push it up most.
 */

const SHOWN = 3;
/** A quality score from which a metric counts as holding the PoL down. */
const GOOD = 50;
const CHART_DAYS = 90;

/** How much a metric adds to the risk: its weight times how far its quality falls short of 100. */
const drag = (m: ScoredMetric) => m.weight * (100 - m.score);
/** How much it holds the risk down: its weight times its quality. */
const lift = (m: ScoredMetric) => m.weight * m.score;

interface ScoredMetric {
  metric: string;
  label: string;
  category?: string;
  weight: number;
  score: number;
  rating?: string;
}

function readableMetric(m: MetricScore, evenWeight: number): ScoredMetric | undefined {
  if (isUnreadable(m.score.score)) return undefined;
  const weight = m.weight === undefined || isUnreadable(m.weight) ? evenWeight : m.weight;
  return {
    metric: m.metric,
    label: m.label,
    ...(m.category ? { category: m.category } : {}),
    weight,
    score: m.score.score,
    ...(isUnreadable(m.score.rating) ? {} : { rating: m.score.rating }),
  };
}

export async function whyCard(ctx: CommandContext, entity: EntityRef): Promise<Reply> {
  const { source } = ctx;
  const { kind, slug } = entity;
  if (!source.supports('byMetric', kind)) {
    return {
      kind: 'text',
      title: `Why this PoL: ${entity.name}`,
      text: 'The metric breakdown behind a PoL needs the REST service; the tool server has no tool for it.',
    };
  }
  // One parallel round: the PoL, its breakdown, the breakdown's history and the record.
  const [pol, chart, breakdown, history, record] = await Promise.all([
    settle(source.polCurrent(kind, slug)),
    settle(source.polChart(kind, slug, CHART_DAYS)),
    settle(source.byMetric(kind, slug)),
    settle(source.byMetricChart(kind, slug, CHART_DAYS)),
    settle(source.record(kind, slug)),
  ]);
  if (!breakdown.ok) throw breakdown.error;
  const all = breakdown.value.data.metrics;
  const metrics = all.map((m) => readableMetric(m, 1 / Math.max(all.length, 1))).filter((m): m is ScoredMetric => m !== undefined);
  const name = okValue(record)?.data.name ?? entity.name;
  const named: EntityRef = { ...entity, name };
  const up = [...metrics].sort((a, b) => drag(b) - drag(a)).slice(0, SHOWN);
  // Only a metric better than middling holds anything down; a poor one merely pushes up less.
  const down = metrics
    .filter((m) => !up.includes(m) && m.score >= GOOD)
    .sort((a, b) => lift(b) - lift(a))
    .slice(0, SHOWN);
  const field = (m: ScoredMetric): Field => ({
    label: m.label,
    value: `${fmt.score(m.score)} / 100`,
    detail: [m.rating, m.category, `weight ${fmt.percent(m.weight * 100, 0)}`].filter(Boolean).join(' · '),
  });
  const parts = [pol, chart, breakdown, history, record].flatMap((s) => (s.ok ? [s.value] : []));
  const footer = footerOf(parts, ctx.now());
  const unread = all.length - metrics.length;
  if (unread > 0)
    footer.notes = [
      ...(footer.notes ?? []),
      `${unread} ${unread === 1 ? 'metric' : 'metrics'} could not be read and ${unread === 1 ? 'is' : 'are'} left out.`,
    ];
  const image =
    history.ok && history.value.data.length > 0 && up.length > 0
      ? await chartImage(ctx, {
          kind: 'metrics',
          entity: named,
          points: history.value.data,
          metrics: up.map((m) => ({ key: m.metric, label: m.label })),
          days: CHART_DAYS,
          simulated: footer.simulated,
        })
      : undefined;
  const reply: CardReply = {
    kind: 'card',
    entity: named,
    title: `Why this PoL: ${name}`,
    subtitle: kind === 'project' ? 'Project' : 'Exchange',
    headline: headline(pol, chart),
    sections: (
      [
        {
          title: 'Pushing PoL up',
          direction: 'higher is better',
          fields: up.map(field),
          ...(up.length ? {} : { items: [], empty: 'no metric could be read' }),
        },
        down.length
          ? { title: 'Holding PoL down', direction: 'higher is better', fields: down.map(field) }
          : { title: 'Holding PoL down', items: [], empty: `no metric scores ${GOOD} or more` },
        {
          title: 'How to read this',
          items: [
            `Each metric has a quality score from 0 to 100 (higher is better) and a weight. A heavy metric with a poor score pushes the Probability of Loss up most; a heavy one with a good score holds it down. ${metrics.length} metrics in all.`,
          ],
        },
      ] as Section[]
    ).filter((s) => s.fields?.length || s.items),
    ...(image ? { image } : {}),
    footer: history.ok ? footer : { ...footer, notes: [...(footer.notes ?? []), `Metric history ${partMissing(history.error)}.`] },
    actions: whyActions(entity),
  };
  return reply;
}

function whyActions(entity: EntityRef): Action[] {
  const name = targetRef(entity.kind, entity.slug);
  return [
    { label: 'Score card', run: { command: entity.kind, args: { name } } },
    { label: 'Category trends', run: { command: 'chart', args: { name, range: '90d', kind: 'categories' } } },
  ];
}
