import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import type { CardReply, ChoiceReply, Reply, TableReply, TextReply } from '../../../src/reply/model.js';
import type { SimStore } from '../../../src/sim/data/store.js';
import { ratingForPol } from '../../../src/sim/data/scales.js';
import { ask, demoCore, slackText, visibleText } from '../../helpers/core.js';
import { countText, polText, ppText, scoreText, usdText } from '../../helpers/truth.js';

let core: Core;
let store: SimStore;
beforeAll(async () => {
  core = await demoCore();
  store = core.upstream.sim!.store;
});
afterAll(() => core.close());

const last = <T>(a: readonly T[]) => a[a.length - 1]!;
const asCard = (r: Reply) => {
  expect(r.kind, JSON.stringify(r).slice(0, 300)).toBe('card');
  return r as CardReply;
};
const section = (r: CardReply | TextReply, title: string) => (r.sections ?? []).find((s) => s.title === title)!;
const field = (r: CardReply | TextReply, title: string, label: string) => section(r, title).fields!.find((f) => f.label === label)!;

function expectClean(reply: Reply) {
  const text = visibleText(reply);
  expect(text).not.toMatch(/\bNaN\b|\bundefined\b|\bnull\b|\[object Object\]/);
}

describe('score cards', () => {
  it('builds an exchange card from the simulator numbers, with directions, footer and chart', async () => {
    const card = asCard(await ask(core, 'binance'));
    const e = store.exchange('binance')!;
    expect(card.entity).toMatchObject({ kind: 'exchange', slug: 'binance' });
    expect(card.title).toBe('Binance');
    expect(card.headline).toMatchObject({
      label: 'Probability of Loss',
      value: polText(last(e.pol)),
      rating: ratingForPol(last(e.pol)),
      direction: 'lower is safer',
    });
    const delta = last(e.pol) - e.pol[e.pol.length - 31]!;
    expect(card.headline.change?.text).toContain(ppText(delta));
    const scores = section(card, 'Category quality scores');
    expect(scores.direction).toBe('higher is better');
    expect(scores.fields!.map((f) => f.label)).toEqual(['Security', 'Transparency', 'Solvency']);
    expect(field(card, 'Category quality scores', 'Solvency').value).toBe(scoreText(last(e.categories.solvency.scores)));
    expect(field(card, 'Safeguards', 'Proof of reserves').value).toBe('yes');
    expect(field(card, 'Safeguards', 'Bug bounty').value).toBe(e.markers.isBugBountyPresent ? 'yes' : 'no');
    expect(field(card, 'Reserves', 'Reserves').value).toBe(usdText(last(e.reserves)));
    expect(field(card, 'Context', 'Index PoL (all exchanges)').value).toBe(polText(last(store.indexPol('exchange'))));
    expect(card.footer).toMatchObject({ sources: ['rest'], simulated: true });
    expect(card.footer.stale).toBeUndefined();
    expect(Math.abs(card.footer.asOf - Date.now())).toBeLessThan(60_000);
    expect(card.image?.kind).toBe('png');
    expectClean(card);
  });

  it('builds a project card: PoL, index, five scores, red flags and market data', async () => {
    const card = asCard(await ask(core, 'pepe'));
    const p = store.project('pepe')!;
    expect(card.title).toBe('Pepe (PEPE)');
    expect(card.headline.value).toBe(polText(last(p.pol)));
    expect(section(card, 'Category quality scores').fields!.map((f) => f.label)).toEqual([
      'Security',
      'Financial',
      'Operational',
      'Reputational',
      'Regulatory',
    ]);
    expect(field(card, 'Category quality scores', 'Regulatory').detail).toContain(p.categories.regulatory.confidence.toLowerCase());
    const flags = section(card, 'Red flags');
    const expected = [
      ...(p.redFlags.mm as string[]).map((f) => `Market maker: ${f}`),
      ...(p.redFlags.investor === 'none_identified' ? [] : p.redFlags.investor.map((f) => `Investor: ${f}`)),
    ];
    expect(flags.items).toEqual(expected);
    expect(field(card, 'Market', 'Market cap').value).toBe(usdText(p.market.marketCap));
    expect(field(card, 'Context', 'Index PoL (all projects)').value).toBe(polText(last(store.indexPol('project'))));
    expect(card.series?.values).toHaveLength(91);
    expect(card.actions?.map((a) => a.command)).toContain('flags project:pepe');
    expectClean(card);
  });

  it('shows none_identified as "none identified", never as a failure', async () => {
    const card = asCard(await ask(core, 'bitcoin'));
    expect(section(card, 'Red flags')).toMatchObject({ items: [], empty: 'none identified' });
  });

  it('handles scores at the edges', async () => {
    const top = asCard(await ask(core, 'ethereum'));
    expect(section(top, 'Category quality scores').fields!.every((f) => f.value === '100')).toBe(true);
    const bottom = asCard(await ask(core, 'terra classic'));
    expect(bottom.headline.rating).toBe('D');
    expect(section(bottom, 'Category quality scores').fields!.every((f) => f.value === '0')).toBe(true);
    expectClean(bottom);
  });

  it('reads "project" and "exchange" as the kind to look for', async () => {
    expect(asCard(await ask(core, 'exchange dydx')).entity).toMatchObject({ kind: 'exchange', slug: 'dydx' });
    expect(asCard(await ask(core, 'project dydx')).entity).toMatchObject({ kind: 'project', slug: 'dydx' });
    expect(asCard(await ask(core, 'exchange gate.io')).entity.slug).toBe('gate-io');
  });
});

