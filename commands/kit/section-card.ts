import {
  type Checked,
  type EntityKind,
  type EntityRef,
  type ExpertReview,
  isUnreadable,
  type ProjectSectionFacts,
  type ValuePoint,
} from '../../src/api/domain.js';
import { UpstreamError } from '../../src/api/errors.js';
import { unreadableText } from '../../src/api/rules.js';
import { firstRealFailure, okValue, settle, type Settled } from '../../src/api/settle.js';
import type { DataMethod, Fetched } from '../../src/api/source.js';
import * as fmt from '../../src/reply/format.js';
import { footerOf } from '../../src/reply/footer.js';
import type { CardReply, Field, Headline, Reply, Section } from '../../src/reply/model.js';
import { inline, ref } from '../../src/reply/inline.js';
import { socialFields } from '../../src/reply/social.js';
import { flagsSection, partMissing, registrationFields } from './card.js';
import { chartImage } from './chart-image.js';
import type { CommandContext } from './context.js';
import { exchangeInstead } from './exchange-instead.js';
import { resolveTarget } from './resolve-target.js';
import { type Args, type ChoiceOption, type HandlerContext, str } from './spec.js';
import { parseTarget, targetRef } from './target.js';
import {
  ALL_SECTION_WORDS,
  EXCHANGE_SECTION_TITLE,
  EXCHANGE_SECTION_WORDS,
  type ExchangeSectionWord,
  isExchangeSection,
  isProjectSection,
  SECTION_ALIASES,
  SECTION_TITLE,
  SECTION_WORDS,
  sectionActions,
  UPSTREAM,
  type SectionWord,
} from './sections.js';
import { exchangeSectionCard } from './exchange-section-card.js';
import { ifSupported, missingPart, type Part } from './parts.js';
import { scoreHeadline } from './score-headline.js';
import { showAssets } from './assets.js';

/**
 * One section of a project as a card: the section's category quality score as its headline (a
 * quality score, higher is better, never called PoL), what stands behind it, and for the
 * financial and Proof of Voice sections their history chart. Every part is fetched in one
 * parallel round and fails on its own.
 */

const CHART_DAYS = 90;
/** A review is a paragraph; the card shows its start and a way to read it whole. */
const REVIEW_EXCERPT = 220;
const MAX_REVIEWS = 3;

export async function sectionCard(ctx: CommandContext, entity: EntityRef, section: SectionWord): Promise<CardReply> {
  const { source } = ctx;
  const slug = entity.slug;

  // One parallel round: the score, the section's own facts and the parts behind it.
  const [score, facts, record, body] = await Promise.all([
    section === 'voice' ? undefined : ifSupported(source, 'project', 'categoryScore', () => source.categoryScore('project', slug, section)),
    ifSupported(source, 'project', 'projectSection', () => source.projectSection(slug, UPSTREAM[section])),
    settle(source.record('project', slug)),
    sectionBody(ctx, slug, section),
  ]);
  const factsValue = facts ? okValue(facts)?.data : undefined;
  const rec = okValue(record)?.data;
  const named: EntityRef = {
    ...entity,
    name: rec?.name ?? entity.name,
    ...(rec?.kind === 'project' && rec.ticker ? { ticker: rec.ticker } : {}),
  };
  const parts: Part[] = [record, ...(score ? [score] : []), ...(facts ? [facts] : []), ...body.parts];
  const failures = parts.flatMap((p) => (p.ok ? [] : [p.error]));
  // Nothing at all to show: the first real failure says why (not found, the service down, ...).
  if (failures.length === parts.length) throw firstRealFailure(failures);
  const footer = footerOf(
    parts.flatMap((p) => (p.ok ? [p.value] : [])),
    ctx.now(),
  );
  const headline = section === 'voice' ? voiceHeadline(factsValue, facts, body.chart) : scoreHeadline(SECTION_TITLE[section], score);
  const image =
    body.chart?.ok && body.chart.value.data.length > 0 && body.chartKind
      ? await chartImage(ctx, {
          kind: body.chartKind,
          entity: named,
          points: body.chart.value.data,
          days: CHART_DAYS,
          simulated: footer.simulated,
        })
      : body.heatmap && body.heatmap.length > 0
        ? await chartImage(ctx, {
            kind: 'heatmap',
            entity: named,
            weeks: body.heatmap,
            days: undefined,
            rangeLabel: `${body.heatmap.length} weeks`,
            simulated: footer.simulated,
          })
        : undefined;
  const sections = [...body.sections(factsValue, facts)].filter((s) => s.fields?.length || s.items);
  return {
    kind: 'card',
    entity: named,
    title: `${named.name}${named.ticker ? ` (${named.ticker})` : ''}: ${SECTION_TITLE[section]}`,
    subtitle: 'Project section',
    headline,
    sections,
    ...(image ? { image } : {}),
    ...(body.chart?.ok && body.chart.value.data.length > 0 && body.seriesLabel
      ? {
          series: {
            label: body.seriesLabel,
            values: body.chart.value.data.map((p) => p.value),
            ...(section === 'voice' ? { direction: 'higher is better' as const } : {}),
          },
        }
      : {}),
    footer,
    actions: [
      ...(section === 'voice' && body.parts.length
        ? [{ label: 'All reviews', run: { command: 'reviews', args: { name: targetRef('project', entity.slug) } } }]
        : []),
      ...sectionActions(entity, section),
    ],
  };
}

