import type { CategoryBreakdown, EntityRef, ExchangeRecord, PolPoint, PolValue, ProjectRecord, RedFlags } from '../src/api/domain.js';
import type { Fetched } from '../src/api/source.js';
import * as fmt from '../src/reply/format.js';
import type { Action, CardReply, Field, Headline, Reply, Section } from '../src/reply/model.js';
import { chartImage } from './chart-image.js';
import type { CommandContext } from './context.js';
import { footerOf } from './footer.js';
import type { Target } from './grammar.js';
import { targetRef } from './parse.js';
import { resolveTarget } from './resolve-target.js';
import { settle, valueOf, type Settled } from './settle.js';

const DAY = 86_400;
const CATEGORY_LABELS: Record<string, string> = {
  security: 'Security',
  financial: 'Financial',
  operational: 'Operational',
  reputational: 'Reputational',
  regulatory: 'Regulatory',
  transparency: 'Transparency',
  solvency: 'Solvency',
};

export const categoryLabel = (c: string) => CATEGORY_LABELS[c] ?? c.charAt(0).toUpperCase() + c.slice(1);

export async function cardCommand(ctx: CommandContext, target: Target): Promise<Reply> {
  const resolved = await resolveTarget(ctx, target, (ref) => ref);
  if (!resolved.ok) return resolved.reply;
  return resolved.entity.kind === 'project' ? projectCard(ctx, resolved.entity) : exchangeCard(ctx, resolved.entity);
}

/** PoL 30 days ago from a daily series ending today: the card's "change over 30 days". */
export function change30d(points: PolPoint[], current: number): Headline['change'] | undefined {
  const last = points[points.length - 1];
  if (!last) return undefined;
  const then = [...points].reverse().find((p) => p.timestamp <= last.timestamp - 30 * DAY);
  if (!then) return undefined;
  const delta = current - then.pol;
  const trend = Math.abs(delta) < 1e-6 ? 'flat' : delta > 0 ? 'worse' : 'better';
  return { text: `${fmt.polChange(delta)} over 30 days (${trend === 'flat' ? 'unchanged' : trend})`, trend };
}

function headline(pol: PolValue | undefined, chart: Settled<Fetched<PolPoint[]>>): Headline {
  if (!pol) {
    // Only a tool server without REST lacks overall PoL; the card still has the category scores.
    return { label: 'Probability of Loss', value: 'unavailable', direction: 'lower is safer', change: { text: 'Overall PoL is not available through the tool server.', trend: 'flat' } };
  }
  const change = chart.ok ? change30d(chart.value.data, pol.pol) : undefined;
  return {
    label: 'Probability of Loss',
    value: fmt.pol(pol.pol),
    rating: pol.rating,
    direction: 'lower is safer',
    ...(change ? { change } : {}),
  };
}

export function scoresSection(breakdown: Settled<Fetched<CategoryBreakdown>>): Section {
  if (!breakdown.ok) return { title: 'Category quality scores', direction: 'higher is better', items: [], empty: 'unavailable right now' };
  return {
    title: 'Category quality scores',
    direction: 'higher is better',
    fields: breakdown.value.data.categories.map((c) => ({
      label: categoryLabel(c.category),
      value: fmt.score(c.score.score),
      detail: [c.score.rating, c.score.confidence ? `${c.score.confidence.toLowerCase()} confidence` : ''].filter(Boolean).join(' · '),
    })),
  };
}

export function flagsSection(flags: Settled<Fetched<RedFlags>>): Section {
  if (!flags.ok) return { title: 'Red flags', items: [], empty: 'unavailable right now' };
  const items = [
    ...flags.value.data.marketMaker.map((f) => `Market maker: ${f}`),
    ...flags.value.data.investor.map((f) => `Investor: ${f}`),
  ];
  return { title: 'Red flags', items, empty: 'none identified' };
}

/**
 * The entity's primary number must load; without it there is no card, only a clear error. The one
 * exception is a source that cannot offer it at all (the tool server alone).
 */
function required<T>(s: Settled<T>): T | undefined {
  if (s.ok) return s.value;
  if (s.error.kind === 'not_available') return undefined;
  throw s.error;
}

function cardActions(entity: EntityRef): Action[] {
  const ref = targetRef(entity.kind, entity.slug);
  const actions: Action[] = [
    { label: 'PoL, 1 year', command: `chart ${ref} 365d pol` },
    { label: 'Category trends', command: `chart ${ref} 90d categories` },
  ];
  if (entity.kind === 'project') actions.unshift({ label: 'Red flags & signals', command: `flags ${ref}` });
  return actions;
}