describe('ambiguous and unknown names', () => {
  it('offers a choice, never a card, for a name that matches several', async () => {
    const r = (await ask(core, 'shiba')) as ChoiceReply;
    expect(r.kind).toBe('choice');
    expect(r.reason).toBe('ambiguous');
    expect(r.options.map((o) => o.command).sort()).toEqual(['project:shiba-inu', 'project:shibaswap']);
    const across = (await ask(core, 'dydx')) as ChoiceReply;
    expect(across.options.map((o) => o.command).sort()).toEqual(['exchange:dydx', 'project:dydx']);
    expect(across.options.map((o) => o.description)).toEqual(expect.arrayContaining(['dYdX · exchange', 'dYdX (DYDX) · project']));
  });

  it('answers a chosen option with the card of exactly that entity', async () => {
    const r = (await ask(core, 'shiba')) as ChoiceReply;
    const chosen = r.options.find((o) => o.command === 'project:shibaswap')!;
    const card = asCard(await ask(core, chosen.command!));
    expect(card.entity).toMatchObject({ kind: 'project', slug: 'shibaswap' });
    expect(card.title).toBe('ShibaSwap (BONE)');
  });

  it('keeps the subcommand and its options in every choice', async () => {
    const chart = (await ask(core, 'chart lido 365d categories')) as ChoiceReply;
    expect(chart.options.map((o) => o.command).sort()).toEqual([
      'chart project:lido-dao 365d categories',
      'chart project:lido-staked-ether 365d categories',
    ]);
    const flags = (await ask(core, 'flags shiba')) as ChoiceReply;
    expect(flags.options.map((o) => o.command)).toContain('flags project:shiba-inu');
    const compare = (await ask(core, 'compare kraken, lido')) as ChoiceReply;
    expect(compare.kind).toBe('choice');
    expect(compare.options.map((o) => o.command)).toContain('compare kraken, project:lido-dao');
  });

  it('answers unknown names with suggestions and no card', async () => {
    const r = (await ask(core, 'etherium')) as ChoiceReply;
    expect(r).toMatchObject({ kind: 'choice', reason: 'not_found' });
    expect(r.options.map((o) => o.command)).toContain('project:ethereum');
    const none = (await ask(core, 'qqqzzzxxx')) as ChoiceReply;
    expect(none).toMatchObject({ kind: 'choice', reason: 'not_found', options: [] });
    expect(slackText(none.prompt)).toContain('/pol search');
  });

  it('never answers hostile input with a crash or an empty reply', async () => {
    for (const input of [
      '../health',
      'a/b',
      '%2e%2e',
      '?x=1',
      '#',
      'x'.repeat(10_000),
      '🚀',
      'bit\u0000coin',
      '<!channel>',
      '@everyone',
      '```',
      'project:../x',
    ]) {
      const r = await ask(core, input);
      expect(['card', 'choice', 'error', 'text', 'table']).toContain(r.kind);
      expect(visibleText(r).length).toBeGreaterThan(0);
      expectClean(r);
    }
  });
});