function voiceHeadline(
  facts: ProjectSectionFacts | undefined,
  part: Part | undefined,
  chart: Settled<Fetched<ValuePoint[]>> | undefined,
): Headline {
  const label = 'Proof of Voice score';
  const latest = chart?.ok ? chart.value.data.at(-1)?.value : undefined;
  const value: Checked<number> | null | undefined = facts?.voiceScore ?? latest;
  if (value === null || value === undefined) {
    const why = part && !part.ok ? partMissing(part.error) : 'needs the REST service';
    return {
      label,
      value: 'unavailable',
      direction: 'higher is better',
      change: { text: `The Proof of Voice score ${why}.`, trend: 'flat' },
    };
  }
  return {
    label,
    value: `${fmt.score(value)} / 100`,
    direction: 'higher is better',
    change: { text: 'What experts and the community say, as a score; not the Probability of Loss.', trend: 'flat' },
  };
}

interface Body {
  parts: Part[];
  sections(facts: ProjectSectionFacts | undefined, factsPart: Part | undefined): Section[];
  chart?: Settled<Fetched<ValuePoint[]>>;
  chartKind?: 'inflation' | 'voice';
  /** GitHub's weeks of daily commits, drawn as a grid when there is no history chart. */
  heatmap?: number[][];
  seriesLabel?: string;
}

const present = (...parts: (Part | undefined)[]): Part[] => parts.filter((p): p is Part => p !== undefined);