async function projectCard(ctx: CommandContext, entity: EntityRef): Promise<CardReply> {
  const { source } = ctx;
  // One parallel round: every request the card needs starts now.
  const [pol, chart, cats, flags, record, index] = await Promise.all([
    settle(source.polCurrent('project', entity.slug)),
    settle(source.polChart('project', entity.slug, 90)),
    settle(source.byCategory('project', entity.slug)),
    settle(source.redFlags(entity.slug)),
    settle(source.record('project', entity.slug)),
    settle(source.indexPol('project')),
  ]);
  const current = required(pol);
  const rec = valueOf(record)?.data as ProjectRecord | undefined;
  const name = rec?.name ?? entity.name;
  const ticker = rec?.ticker ?? entity.ticker;
  const context: Field[] = [];
  const idx = valueOf(index);
  if (idx) context.push({ label: 'Index PoL (all projects)', value: fmt.pol(idx.data.pol), detail: idx.data.rating });
  if (rec?.category) context.push({ label: 'Category', value: rec.category });
  if (rec?.chains.length) context.push({ label: 'Chains', value: rec.chains.slice(0, 4).join(', ') + (rec.chains.length > 4 ? ` and ${rec.chains.length - 4} more` : '') });

  const market = rec?.market;
  const sections: Section[] = [
    { title: 'Context', fields: context },
    scoresSection(cats),
    flagsSection(flags),
    market
      ? {
          title: 'Market',
          fields: [
            { label: 'Price', value: fmt.price(market.price) },
            { label: 'Market cap', value: fmt.usd(market.marketCap) },
            ...(market.volume24h !== undefined ? [{ label: '24h volume', value: fmt.usd(market.volume24h) }] : []),
          ],
        }
      : { title: 'Market', items: [], empty: 'unavailable right now' },
  ];
  const parts = [pol, chart, cats, flags, record, index].flatMap((s) => (s.ok ? [s.value] : []));
  const footer = footerOf(parts, ctx.now());
  const image = chart.ok
    ? await chartImage(ctx, {
        kind: 'pol',
        entity: { ...entity, name },
        points: chart.value.data,
        days: 90,
        simulated: footer.simulated,
      })
    : undefined;
  return {
    kind: 'card',
    entity: { ...entity, name, ...(ticker ? { ticker } : {}) },
    title: `${name}${ticker ? ` (${ticker})` : ''}`,
    subtitle: 'Project',
    headline: headline(current?.data, chart),
    sections: sections.filter((s) => s.fields?.length || s.items),
    ...(image ? { image } : {}),
    ...(chart.ok ? { series: polSeries(chart.value.data) } : {}),
    footer,
    actions: cardActions(entity),
  };
}

const polSeries = (points: PolPoint[]) => ({ label: 'PoL, 90 days', values: points.map((p) => p.pol), direction: 'lower is safer' as const });

async function exchangeCard(ctx: CommandContext, entity: EntityRef): Promise<CardReply> {
  const { source } = ctx;
  const [pol, chart, cats, record, reserves, index] = await Promise.all([
    settle(source.polCurrent('exchange', entity.slug)),
    settle(source.polChart('exchange', entity.slug, 90)),
    settle(source.byCategory('exchange', entity.slug)),
    settle(source.record('exchange', entity.slug)),
    settle(source.liabilitiesReservesChart(entity.slug, 90)),
    settle(source.indexPol('exchange')),
  ]);
  const current = required(pol);
  const rec = valueOf(record)?.data as ExchangeRecord | undefined;
  const name = rec?.name ?? entity.name;

  const context: Field[] = [];
  const idx = valueOf(index);
  if (idx) context.push({ label: 'Index PoL (all exchanges)', value: fmt.pol(idx.data.pol), detail: idx.data.rating });
  if (rec?.rank !== undefined) context.push({ label: 'Rank', value: `#${rec.rank}` });
  if (rec?.tradingVolume24h !== undefined) context.push({ label: '24h volume', value: fmt.usd(rec.tradingVolume24h) });
  if (rec?.country) context.push({ label: 'Jurisdiction', value: rec.country });

  const safeguards: Field[] = [];
  if (rec?.markers.proofOfReserves !== undefined) safeguards.push({ label: 'Proof of reserves', value: fmt.yesNo(rec.markers.proofOfReserves) });
  if (rec?.markers.bugBounty !== undefined) safeguards.push({ label: 'Bug bounty', value: fmt.yesNo(rec.markers.bugBounty) });
  if (rec?.markers.penetrationTesting !== undefined) safeguards.push({ label: 'Penetration testing', value: fmt.yesNo(rec.markers.penetrationTesting) });

  const series = valueOf(reserves)?.data ?? [];
  const latest = series[series.length - 1];
  const sections: Section[] = [
    { title: 'Context', fields: context },
    scoresSection(cats),
    safeguards.length ? { title: 'Safeguards', fields: safeguards } : { title: 'Safeguards', items: [], empty: 'unavailable right now' },
  ];
  if (latest) {
    sections.push({
      title: 'Reserves',
      fields: [
        { label: 'Reserves', value: fmt.usd(latest.reserves) },
        { label: 'Liabilities', value: fmt.usd(latest.liabilities) },
        { label: 'Coverage', value: latest.liabilities > 0 ? fmt.percent((latest.reserves / latest.liabilities) * 100) : '—' },
      ],
    });
  }
  const parts = [pol, chart, cats, record, reserves, index].flatMap((s) => (s.ok ? [s.value] : []));
  const footer = footerOf(parts, ctx.now());
  const named = { ...entity, name };
  const image = latest
    ? await chartImage(ctx, { kind: 'reserves', entity: named, points: series, days: 90, simulated: footer.simulated })
    : chart.ok
      ? await chartImage(ctx, { kind: 'pol', entity: named, points: chart.value.data, days: 90, simulated: footer.simulated })
      : undefined;
  return {
    kind: 'card',
    entity: named,
    title: name,
    subtitle: `Exchange${rec?.type === 'dex' ? ' (decentralized)' : ''}`,
    headline: headline(current?.data, chart),
    sections: sections.filter((s) => s.fields?.length || s.items),
    ...(image ? { image } : {}),
    ...(chart.ok ? { series: polSeries(chart.value.data) } : {}),
    footer,
    actions: cardActions(entity),
  };
}
