import {
  type CategoryBreakdown,
  type Checked,
  type EntityRef,
  type ExchangeRecord,
  isUnreadable,
  type PolPoint,
  type PolValue,
  type ProjectRecord,
  type QualityScore,
  readable,
  type RedFlags,
  type Registration,
  type ReservesPoint,
} from '../../src/api/domain.js';
import type { UpstreamError } from '../../src/api/errors.js';
import { unreadableText } from '../../src/api/rules.js';
import { firstRealFailure, okValue, settle, type Settled } from '../../src/api/settle.js';
import type { Fetched } from '../../src/api/source.js';
import * as fmt from '../../src/reply/format.js';
import { footerOf } from '../../src/reply/footer.js';
import type { Action, CardReply, Field, Headline, ReplyImage, Section } from '../../src/reply/model.js';
import { chartImage } from './chart-image.js';
import { exchangeSectionActions, exchangeSectionsOf, sectionActions } from './sections.js';
import type { CommandContext } from './context.js';
import { targetRef } from './target.js';

const DAY = 86_400;
const CARD_DAYS = 90;
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

const POL_LABEL = 'Probability of Loss';

export function headline(pol: Settled<Fetched<PolValue>>, chart: Settled<Fetched<PolPoint[]>>): Headline {
  if (!pol.ok) {
    // The tool server alone has no overall PoL; otherwise the PoL failed on its own and the card shows the rest.
    const text =
      pol.error.kind === 'not_available'
        ? 'Overall PoL is not available through the tool server.'
        : `Overall PoL ${partMissing(pol.error)}.`;
    return {
      label: POL_LABEL,
      value: pol.error.kind === 'bad_response' ? 'unreadable' : 'unavailable',
      direction: 'lower is safer',
      change: { text, trend: 'flat' },
    };
  }
  const value = pol.value.data.pol;
  const current = readable(value);
  const change = chart.ok && current !== undefined ? change30d(chart.value.data, current) : undefined;
  const rating = readable(pol.value.data.rating);
  return {
    label: POL_LABEL,
    value: fmt.pol(value),
    ...(rating ? { rating } : {}),
    direction: 'lower is safer',
    ...(change
      ? { change }
      : current === undefined
        ? { change: { text: 'The PoL the service sent could not be read, so it is not shown.', trend: 'flat' as const } }
        : {}),
  };
}

/** Points a chart leaves out are worth a note once there are more than a few. */
const FEW_POINTS = 3;

export function skippedPoints(series: Fetched<unknown[]>): string | undefined {
  const rows = series.meta.unreadable?.rows ?? 0;
  return rows > FEW_POINTS ? `Chart: ${rows} points could not be read and are left out.` : undefined;
}

/** Why a part of a reply is empty, in a few words: the service was down, or sent what could not be read. */
export function partMissing(error: UpstreamError): string {
  if (error.kind === 'bad_response') return 'could not be read (the service sent an unexpected answer)';
  if (error.kind === 'not_available') return 'needs the REST service';
  // With two sources configured, which one failed tells the reader whether it is worth waiting.
  const who = error.route.startsWith('mcp') ? 'the tool server' : 'the REST service';
  return error.kind === 'rate_limited' ? `unavailable right now (${who} is busy)` : `unavailable right now (${who} is not answering)`;
}

const TIERS: Record<number, string> = { 1: 'tier 1 (strictest)', 2: 'tier 2', 3: 'tier 3', 4: 'tier 4 (least strict)' };

/** Public registration and jurisdiction tier; `not_returned` or empty is "not returned", never tier 0. */
export function registrationFields(r: Registration): Field[] {
  return [
    { label: 'Public registration', value: fmt.yesNo(r.publicRegistration, 'present', 'not found') },
    {
      label: 'Jurisdiction',
      value:
        r.jurisdictionTier === null
          ? 'not returned'
          : isUnreadable(r.jurisdictionTier)
            ? fmt.count(r.jurisdictionTier)
            : TIERS[r.jurisdictionTier]!,
      ...(r.jurisdiction ? { detail: r.jurisdiction } : {}),
    },
  ];
}