describe('other commands', () => {
  it('shows flags, signals and registration, with not_returned said as such', async () => {
    const r = (await ask(core, 'flags monero')) as TextReply;
    expect(r.kind).toBe('text');
    expect(field(r, 'Registration', 'Jurisdiction').value).toBe('not returned');
    const p = store.project('monero')!;
    expect(field(r, 'Social-fraud signals', 'Telegram members').value).toBe(countText(p.social.telegramMembers as number));
    const sol = (await ask(core, 'flags solana')) as TextReply;
    const tier = store.project('solana')!.registration.jurisdictionQuality as number;
    expect(field(sol, 'Registration', 'Jurisdiction').value).toContain(`tier ${tier}`);
    expectClean(r);
  });

  it('draws charts for each kind and range, and explains when there is no data', async () => {
    const pol = (await ask(core, 'chart bitcoin 365d')) as TextReply;
    expect(pol.kind).toBe('text');
    expect(pol.image?.kind).toBe('png');
    expect(pol.series?.values).toHaveLength(366);
    expect(last(pol.series!.values)).toBe(last(store.project('bitcoin')!.pol));
    for (const text of [
      'chart kraken 30d categories',
      'chart binance 7d reserves',
      'chart solana all inflation',
      'chart solana 90d voice',
    ]) {
      const r = (await ask(core, text)) as TextReply;
      expect(r.kind, text).toBe('text');
      expect(r.image, text).toBeDefined();
    }
    const empty = (await ask(core, 'chart gemini 30d reserves')) as TextReply;
    expect(empty.text).toMatch(/no liabilities vs reserves history/);
    expect((await ask(core, 'chart binance 30d inflation')).kind).toBe('choice');
  });

  it('compares entities side by side in the same units', async () => {
    const t = (await ask(core, 'compare binance, kraken, okx')) as TableReply;
    expect(t.kind).toBe('table');
    expect(t.columns.map((c) => c.label)).toEqual(['Measure', 'Binance', 'Kraken', 'OKX']);
    const polRow = t.rows.find((r) => r.measure === 'PoL (lower is safer)')!;
    expect(polRow.e1).toBe(polText(last(store.exchange('kraken')!.pol)));
    const mixed = (await ask(core, 'compare bitcoin, binance')) as TableReply;
    expect(mixed.rows.find((r) => r.measure?.startsWith('Financial'))!.e1).toBe('—');
    expect((await ask(core, 'compare bitcoin, btc')).kind).toBe('error');
  });

  it('lists top ratings lowest PoL first', async () => {
    const t = (await ask(core, 'top exchanges')) as TableReply;
    const expected = [...store.data.exchanges]
      .sort((a, b) => last(a.pol) - last(b.pol))
      .slice(0, 10)
      .map((e) => e.name);
    expect(t.rows.map((r) => r.name)).toEqual(expected);
    const p = (await ask(core, 'top projects')) as TableReply;
    const expectedProjects = [...store.data.projects].sort((a, b) => last(a.pol) - last(b.pol)).slice(0, 10);
    expect(p.rows.map((r) => r.pol)).toEqual(expectedProjects.map((x) => polText(last(x.pol))));
  });

  it('searches, lists trending and shows the index', async () => {
    const s = (await ask(core, 'search swap')) as TableReply;
    expect(s.rows.map((r) => r.slug)).toEqual(expect.arrayContaining(['uniswap', 'sushiswap', 'pancakeswap', 'shibaswap']));
    const t = (await ask(core, 'trending')) as TableReply;
    expect(t.rows.filter((r) => r.kind === 'project').map((r) => r.slug)).toEqual(store.data.trending.projects);
    const i = (await ask(core, 'index')) as TextReply;
    expect(field(i, 'Average PoL', 'Projects').value).toBe(polText(last(store.indexPol('project'))));
    expect(section(i, 'Average PoL').direction).toBe('lower is safer');
    const none = (await ask(core, 'search qqqzzz')) as TextReply;
    expect(none.text).toMatch(/Nothing matches/);
  });

  it('reports health and help', async () => {
    const h = (await ask(core, 'health')) as TextReply;
    expect(h.title).toMatch(/healthy/);
    const help = (await ask(core, 'help')) as TextReply;
    const usages = help.commands!.map((c) => `/pol ${c.typed}`).join('\n');
    // Every example is a command that runs.
    for (const c of help.commands!) {
      for (const e of c.examples) {
        const run = await core.run(e.text!);
        expect(run.command, e.text).toBe(c.usage.command);
        // And answers: digests and alerts alone need a channel, which the console has not.
        if (!/^(digest|alert)\b/.test(e.text!)) expect(run.reply.kind, e.text).not.toBe('error');
      }
    }
    for (const cmd of [
      '/pol <name or slug>',
      '/pol project',
      '/pol section',
      '/pol why',
      '/pol exchange',
      '/pol flags',
      '/pol chart',
      '/pol compare',
      '/pol top',
      '/pol ratings',
      '/pol search',
      '/pol trending',
      '/pol index',
      '/pol browse',
      '/pol health',
      '/pol help',
      '/pol digest',
      '/pol alert',
    ]) {
      expect(usages).toContain(cmd);
    }
    expect(help.text).toMatch(/lower is safer/);
    expect(help.text).toMatch(/higher is better/);
  });

  it('routes digest and explains that digests need a chat channel', async () => {
    const r = await ask(core, 'digest add bitcoin daily');
    expect(r).toMatchObject({ kind: 'error', message: expect.stringMatching(/delivered to Slack, Discord or Telegram chats/) });
  });

  it('gives a usage line with an example for malformed input', async () => {
    const cases: [string, RegExp][] = [
      ['chart', /chart/],
      ['chart bitcoin 5y', /Unknown range '5y'/],
      ['compare a, b, c, d, e, f', /up to 5/],
      ['compare bitcoin', /at least two/],
      ['chrat bitcoin', /Did you mean 'chart'/],
      ['top coins', /exchanges or projects/],
      ['flags', /Which project/],
      ['index now', /Unknown range 'now': use 30d or 90d or 180d or 365d or all/],
    ];
    for (const [input, message] of cases) {
      const r = await ask(core, input);
      expect(r.kind, input).toBe('error');
      if (r.kind !== 'error') continue;
      expect(r.message, input).toMatch(message);
      // A runnable example of the command that was meant.
      expect(slackText(r.hint), input).toMatch(/^For example: \/pol \S+/);
    }
  });
});

describe('start-up', () => {
  it('loads the name lists at start, so the first card asks the upstream for its data only', async () => {
    const fresh = await demoCore();
    try {
      const sim = fresh.upstream.sim!;
      sim.counter.reset();
      const r = await ask(fresh, 'kraken');
      expect(r.kind).toBe('card');
      expect(sim.counter.path('/projects_data/v1/list')).toBe(0);
      expect(sim.counter.path('/exchanges_data/v1/list')).toBe(0);
      expect(sim.counter.path('/exchanges_data/v1/kraken/pol/current')).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});
