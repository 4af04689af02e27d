import { describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import type { CardReply, Reply } from '../../../src/reply/model.js';
import type { SimProject } from '../../../src/sim/data/model.js';
import { ask, useRestAndToolsOnly, visibleText } from '../../helpers/core.js';
import { countText, scoreText, usdText } from '../../helpers/truth.js';

/**
 * Every section of a project, through REST (the in-process simulator) and through the tool server
 * alone, with the numbers checked against the simulator's dataset.
 */

const cores = useRestAndToolsOnly();

const last = <T>(a: readonly T[]) => a[a.length - 1]!;
const project = (core: Core, slug: string) => (core === cores.rest ? core.upstream.sim! : cores.toolSim).store.project(slug)! as SimProject;
const findings = (f: string[] | 'none_identified') => (f === 'none_identified' ? [] : f);

function card(r: Reply): CardReply {
  expect(r.kind, JSON.stringify(r).slice(0, 300)).toBe('card');
  return r as CardReply;
}
const section = (r: CardReply, title: string) => r.sections.find((s) => s.title === title);
const field = (r: CardReply, title: string, label: string) => section(r, title)?.fields?.find((f) => f.label === label)?.value;

describe.each(['REST', 'the tool server alone'] as const)('project sections through %s', (via) => {
  const core = () => (via === 'REST' ? cores.rest : cores.tools);
  const restOnly = (text: string | undefined) =>
    via === 'REST' ? expect(text).not.toBe('needs the REST service') : expect(text).toBe('needs the REST service');

  it.each(['security', 'financial', 'operational', 'reputational', 'regulatory'] as const)(
    '%s: the quality score, higher is better, never called PoL',
    async (category) => {
      const p = project(core(), 'pepe');
      const r = card(await ask(core(), `pepe ${category}`));
      const title = category[0]!.toUpperCase() + category.slice(1);
      expect(r.title).toMatch(new RegExp(`^Pepe( \\(PEPE\\))?: ${title}$`));
      expect(r.headline).toMatchObject({
        label: `${title} quality score`,
        value: `${scoreText(last(p.categories[category].scores))} / 100`,
        direction: 'higher is better',
      });
      expect(r.headline.change?.text).toContain('not the Probability of Loss');
      expect(r.headline.label).not.toMatch(/PoL|Probability/);
    },
  );

  it('security: certifications as the dataset has them, and audits where REST is configured', async () => {
    const p = project(core(), 'pepe');
    const r = card(await ask(core(), 'section pepe security'));
    expect(field(r, 'Certifications', 'ISO 27001')).toBe(p.certifications.isIso27001Present ? 'certified' : 'not certified');
    expect(field(r, 'Certifications', 'SOC 2')).toBe(p.certifications.isSoc2Present ? 'audited' : 'not audited');
    expect(field(r, 'Certifications', 'CCSS')).toBe(
      p.certifications.isCcssPresent ? `certified, level ${p.certifications.ccssLevel}` : 'not certified',
    );
    const audits = section(r, 'Security audits')!;
    if (via === 'REST') {
      expect(p.audits.length).toBeGreaterThan(0);
      expect(audits.items).toEqual(p.audits.map((a) => `${a.auditor}, ${a.date}`));
    } else restOnly(audits.empty);
  });

  it('financial: market data, and the supply inflation with its chart where REST is configured', async () => {
    const p = project(core(), 'aave');
    const r = card(await ask(core(), 'aave financial'));
    expect(field(r, 'Market', 'Market cap')).toBe(usdText(p.market.marketCap));
    if (via === 'REST') {
      expect(field(r, 'Supply', 'Supply inflation')).toBe(`+${last(p.inflation).toFixed(1)}% a year`);
      expect(r.image?.kind).toBe('png');
      expect(r.series?.values.at(-1)).toBe(last(p.inflation));
    } else {
      restOnly(section(r, 'Supply')?.empty);
      expect(r.image).toBeUndefined();
    }
  });

  it('operational: launch dates, team track record and GitHub commits', async () => {
    const p = project(core(), 'uniswap');
    const r = card(await ask(core(), 'uniswap operational'));
    expect(field(r, 'Age', 'Project launched')).toBe(p.launchedAt);
    expect(field(r, 'Age', 'Protocol launched')).toBe(p.protocolLaunchedAt);
    expect(field(r, 'Team track record', 'Relevant education')).toBe(p.team.isEducationRelevant ? 'yes' : 'no');
    expect(field(r, 'GitHub activity', 'Commits, last 7 days')).toBe(countText(p.github.commitsCount7d));
    // The heatmap drawn as an image, its alt text summing the dataset's days.
    const days = p.github.heatmap.flat();
    expect(r.image?.kind).toBe('png');
    expect(r.image?.alt).toBe(
      `GitHub commits of Uniswap, a day at a time over the last ${p.github.heatmap.length} weeks: ${days.reduce((a, b) => a + b, 0)} commits, at most ${Math.max(...days)} in a day. Simulated data.`,
    );
  });

  it('reputational: every red flag of the dataset, and the social-fraud signals', async () => {
    const p = project(core(), 'pepe');
    const r = card(await ask(core(), 'pepe reputational'));
    const flags = [
      ...findings(p.redFlags.mm).map((f) => `Market maker: ${f}`),
      ...findings(p.redFlags.investor).map((f) => `Investor: ${f}`),
    ];
    expect(flags.length).toBeGreaterThan(0);
    expect(section(r, 'Red flags')?.items).toEqual(flags);
    expect(field(r, 'Social-fraud signals', 'Telegram members')).toBe(countText(p.social.telegramMembers as number));
  });

  it('regulatory: registration, and a jurisdiction the upstream did not return said as such', async () => {
    const p = project(core(), 'pepe');
    expect(p.registration.jurisdictionQuality).toBe('not_returned');
    const r = card(await ask(core(), 'pepe regulatory'));
    expect(field(r, 'Registration', 'Public registration')).toBe(p.registration.isPublicRegistrationPresent ? 'present' : 'not found');
    expect(field(r, 'Registration', 'Jurisdiction')).toBe('not returned');
  });

  it('Proof of Voice: pros, cons and review excerpts; its score and chart where REST is configured', async () => {
    const p = project(core(), 'aave');
    const r = card(await ask(core(), 'aave voice'));
    expect(section(r, 'Pros')?.items).toEqual(findings(p.voice.pros));
    expect(section(r, 'Cons')?.items).toEqual(findings(p.voice.cons));
    const reviews = p.voice.reviews === 'none_identified' ? [] : p.voice.reviews;
    expect(reviews.length).toBeGreaterThan(0);
    expect(section(r, 'Expert reviews')?.items?.[0]).toBe(
      `${reviews[0]!.author}, ${reviews[0]!.publishedAt.slice(0, 10)}: “${reviews[0]!.content}”`,
    );
    if (via === 'REST') {
      expect(r.headline).toMatchObject({
        label: 'Proof of Voice score',
        value: `${scoreText(last(p.voiceScores))} / 100`,
        direction: 'higher is better',
      });
      expect(r.image?.kind).toBe('png');
    } else {
      expect(r.headline.value).toBe('unavailable');
      expect(r.headline.change?.text).toBe('The Proof of Voice score needs the REST service.');
    }
  });

  it('reviews in full, one click from the Proof of Voice card; none yet said as such', async () => {
    const voice = card(await ask(core(), 'aave voice'));
    const all = voice.actions?.find((a) => a.label === 'All reviews');
    expect(all?.command).toBe('reviews project:aave');
    const p = project(core(), 'aave');
    const reviews = p.voice.reviews === 'none_identified' ? [] : p.voice.reviews;
    const r = await ask(core(), all!.command!);
    expect(r.kind).toBe('text');
    const shown = (r as { sections?: { title: string; items?: string[] }[] }).sections ?? [];
    expect(shown.map((s) => [s.title, s.items?.[0]])).toEqual(
      reviews.map((x) => [`${x.author}, ${x.publishedAt.slice(0, 10)}`, x.content]),
    );
    const quiet = (via === 'REST' ? cores.rest.upstream.sim! : cores.toolSim).store.data.projects.find(
      (x) => x.voice.reviews === 'none_identified',
    );
    expect(quiet).toBeDefined();
    expect(await ask(core(), `reviews project:${quiet!.slug}`)).toMatchObject({
      kind: 'text',
      text: `There are no expert reviews of ${quiet!.name} yet.`,
    });
  });

  it('the project card offers every section as a button, each running the section command', async () => {
    const r = card(await ask(core(), 'project pepe'));
    const sections = (r.actions ?? []).filter((a) => a.run.command === 'section');
    expect(sections.map((a) => [a.label, a.command])).toEqual(
      ['security', 'financial', 'operational', 'reputational', 'regulatory', 'voice'].map((s, i) => [
        ['Security', 'Financial', 'Operational', 'Reputational', 'Regulatory', 'Proof of Voice'][i],
        `section project:pepe ${s}`,
      ]),
    );
  });
});

describe('bad input', () => {
  it('a section word with a typo gets the list of sections', async () => {
    const r = await ask(cores.rest, 'pepe sekurity');
    expect(r).toMatchObject({
      kind: 'error',
      message:
        "Unknown section 'sekurity': use one of security, financial, operational, reputational, regulatory, voice, transparency, solvency, dashboard, assets.",
    });
  });

  it('a missing section asks which, with the list', async () => {
    const r = await ask(cores.rest, 'section pepe');
    expect(r.kind).toBe('error');
    expect(visibleText(r)).toContain(
      'Which section? A project has security, financial, operational, reputational, regulatory, voice; an exchange has transparency, security, solvency, dashboard, assets.',
    );
  });

  it("an exchange's name with a project's section is told it is an exchange, never answered with a project", async () => {
    const r = await ask(cores.rest, 'binance voice');
    expect(r).toMatchObject({
      kind: 'error',
      message:
        'Binance is an exchange, and voice is a section of projects; an exchange has transparency, security, solvency, dashboard, assets.',
    });
    // A section both kinds have answers for the one the name is.
    const security = await ask(cores.rest, 'binance security');
    expect(security).toMatchObject({ kind: 'card', title: 'Binance: Security', subtitle: 'Exchange section' });
  });

  it("a project's name with an exchange's section is told which sections a project has", async () => {
    const r = await ask(cores.rest, 'pepe solvency');
    expect(r).toMatchObject({
      kind: 'error',
      message:
        'Pepe is a project, which has no solvency section: a project has security, financial, operational, reputational, regulatory, voice.',
    });
  });

  it('a project name ending in a word near a section is not taken for one', async () => {
    // "finance" is three edits from "financial": read as part of the name.
    const r = await ask(cores.rest, 'cream finance');
    expect(r.kind).not.toBe('error');
  });
});