async function sectionBody(ctx: CommandContext, slug: string, section: SectionWord): Promise<Body> {
  const { source } = ctx;
  const get = <T>(method: DataMethod, fetch: () => Promise<Fetched<T>>) => ifSupported(source, 'project', method, fetch);
  switch (section) {
    case 'security': {
      const certs = await get('certifications', () => source.certifications(slug));
      return {
        parts: present(certs),
        sections: (facts, factsPart) => [
          certs?.ok
            ? {
                title: 'Certifications',
                fields: [
                  { label: 'ISO 27001', value: fmt.yesNo(certs.value.data.iso27001, 'certified', 'not certified') },
                  { label: 'CCSS', value: ccssText(certs.value.data.ccss, certs.value.data.ccssLevel) },
                  { label: 'SOC 2', value: fmt.yesNo(certs.value.data.soc2, 'audited', 'not audited') },
                ],
              }
            : missingPart('Certifications', certs),
          facts
            ? {
                title: 'Security audits',
                items: facts.audits.map((a) => `${fmt.oneLine(a.auditor, 60)}${a.date ? `, ${a.date.slice(0, 10)}` : ''}`),
                empty: 'none reported',
              }
            : missingPart('Security audits', factsPart),
        ],
      };
    }
    case 'financial': {
      const [market, chart] = await Promise.all([
        get('marketData', () => source.marketData(slug)),
        get('inflationChart', () => source.inflationChart(slug, CHART_DAYS)),
      ]);
      return {
        parts: present(market, chart),
        ...(chart ? { chart: chart as Settled<Fetched<ValuePoint[]>> } : {}),
        chartKind: 'inflation',
        seriesLabel: 'Inflation, % per year',
        sections: (facts, factsPart) => {
          const m = market?.ok ? market.value.data : undefined;
          const fields: Field[] = m
            ? [
                {
                  label: 'Price',
                  value: fmt.price(m.price),
                  ...(m.priceChange24h !== undefined && m.priceChange24h !== null
                    ? { detail: `${signedPercent(m.priceChange24h)} in 24 h` }
                    : {}),
                },
                { label: 'Market cap', value: fmt.usd(m.marketCap) },
                ...(m.volume24h !== undefined ? [{ label: '24h volume', value: fmt.usd(m.volume24h) }] : []),
              ]
            : [];
          const inflation: Field[] =
            facts && facts.inflationRate !== null
              ? [{ label: 'Supply inflation', value: `${signedPercent(facts.inflationRate)} a year` }]
              : [];
          return [
            m ? { title: 'Market', fields } : missingPart('Market', market),
            inflation.length
              ? { title: 'Supply', fields: inflation }
              : facts
                ? { title: 'Supply', items: [], empty: 'no inflation figure reported' }
                : missingPart('Supply', factsPart),
          ];
        },
      };
    }
    case 'operational': {
      const [age, team, github] = await Promise.all([
        get('age', () => source.age(slug)),
        get('team', () => source.team(slug)),
        get('githubActivity', () => source.githubActivity(slug)),
      ]);
      return {
        parts: present(age, team, github),
        ...(github?.ok ? { heatmap: github.value.data.heatmap } : {}),
        sections: () => [
          age?.ok
            ? {
                title: 'Age',
                fields: [
                  { label: 'Project launched', value: dateText(age.value.data.projectLaunchedAt) },
                  { label: 'Protocol launched', value: dateText(age.value.data.protocolLaunchedAt) },
                ],
              }
            : missingPart('Age', age),
          team?.ok
            ? {
                title: 'Team track record',
                fields: [
                  { label: 'Relevant education', value: fmt.yesNo(team.value.data.educationRelevant) },
                  { label: 'Relevant work experience', value: fmt.yesNo(team.value.data.workExperienceRelevant) },
                  { label: 'Relevant business experience', value: fmt.yesNo(team.value.data.businessExperienceRelevant) },
                ],
              }
            : missingPart('Team track record', team),
          github?.ok
            ? { title: 'GitHub activity', fields: githubFields(github.value.data.commitsCount7d, github.value.data.heatmap) }
            : missingPart('GitHub activity', github),
        ],
      };
    }
    case 'reputational': {
      const [flags, social] = await Promise.all([
        get('redFlags', () => source.redFlags(slug)),
        get('socialFraud', () => source.socialFraud(slug)),
      ]);
      return {
        parts: present(flags, social),
        sections: () => [
          flags ? flagsSection(flags) : missingPart('Red flags', flags),
          social?.ok
            ? (() => {
                const fields = socialFields(social.value.data.metrics);
                return fields.length
                  ? { title: 'Social-fraud signals', fields }
                  : { title: 'Social-fraud signals', items: [], empty: 'none reported' };
              })()
            : missingPart('Social-fraud signals', social),
        ],
      };
    }
    case 'regulatory': {
      const registration = await get('registration', () => source.registration(slug));
      return {
        parts: present(registration),
        sections: () => [
          registration?.ok
            ? { title: 'Registration', fields: registrationFields(registration.value.data) }
            : missingPart('Registration', registration),
        ],
      };
    }
    case 'voice': {
      const [prosCons, reviews, chart] = await Promise.all([
        get('voiceProsCons', () => source.voiceProsCons(slug)),
        get('voiceReviews', () => source.voiceReviews(slug)),
        get('voiceChart', () => source.voiceChart(slug, CHART_DAYS)),
      ]);
      return {
        parts: present(prosCons, reviews, chart),
        ...(chart ? { chart } : {}),
        chartKind: 'voice',
        seriesLabel: 'Proof of Voice',
        sections: () => [
          prosCons?.ok ? findingsSection('Pros', prosCons.value.data.pros) : missingPart('Pros', prosCons),
          prosCons?.ok ? findingsSection('Cons', prosCons.value.data.cons) : missingPart('Cons', prosCons),
          reviews?.ok ? reviewsSection(reviews.value.data) : missingPart('Expert reviews', reviews),
        ],
      };
    }
  }
}