/** A quality score's rating and confidence, each only when it could be read. */
export function scoreDetail(score: QualityScore): string {
  const rating = isUnreadable(score.rating) ? `rating ${fmt.rating(score.rating)}` : score.rating;
  const confidence =
    score.confidence === undefined
      ? ''
      : isUnreadable(score.confidence)
        ? `confidence ${fmt.rating(score.confidence)}`
        : `${score.confidence.toLowerCase()} confidence`;
  return [rating, confidence].filter(Boolean).join(' · ');
}

export function scoresSection(breakdown: Settled<Fetched<CategoryBreakdown>>): Section {
  if (!breakdown.ok)
    return { title: 'Category quality scores', direction: 'higher is better', items: [], empty: partMissing(breakdown.error) };
  const rows = breakdown.value.meta.unreadable?.rows ?? 0;
  return {
    title: 'Category quality scores',
    direction: 'higher is better',
    fields: [
      ...breakdown.value.data.categories.map((c) => ({
        label: categoryLabel(c.category),
        value: fmt.score(c.score.score),
        detail: scoreDetail(c.score),
      })),
      ...(rows > 0 ? [{ label: 'Not shown', value: `${rows} ${rows === 1 ? 'category' : 'categories'} could not be read` }] : []),
    ],
  };
}

export function flagsSection(flags: Settled<Fetched<RedFlags>>): Section {
  if (!flags.ok) return { title: 'Red flags', items: [], empty: partMissing(flags.error) };
  const { marketMaker, investor } = flags.value.data;
  const list = (label: string, found: Checked<string[]>) =>
    isUnreadable(found) ? [`${label} flags: ${unreadableText(found)}`] : found.map((f) => `${label}: ${f}`);
  return { title: 'Red flags', items: [...list('Market maker', marketMaker), ...list('Investor', investor)], empty: 'none identified' };
}

/** A part of the card that could not be filled: for now, or because this source has no such data. */
const unavailable = (title: string, supported = true): Section => ({
  title,
  items: [],
  empty: supported ? 'unavailable right now' : 'needs the REST service',
});

/**
 * A card shows whatever could be read. It fails whole only when the entity does not exist, when
 * the key is refused, or when no part at all could be fetched: then the PoL's error says why,
 * unless it is only that this source has no PoL and another part failed for a real reason.
 */
function assertSomething(pol: Settled<unknown>, parts: Settled<unknown>[]): void {
  if (pol.ok) return;
  if (pol.error.kind === 'not_found' || pol.error.kind === 'unauthorized' || pol.error.kind === 'invalid_input') throw pol.error;
  if (!parts.some((p) => p.ok)) throw firstRealFailure([pol, ...parts].flatMap((p) => (p.ok ? [] : [p.error])));
}

/** Follow-ups the configured source can answer; a button that could only fail is not offered. */
export function cardActions(ctx: CommandContext, entity: EntityRef): Action[] {
  const name = targetRef(entity.kind, entity.slug);
  const { source } = ctx;
  const actions: Action[] = [];
  if (source.supports('byMetric', entity.kind)) actions.push({ label: 'Why?', run: { command: 'why', args: { name } } });
  if (entity.kind === 'project' && source.supports('redFlags'))
    actions.push({ label: 'Red flags & signals', run: { command: 'flags', args: { name } } });
  if (source.supports('polChart', entity.kind))
    actions.push({ label: 'PoL, 1 year', run: { command: 'chart', args: { name, range: '365d', kind: 'pol' } } });
  if (source.supports('byCategoryChart', entity.kind))
    actions.push({ label: 'Category trends', run: { command: 'chart', args: { name, range: '90d', kind: 'categories' } } });
  if (entity.kind === 'project') actions.push(...sectionActions(entity));
  else
    actions.push(
      ...exchangeSectionActions(
        entity,
        undefined,
        exchangeSectionsOf((m, k) => source.supports(m, k)),
      ),
    );
  return actions;
}

