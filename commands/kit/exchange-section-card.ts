import {
  type EntityRef,
  type ExchangeDashboard,
  type ExchangeSecurity,
  type ExchangeSolvency,
  type ExchangeTransparency,
  isUnreadable,
  type ReservesPoint,
} from '../../src/api/domain.js';
import { unreadableText } from '../../src/api/rules.js';
import { firstRealFailure, okValue, type Settled } from '../../src/api/settle.js';
import type { Fetched } from '../../src/api/source.js';
import * as fmt from '../../src/reply/format.js';
import { footerOf } from '../../src/reply/footer.js';
import type { CardReply, Field, Headline, Section, TextReply } from '../../src/reply/model.js';
import { categoryLabel, partMissing, scoreDetail } from './card.js';
import { chartImage } from './chart-image.js';
import type { CommandContext } from './context.js';
import { EXCHANGE_SECTION_TITLE, exchangeSectionActions, exchangeSectionsOf } from './sections.js';
import { ifSupported, missingPart, type Part } from './parts.js';
import { scoreHeadline } from './score-headline.js';
import { targetRef } from './target.js';

/**
 * One section of an exchange as a card: transparency, security or solvency with its category
 * quality score as the headline (higher is better, never called PoL), or the exchange's dashboard
 * in one compact card. Every part is fetched in one parallel round and fails on its own; what the
 * configured source has no operation for says it needs the REST service.
 */

export type ExchangeSection = 'transparency' | 'security' | 'solvency' | 'dashboard';

const CHART_DAYS = 90;

export async function exchangeSectionCard(
  ctx: CommandContext,
  entity: EntityRef,
  section: ExchangeSection,
): Promise<CardReply | TextReply> {
  const { source } = ctx;
  const slug = entity.slug;
  if (section === 'dashboard' && !source.supports('dashboard', 'exchange')) {
    return {
      kind: 'text',
      title: `${entity.name}: Dashboard`,
      text: 'The dashboard needs the REST service; the tool server has no tool for it. The transparency, security and solvency sections show their quality scores.',
    };
  }
  const category = section === 'dashboard' ? undefined : section;
  const [score, record, facts, reserves] = await Promise.all([
    category ? ifSupported(ctx.source, 'exchange', 'categoryScore', () => source.categoryScore('exchange', slug, category)) : undefined,
    // The dashboard carries the exchange's record itself.
    section === 'dashboard' ? undefined : ifSupported(ctx.source, 'exchange', 'record', () => source.record('exchange', slug)),
    factsOf(ctx, slug, section),
    section === 'solvency'
      ? ifSupported(ctx.source, 'exchange', 'liabilitiesReservesChart', () => source.liabilitiesReservesChart(slug, CHART_DAYS))
      : undefined,
  ]);
  const parts = [score, record, facts, reserves].filter((p): p is Part => p !== undefined);
  const failures = parts.flatMap((p) => (p.ok ? [] : [p.error]));
  if (parts.length > 0 && failures.length === parts.length) throw firstRealFailure(failures);
  const rec = record
    ? okValue(record)?.data
    : section === 'dashboard' && facts?.ok
      ? (facts.value.data as ExchangeDashboard).record
      : undefined;
  const named: EntityRef = { ...entity, name: rec?.name ?? entity.name };
  const footer = footerOf(
    parts.flatMap((p) => (p.ok ? [p.value] : [])),
    ctx.now(),
  );
  const series = reserves?.ok ? reserves.value.data : [];
  const image =
    series.length > 0
      ? await chartImage(ctx, { kind: 'reserves', entity: named, points: series, days: CHART_DAYS, simulated: footer.simulated })
      : undefined;
  const headline =
    section === 'dashboard'
      ? dashboardHeadline(facts as Settled<Fetched<ExchangeDashboard>> | undefined)
      : scoreHeadline(EXCHANGE_SECTION_TITLE[section], score);
  const sections = sectionsOf(section, facts, series).filter((s) => s.fields?.length || s.items);
  const name = targetRef('exchange', slug);
  return {
    kind: 'card',
    entity: named,
    title: `${named.name}: ${EXCHANGE_SECTION_TITLE[section]}`,
    subtitle: section === 'dashboard' ? 'Exchange dashboard' : 'Exchange section',
    headline,
    sections,
    ...(image ? { image } : {}),
    ...(series.length > 0
      ? {
          series: {
            label: 'Reserve coverage, 90 days',
            values: series.map((p) => (p.liabilities > 0 ? p.reserves / p.liabilities : 0)),
            direction: 'higher is better' as const,
          },
        }
      : {}),
    footer,
    actions: [
      ...(section === 'solvency' && source.supports('liabilitiesReservesChart', 'exchange')
        ? [{ label: 'Reserves, 1 year', run: { command: 'chart', args: { name, range: '365d', kind: 'reserves' } } }]
        : []),
      ...exchangeSectionActions(
        entity,
        section,
        exchangeSectionsOf((m, k) => source.supports(m, k)),
      ),
    ],
  };
}

function factsOf(ctx: CommandContext, slug: string, section: ExchangeSection): Promise<Part | undefined> {
  const { source } = ctx;
  switch (section) {
    case 'transparency':
      return ifSupported(ctx.source, 'exchange', 'exchangeTransparency', () => source.exchangeTransparency(slug));
    case 'security':
      return ifSupported(ctx.source, 'exchange', 'exchangeSecurity', () => source.exchangeSecurity(slug));
    case 'solvency':
      return ifSupported(ctx.source, 'exchange', 'exchangeSolvency', () => source.exchangeSolvency(slug));
    case 'dashboard':
      return ifSupported(ctx.source, 'exchange', 'dashboard', () => source.dashboard(slug));
  }
}