function ccssText(present: Checked<boolean> | null, level: Checked<number> | null): string {
  if (isUnreadable(present)) return unreadableText(present);
  if (present !== true) return fmt.yesNo(present, 'certified', 'not certified');
  if (level === null) return 'certified';
  return `certified, level ${fmt.count(level)}`;
}

function githubFields(commits: Checked<number> | null, heatmap: number[][]): Field[] {
  const fields: Field[] = [{ label: 'Commits, last 7 days', value: fmt.count(commits) }];
  if (heatmap.length > 0) {
    const days = heatmap.flat();
    const active = days.filter((d) => d > 0).length;
    fields.push({
      label: `Last ${heatmap.length} weeks`,
      value: `${fmt.count(days.reduce((a, b) => a + b, 0))} commits`,
      detail: `on ${active} of ${days.length} days`,
    });
  }
  return fields;
}

function findingsSection(title: string, found: Checked<string[]>): Section {
  if (isUnreadable(found)) return { title, items: [], empty: unreadableText(found) };
  return { title, items: found.map((f) => fmt.oneLine(f, 200)), empty: 'none reported' };
}

/** Author, date and the start of each review: a card is read at a glance, never a wall of text. */
function reviewsSection(reviews: ExpertReview[]): Section {
  const shown = reviews.slice(0, MAX_REVIEWS).map((r) => {
    const date = r.publishedAt ? `, ${r.publishedAt.slice(0, 10)}` : '';
    return `${fmt.oneLine(r.author, 60)}${date}: “${fmt.oneLine(r.content, REVIEW_EXCERPT)}”`;
  });
  if (reviews.length > MAX_REVIEWS) shown.push(`…and ${reviews.length - MAX_REVIEWS} more`);
  return { title: 'Expert reviews', items: shown, empty: 'no reviews yet' };
}

const dateText = (iso: string | null) => (iso ? iso.slice(0, 10) : 'not reported');

function signedPercent(value: Checked<number>): string {
  if (isUnreadable(value)) return unreadableText(value);
  return `${value > 0 ? '+' : value < 0 ? '−' : ''}${fmt.percent(Math.abs(value))}`;
}

/** The section choice, shared by this command and the card's trailing form (`/pol pepe security`, `/pol binance solvency`). */
export const SECTION_OPTION: ChoiceOption = {
  type: 'choice',
  name: 'section',
  description: 'Section of the project or exchange',
  choices: ALL_SECTION_WORDS.map((s) => ({
    value: s,
    label: isProjectSection(s) ? SECTION_TITLE[s] : EXCHANGE_SECTION_TITLE[s as ExchangeSectionWord],
  })),
  aliases: SECTION_ALIASES,
  typos: true,
};

/** A project's sections only, for the command that is about projects. */
export const PROJECT_SECTION_OPTION: ChoiceOption = {
  ...SECTION_OPTION,
  description: 'Section of the project',
  choices: SECTION_WORDS.map((s) => ({ value: s, label: SECTION_TITLE[s] })),
};