/** What differs between a project's card and an exchange's: the rest of the card is shared. */
interface Profile {
  /** Fetched in the same parallel round as the common parts. */
  extra: Promise<Settled<Fetched<unknown>>>;
  title(name: string): string;
  subtitle: string;
  context(): Field[];
  sections(): Section[];
  image(named: EntityRef, simulated: boolean, chart: Settled<Fetched<PolPoint[]>>): Promise<ReplyImage | undefined>;
}

export async function entityCard(ctx: CommandContext, entity: EntityRef): Promise<CardReply> {
  const { source } = ctx;
  const kind = entity.kind;
  // One parallel round: every request the card needs starts now.
  const profileOf = entity.kind === 'project' ? projectProfile : exchangeProfile;
  const common = Promise.all([
    settle(source.polCurrent(kind, entity.slug)),
    settle(source.polChart(kind, entity.slug, CARD_DAYS)),
    settle(source.byCategory(kind, entity.slug)),
    settle(source.record(kind, entity.slug)),
    settle(source.indexPol(kind)),
  ]);
  const pending = profileOf(ctx, entity);
  // Without a PoL history (the tool server alone), the card draws the category quality history
  // the dynamic tools supply; asked for in the same round, and only then.
  const history = source.supports('polChart', kind) ? undefined : settle(source.byCategoryChart(kind, entity.slug, CARD_DAYS));
  const [[pol, chart, cats, record, index], extra, categories] = await Promise.all([common, pending.extra, history]);
  assertSomething(pol, [cats, record, extra, ...(categories ? [categories] : [])]);
  const rec = okValue(record)?.data;
  const name = rec?.name ?? entity.name;
  const profile = pending.complete(rec, extra);
  const context: Field[] = [];
  const idx = okValue(index);
  if (idx) context.push({ label: `Index PoL (all ${kind}s)`, value: fmt.pol(idx.data.pol), detail: fmt.rating(idx.data.rating) });
  context.push(...profile.context());
  const sections = [{ title: 'Context', fields: context }, scoresSection(cats), ...profile.sections()];
  const parts = [pol, chart, cats, record, index, extra, ...(categories ? [categories] : [])].flatMap((s) => (s.ok ? [s.value] : []));
  let footer = footerOf(parts, ctx.now());
  const skipped = chart.ok ? skippedPoints(chart.value) : undefined;
  if (skipped) footer = { ...footer, notes: [...(footer.notes ?? []), skipped] };
  const named: EntityRef = {
    ...entity,
    name,
    ...(rec?.kind === 'project' && rec.ticker ? { ticker: rec.ticker } : entity.ticker ? { ticker: entity.ticker } : {}),
  };
  let image = await profile.image(named, footer.simulated, chart);
  if (!image && categories?.ok && categories.value.data.length > 0) {
    image = await chartImage(ctx, {
      kind: 'categories',
      entity: named,
      points: categories.value.data,
      days: CARD_DAYS,
      simulated: footer.simulated,
    });
    if (image)
      footer = {
        ...footer,
        notes: [...(footer.notes ?? []), 'Chart: category quality scores (higher is better); the tool server has no PoL history.'],
      };
  }
  return {
    kind: 'card',
    entity: named,
    title: profile.title(name),
    subtitle: profile.subtitle,
    headline: headline(pol, chart),
    sections: sections.filter((s) => s.fields?.length || s.items),
    ...(image ? { image } : {}),
    ...(chart.ok && chart.value.data.length > 0
      ? { series: { label: 'PoL, 90 days', values: chart.value.data.map((p) => p.pol), direction: 'lower is safer' as const } }
      : {}),
    footer,
    actions: cardActions(ctx, entity),
  };
}

type Pending = {
  extra: Promise<Settled<Fetched<unknown>>>;
  complete(rec: unknown, extra: Settled<Fetched<unknown>>): Omit<Profile, 'extra'>;
};

const polImage = (ctx: CommandContext) => async (named: EntityRef, simulated: boolean, chart: Settled<Fetched<PolPoint[]>>) =>
  chart.ok ? chartImage(ctx, { kind: 'pol', entity: named, points: chart.value.data, days: CARD_DAYS, simulated }) : undefined;