const dateText = (iso: string | null) => (iso ? iso.slice(0, 10) : 'not reported');

function sectionsOf(section: ExchangeSection, part: Part | undefined, series: readonly ReservesPoint[]): Section[] {
  const data = part?.ok ? part.value.data : undefined;
  switch (section) {
    case 'transparency': {
      const t = data as ExchangeTransparency | undefined;
      if (!t) return [missingPart('Disclosures', part)];
      return [
        {
          title: 'Disclosures',
          fields: [
            { label: 'Proof of reserves', value: fmt.yesNo(t.proofOfReserves, 'published', 'not published') },
            {
              label: 'Auditor',
              value: t.auditor ? fmt.oneLine(t.auditor, 60) : 'none named',
              ...(t.lastAuditAt ? { detail: `last audit ${dateText(t.lastAuditAt)}` } : {}),
            },
            { label: 'Team', value: fmt.yesNo(t.teamPublic, 'public', 'not public') },
            { label: 'Order book', value: fmt.yesNo(t.orderBookPublic, 'public', 'not public') },
          ],
        },
      ];
    }
    case 'security': {
      const s = data as ExchangeSecurity | undefined;
      if (!s) return [missingPart('Safeguards', part)];
      const bounty =
        s.bugBounty === true && s.bugBountyMaxUsd !== null ? `yes, up to ${fmt.usd(s.bugBountyMaxUsd)}` : fmt.yesNo(s.bugBounty);
      return [
        {
          title: 'Safeguards',
          fields: [
            { label: 'Bug bounty', value: bounty },
            {
              label: 'Penetration testing',
              value: fmt.yesNo(s.penetrationTesting),
              ...(s.lastPenetrationTestAt ? { detail: `last test ${dateText(s.lastPenetrationTestAt)}` } : {}),
            },
            { label: 'ISO 27001', value: fmt.yesNo(s.iso27001, 'certified', 'not certified') },
            { label: 'SOC 2', value: fmt.yesNo(s.soc2, 'audited', 'not audited') },
          ],
        },
      ];
    }
    case 'solvency': {
      const s = data as ExchangeSolvency | undefined;
      const out: Section[] = [];
      if (!s) out.push(missingPart('Reserves against liabilities', part));
      else if (s.proofOfReserves === false)
        out.push({
          title: 'Reserves against liabilities',
          items: [],
          empty: 'no proof of reserves published, so there is nothing to compare',
        });
      else {
        out.push({
          title: 'Reserves against liabilities',
          fields: [
            { label: 'Reserves', value: fmt.usd(s.reservesUsd) },
            { label: 'Liabilities', value: fmt.usd(s.liabilitiesUsd) },
            { label: 'Coverage', value: coverageText(s.reserveRatio), detail: 'reserves ÷ liabilities, higher is safer' },
          ],
        });
      }
      if (series.length > 1) {
        const first = series[0]!;
        const last = series[series.length - 1]!;
        const ratio = (p: ReservesPoint) => (p.liabilities > 0 ? p.reserves / p.liabilities : null);
        const [a, b] = [ratio(first), ratio(last)];
        if (a !== null && b !== null)
          out.push({
            title: 'Over 90 days',
            fields: [
              {
                label: 'Coverage',
                value: `${fmt.percent(a * 100)} → ${fmt.percent(b * 100)}`,
                detail: b >= a ? 'steady or better' : 'down',
              },
            ],
          });
      }
      return out;
    }
    case 'dashboard': {
      const d = data as ExchangeDashboard | undefined;
      if (!d) return [missingPart('Dashboard', part)];
      const about: Field[] = [];
      if (d.record.type) about.push({ label: 'Type', value: d.record.type === 'dex' ? 'decentralized' : 'centralized' });
      if (d.record.country) about.push({ label: 'Jurisdiction', value: d.record.country });
      if (d.record.established !== undefined) about.push({ label: 'Established', value: fmt.year(d.record.established) });
      if (d.listedAssetsCount !== null) about.push({ label: 'Listed assets', value: fmt.count(d.listedAssetsCount) });
      const out: Section[] = [{ title: 'About', fields: about }];
      if (d.categories.length)
        out.push({
          title: 'Category quality scores',
          direction: 'higher is better',
          fields: d.categories.map((c) => ({
            label: categoryLabel(c.category),
            value: fmt.score(c.score.score),
            detail: scoreDetail(c.score),
          })),
        });
      if (d.reserves) {
        out.push({
          title: 'Reserves',
          fields: [
            { label: 'Reserves', value: fmt.usd(d.reserves.reservesUsd) },
            { label: 'Liabilities', value: fmt.usd(d.reserves.liabilitiesUsd) },
            { label: 'Coverage', value: coverageText(d.reserves.reserveRatio) },
          ],
        });
      }
      return out;
    }
  }
}

/** A reserve ratio (1.08) as coverage (108%); unreadable said as such. */
function coverageText(ratio: Parameters<typeof fmt.usd>[0]): string {
  if (ratio === null || ratio === undefined) return 'not reported';
  if (isUnreadable(ratio)) return unreadableText(ratio);
  return fmt.percent(Number(ratio) * 100);
}

function dashboardHeadline(part: Settled<Fetched<ExchangeDashboard>> | undefined): Headline {
  const label = 'Probability of Loss';
  if (!part?.ok)
    return {
      label,
      value: 'unavailable',
      direction: 'lower is safer',
      change: { text: part ? `The dashboard ${partMissing(part.error)}.` : 'The dashboard needs the REST service.', trend: 'flat' },
    };
  const d = part.value.data;
  return {
    label,
    value: fmt.pol(d.pol),
    ...(d.rating !== null && !isUnreadable(d.rating) ? { rating: d.rating } : {}),
    direction: 'lower is safer',
  };
}