/** An exchange's sections only, for the command that is about exchanges. */
export const EXCHANGE_SECTION_OPTION: ChoiceOption = {
  ...SECTION_OPTION,
  description: 'Section of the exchange',
  choices: EXCHANGE_SECTION_WORDS.map((s) => ({ value: s, label: EXCHANGE_SECTION_TITLE[s] })),
};

/**
 * The section of whatever `name` resolves to; a choice re-runs `command` with the pick. A word
 * only one kind has (`voice`, `solvency`) looks among that kind; `security` among both, unless the
 * command itself is for one kind (`exchange`).
 */
export async function showSection(ctx: HandlerContext, args: Args, command: string, only?: EntityKind): Promise<Reply> {
  const section = str(args, 'section');
  const kind = only ?? (!isExchangeSection(section) ? 'project' : !isProjectSection(section) ? 'exchange' : undefined);
  const target = parseTarget(str(args, 'name'), kind);
  const rerun = (name: string) => ({ command, args: { name, section } });
  const resolved = target.explicit && kind && target.explicit.kind !== kind ? undefined : await resolveTarget(ctx, target, rerun, kind);
  if (resolved && !resolved.ok) {
    const lookedElsewhere = resolved.reply.reason === 'not_found' && !target.explicit && !only;
    if (lookedElsewhere && kind === 'exchange') {
      // `/pol pepe solvency`: a project asked for an exchange's section is told which sections it has.
      const other = await ctx.resolver.resolve(target.text, 'project').catch(() => undefined);
      if (other?.status === 'resolved') return wrongKind(other.entity, 'project', section);
    }
    const instead =
      lookedElsewhere && kind === 'project'
        ? await exchangeInstead(
            ctx,
            target.text,
            `${section} is a section of projects; an exchange has ${EXCHANGE_SECTION_WORDS.join(', ')}`,
          )
        : undefined;
    return instead ?? resolved.reply;
  }
  const entity = resolved?.entity ?? { kind: target.explicit!.kind, slug: target.explicit!.slug, name: target.explicit!.slug };
  if (entity.kind === 'exchange') {
    if (section === 'assets') return showAssets(ctx, { name: targetRef('exchange', entity.slug) });
    if (!isExchangeSection(section)) return wrongKind(entity, 'exchange', section);
    return exchangeSectionCard(ctx, entity, section as Exclude<ExchangeSectionWord, 'assets'>).catch((err: unknown) => {
      // Without the exchange list a typed name is taken as a slug; one the service does not know is said as such.
      if (err instanceof UpstreamError && err.kind === 'not_found' && !target.explicit && !ctx.source.supports('list', 'exchange'))
        return unknownSlug(entity.slug);
      throw err;
    });
  }
  if (!isProjectSection(section)) return wrongKind(entity, 'project', section);
  return sectionCard(ctx, entity, section);
}

function unknownSlug(slug: string): Reply {
  return {
    kind: 'error',
    message: `No exchange has the slug “${slug}”.`,
    hint: inline`Exchange names cannot be looked up through the tool server, so exchanges are named by their slug (often the name in lower case, with dashes: gate-io), as in ${ref('section', { name: 'gate-io', section: 'transparency' })}.`,
  };
}

function wrongKind(entity: EntityRef, kind: EntityKind, section: string): Reply {
  const words = kind === 'exchange' ? EXCHANGE_SECTION_WORDS : SECTION_WORDS;
  const command = kind === 'exchange' ? 'exchange' : 'project';
  return {
    kind: 'error',
    message: `${entity.name} is ${kind === 'exchange' ? 'an exchange' : 'a project'}, which has no ${section} section: ${kind === 'exchange' ? 'an exchange' : 'a project'} has ${words.join(', ')}.`,
    hint: inline`See its card with ${ref(command, { name: targetRef(kind, entity.slug) })}.`,
  };
}