function projectProfile(ctx: CommandContext, entity: EntityRef): Pending {
  return {
    extra: settle(ctx.source.redFlags(entity.slug)),
    complete(recValue, extra) {
      const rec = recValue as ProjectRecord | undefined;
      const ticker = rec?.ticker ?? entity.ticker;
      const market = rec?.market;
      return {
        title: (name) => `${name}${ticker ? ` (${ticker})` : ''}`,
        subtitle: 'Project',
        context: () => {
          const fields: Field[] = [];
          if (rec?.category) fields.push({ label: 'Category', value: rec.category });
          if (rec?.chains.length)
            fields.push({
              label: 'Chains',
              value: rec.chains.slice(0, 4).join(', ') + (rec.chains.length > 4 ? ` and ${rec.chains.length - 4} more` : ''),
            });
          return fields;
        },
        sections: () => [
          flagsSection(extra as Settled<Fetched<RedFlags>>),
          market
            ? {
                title: 'Market',
                fields: [
                  { label: 'Price', value: fmt.price(market.price) },
                  { label: 'Market cap', value: fmt.usd(market.marketCap) },
                  ...(market.volume24h !== undefined ? [{ label: '24h volume', value: fmt.usd(market.volume24h) }] : []),
                ],
              }
            : unavailable('Market', ctx.source.supports('record', 'project')),
        ],
        image: polImage(ctx),
      };
    },
  };
}

function exchangeProfile(ctx: CommandContext, entity: EntityRef): Pending {
  return {
    extra: settle(ctx.source.liabilitiesReservesChart(entity.slug, CARD_DAYS)),
    complete(recValue, extra) {
      const rec = recValue as ExchangeRecord | undefined;
      const series = (okValue(extra as Settled<Fetched<ReservesPoint[]>>)?.data ?? []) as ReservesPoint[];
      const latest = series[series.length - 1];
      return {
        title: (name) => name,
        subtitle: `Exchange${rec?.type === 'dex' ? ' (decentralized)' : ''}`,
        context: () => {
          const fields: Field[] = [];
          if (rec?.rank !== undefined)
            fields.push({ label: 'Rank', value: isUnreadable(rec.rank) ? fmt.count(rec.rank) : `#${fmt.count(rec.rank)}` });
          if (rec?.tradingVolume24h !== undefined) fields.push({ label: '24h volume', value: fmt.usd(rec.tradingVolume24h) });
          if (rec?.country) fields.push({ label: 'Jurisdiction', value: rec.country });
          return fields;
        },
        sections: () => {
          const safeguards: Field[] = [];
          if (rec?.markers.proofOfReserves !== undefined)
            safeguards.push({ label: 'Proof of reserves', value: fmt.yesNo(rec.markers.proofOfReserves) });
          if (rec?.markers.bugBounty !== undefined) safeguards.push({ label: 'Bug bounty', value: fmt.yesNo(rec.markers.bugBounty) });
          if (rec?.markers.penetrationTesting !== undefined)
            safeguards.push({ label: 'Penetration testing', value: fmt.yesNo(rec.markers.penetrationTesting) });
          const out: Section[] = [
            safeguards.length
              ? { title: 'Safeguards', fields: safeguards }
              : unavailable('Safeguards', ctx.source.supports('record', 'exchange')),
          ];
          if (latest) {
            out.push({
              title: 'Reserves',
              fields: [
                { label: 'Reserves', value: fmt.usd(latest.reserves) },
                { label: 'Liabilities', value: fmt.usd(latest.liabilities) },
                { label: 'Coverage', value: latest.liabilities > 0 ? fmt.percent((latest.reserves / latest.liabilities) * 100) : '—' },
              ],
            });
          }
          return out;
        },
        image: async (named, simulated, chart) =>
          latest
            ? chartImage(ctx, { kind: 'reserves', entity: named, points: series, days: CARD_DAYS, simulated })
            : polImage(ctx)(named, simulated, chart),
      };
    },
  };
}
