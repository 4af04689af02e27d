import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderReply } from '../../../adapters/console/render.js';
import type { Core } from '../../../commands/core/core.js';
import { buildDigest, EntityLoader } from '../../../src/digest/content.js';
import type { Digest } from '../../../src/digest/store.js';
import type { CardReply, Reply, TableReply, TextReply } from '../../../src/reply/model.js';
import type { Simulator } from '../../../src/sim/server.js';
import { ask, demoCore, visibleText } from '../../helpers/core.js';
import { compose, onRoute, removeAt, renameAt, setAt, startOddProxy, type Mutator, type OddProxy } from '../../helpers/odd-proxy.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { brokenNumbers, polText, scoreText } from '../../helpers/truth.js';

/**
 * An upstream that sends odd values, through a proxy that changes answers on their way: whatever
 * it sends, no reply shows a number outside its domain, and one bad field or row costs that field
 * or row, never the whole answer. Through REST alone and through the tool server with REST.
 */

let sim: Simulator;
let proxy: OddProxy;
let restCore: Core;
let mcpCore: Core;

beforeAll(async () => {
  sim = await startTestSimulator();
  proxy = await startOddProxy(sim.url);
  const upstream = { POL_API_BASE_URL: proxy.url, POL_API_KEY: sim.apiKey };
  [restCore, mcpCore] = await Promise.all([demoCore(upstream), demoCore({ ...upstream, POL_MCP_URL: proxy.mcpUrl, POL_SOURCE: 'mcp' })]);
});
afterAll(async () => {
  await Promise.all([restCore.close(), mcpCore.close()]);
  await proxy.close();
  await sim.close();
});
beforeEach(() => {
  proxy.set(null);
  restCore.upstream.source.cache.clear();
  mcpCore.upstream.source.cache.clear();
});

const aave = () => sim.store.project('aave')!;
const kraken = () => sim.store.exchange('kraken')!;
const last = <T>(a: readonly T[]) => a[a.length - 1]!;

/** Asks with the change in place, and checks what every odd answer must hold. */
async function askOdd(core: Core, text: string, mutator: Mutator): Promise<Reply> {
  proxy.set(mutator);
  const reply = await ask(core, text);
  expect(brokenNumbers(reply), `${text}: a broken number`).toEqual([]);
  return reply;
}

const card = (r: Reply) => {
  expect(r.kind, JSON.stringify(r).slice(0, 300)).toBe('card');
  return r as CardReply;
};
const field = (r: CardReply, section: string, label: string) =>
  r.sections.find((s) => s.title === section)?.fields?.find((f) => f.label === label);

const POL_CURRENT = /^\/projects_data\/v1\/aave\/pol\/current$/;
const BY_CATEGORY = /^\/projects_data\/v1\/aave\/pol\/by_category$/;

describe('a PoL outside 0..1 is never shown as a number', () => {
  it.each([
    ['1.7 (over one)', 1.7],
    ['173 (a percent where a probability is meant)', 173],
    ['1e308', 1e308],
    ['-0.2 (negative)', -0.2],
    ['"12%" (text)', '12%'],
  ])('PoL %s: the headline says unreadable, the rest of the card stands', async (_label, value) => {
    const r = card(await askOdd(restCore, 'project aave', onRoute(POL_CURRENT, setAt('pol', value))));
    expect(r.headline.value).toMatch(/^unreadable \((out of range|not a number)\)$/);
    expect(field(r, 'Category quality scores', 'Security')?.value).toBe(scoreText(last(aave().categories.security.scores)));
  });

  it('a null PoL reads as missing, and the card keeps its scores', async () => {
    const r = card(await askOdd(restCore, 'project aave', onRoute(POL_CURRENT, setAt('pol', null))));
    expect(r.headline.value).toBe('unreadable (missing)');
    expect(field(r, 'Category quality scores', 'Financial')?.value).toBe(scoreText(last(aave().categories.financial.scores)));
  });
});

describe('an answer about another entity', () => {
  it("is never shown under this one's name, through REST or a tool", async () => {
    const uniswap = sim.store.project('uniswap')!;
    const viaRest = card(
      await askOdd(restCore, 'project aave', onRoute(POL_CURRENT, compose(setAt('slug', 'uniswap'), setAt('pol', last(uniswap.pol))))),
    );
    expect(viaRest.headline.value).toBe('unreadable');
    expect(visibleText(viaRest)).not.toContain(polText(last(uniswap.pol)));

    mcpCore.upstream.source.cache.clear();
    const viaTool = card(await askOdd(mcpCore, 'project aave', onRoute(/^get_project_security_score$/, setAt('requestedSlug', 'uniswap'))));
    expect(field(viaTool, 'Category quality scores', 'Security')?.value).not.toBe(scoreText(last(uniswap.categories.security.scores)));
    expect(field(viaTool, 'Category quality scores', 'Financial')?.value).toBe(scoreText(last(aave().categories.financial.scores)));
  });
});

describe('category quality scores outside 0..100', () => {
  it.each([
    ['250', 250],
    ['-3', -3],
    ['"Infinity" (text)', 'Infinity'],
  ])('score %s reads unreadable where it stands; the PoL is shown', async (_label, value) => {
    const r = card(await askOdd(restCore, 'project aave', onRoute(BY_CATEGORY, setAt('categories[0].score.score', value))));
    expect(r.headline.value).toBe(polText(last(aave().pol)));
    expect(field(r, 'Category quality scores', 'Security')?.value).toMatch(/^unreadable \((out of range|not a number)\)$/);
    expect(field(r, 'Category quality scores', 'Financial')?.value).toBe(scoreText(last(aave().categories.financial.scores)));
  });

  it('through the tool server: one score tool answering 250 costs that score only', async () => {
    const r = card(await askOdd(mcpCore, 'project aave', onRoute(/^get_project_security_score$/, setAt('score.score', 250))));
    expect(r.headline.value).toBe(polText(last(aave().pol)));
    expect(field(r, 'Category quality scores', 'Security')?.value).toBe('unreadable (out of range)');
    expect(field(r, 'Category quality scores', 'Regulatory')?.value).toBe(scoreText(last(aave().categories.regulatory.scores)));
  });

  it('a garbage score route leaves the PoL, and a garbage PoL route leaves the scores', async () => {
    const noScores = card(
      await askOdd(
        restCore,
        'project aave',
        onRoute(BY_CATEGORY, () => ({ categories: 'n/a' })),
      ),
    );
    expect(noScores.headline.value).toBe(polText(last(aave().pol)));
    expect(field(noScores, 'Category quality scores', 'Security')).toBeUndefined();

    restCore.upstream.source.cache.clear();
    const noPol = card(
      await askOdd(
        restCore,
        'project aave',
        onRoute(POL_CURRENT, () => ['not', 'an', 'object']),
      ),
    );
    expect(noPol.headline.value).toBe('unreadable');
    expect(noPol.headline.change?.text).toMatch(/^Overall PoL /);
    expect(field(noPol, 'Category quality scores', 'Security')?.value).toBe(scoreText(last(aave().categories.security.scores)));
  });
});

describe('one bad row costs that row', () => {
  it('search: a result without a name is left out and counted', async () => {
    const r = await askOdd(restCore, 'search swap', onRoute(/^\/projects_data\/v1\/search$/, removeAt('items[0].name')));
    const text = visibleText(r);
    expect(r.kind).not.toBe('error');
    expect(text).toMatch(/1 (result|row|entry)[^\n]* could not be read/);
  });

  it('top: a null row in the ratings leaves the others, sorted, and says one was skipped', async () => {
    const r = (await askOdd(
      restCore,
      'top exchanges',
      onRoute(/^\/exchanges_data\/v1\/top_ratings$/, setAt('items[1]', null)),
    )) as TableReply;
    expect(r.kind).toBe('table');
    expect(r.rows.length).toBeGreaterThan(3);
    expect(visibleText(r)).toMatch(/1 (row|entry|rating)[^\n]* could not be read/);
  });

  it('top: a PoL of 1.7 in one rating row shows unreadable in that row and sorts it last', async () => {
    const r = (await askOdd(
      restCore,
      'top exchanges',
      onRoute(/^\/exchanges_data\/v1\/top_ratings$/, setAt('items[0].pol', 1.7)),
    )) as TableReply;
    expect(r.rows.at(-1)?.pol).toBe('unreadable (out of range)');
  });

  it('chart: bad points are skipped, and said so when more than a few', async () => {
    const bad = compose(...[1, 3, 5, 7, 9].map((i) => setAt(`points[${i}].pol`, 4.2)));
    const r = await askOdd(restCore, 'chart aave 30d', onRoute(/^\/projects_data\/v1\/aave\/pol\/history\/chart$/, bad));
    expect(r.kind).not.toBe('error');
    expect('image' in r && r.image?.kind).toBe('png');
    expect(visibleText(r)).toMatch(/5 points? [^\n]*could not be read/);
  });

  it('compare: one entity with an unreadable PoL is marked in its column; the other stands', async () => {
    const r = await askOdd(restCore, 'compare aave, kraken', onRoute(POL_CURRENT, setAt('pol', 2)));
    const text = visibleText(r);
    expect(text).toContain('unreadable (out of range)');
    expect(text).toContain(polText(last(kraken().pol)));
  });

  it('flags through the tool server: a flag list of the wrong type reads unreadable; registration stands', async () => {
    const r = await askOdd(mcpCore, 'flags pepe', onRoute(/^get_project_red_flags$/, setAt('mmRedFlags', { flags: 3 })));
    const text = visibleText(r);
    expect(text).toContain('Market maker flags: unreadable (wrong type)');
    const investor = sim.store.project('pepe')!.redFlags.investor;
    expect(investor.length).toBeGreaterThan(0);
    for (const flag of investor) expect(text).toContain(`Investor: ${flag}`);
    expect(text).toContain('Registration');
  });

  it('flags: a renamed field costs that part of the answer, not the whole', async () => {
    const r = await askOdd(
      restCore,
      'flags aave',
      onRoute(/^\/projects_data\/v1\/aave\/reputational$/, renameAt('mmRedFlags', 'marketMakerFlags')),
    );
    expect(r.kind).not.toBe('error');
  });
});

describe('digests', () => {
  it.each(['REST', 'tool server with REST'])(
    'through %s, a watchlist row with an unreadable PoL reads unreadable; the other rows stand',
    async (via) => {
      const core = via === 'REST' ? restCore : mcpCore;
      proxy.set(onRoute(POL_CURRENT, setAt('pol', 17)));
      const now = Date.now();
      const digest: Digest = {
        id: 9001,
        platform: 'slack',
        channelId: 'C-ODD',
        workspaceId: null,
        enterpriseId: null,
        entities: [
          { kind: 'project', slug: 'aave', name: 'Aave', ticker: 'AAVE' },
          { kind: 'exchange', slug: 'kraken', name: 'Kraken' },
        ],
        cron: '0 9 * * *',
        scheduleLabel: 'daily at 09:00',
        timezone: 'UTC',
        state: 'active',
        stateReason: null,
        createdBy: 'U-ODD',
        createdAt: now,
        nextSlot: null,
        lastSlot: null,
        lastDeliveredAt: null,
        lastError: null,
      };
      const content = await buildDigest(new EntityLoader(core.upstream.source), {
        digest,
        slot: null,
        previous: null,
        unsent: 0,
        nextRun: null,
        now,
      });
      const table = content.parts.find((r): r is TableReply => r.kind === 'table')!;
      expect(table.rows.find((r) => r.name === 'Aave (AAVE)')?.pol).toBe('unreadable');
      expect(table.rows.find((r) => r.name === 'Kraken')?.pol).toBe(polText(last(kraken().pol)));
      for (const reply of content.parts) expect(brokenNumbers(reply)).toEqual([]);
    },
  );
});

describe('the sources report what they could not read', () => {
  it('the answer carries which fields were unreadable, for the log and the metric', async () => {
    proxy.set(onRoute(POL_CURRENT, setAt('pol', 1.7)));
    const fetched = await restCore.upstream.source.polCurrent('project', 'aave');
    expect(fetched.meta.unreadable).toEqual({
      route: 'projects_data /v1/{slug}/pol/current',
      fields: ['pol'],
      rows: 0,
      first: 'pol: out of range',
    });
  });
});

describe('an exchange in depth, with odd answers', () => {
  const ASSETS = /^\/exchanges_data\/v1\/kraken\/listed_assets$/;
  const CATEGORIES = /^\/exchanges_data\/v1\/kraken\/listed_assets\/categories$/;
  const LOST = /^\/exchanges_data\/v1\/lost_funds$/;
  const SOLVENCY = /^\/exchanges_data\/v1\/kraken\/solvency$/;

  it('an exchange that lists no assets, and an empty lost-funds record, each get a sentence, not an empty table', async () => {
    const none = await askOdd(
      restCore,
      'assets kraken',
      compose(
        onRoute(ASSETS, compose(setAt('items', []), setAt('total', 0), setAt('totalPages', 0))),
        onRoute(CATEGORIES, setAt('items', [])),
      ),
    );
    expect(none).toMatchObject({ kind: 'text', text: 'Kraken lists no assets.' });
    const lost = await askOdd(
      restCore,
      'lost-funds',
      onRoute(LOST, compose(setAt('incidents', []), setAt('byYear', []), setAt('totalUsd', 0))),
    );
    expect(lost).toMatchObject({ kind: 'text', text: 'No funds lost at exchanges are on record.' });
  });

  it('an asset with an unreadable PoL costs that cell, never the list', async () => {
    const listed = kraken()
      .listed.map((id) => sim.store.data.tokens.find((t) => t.id === id)!)
      .sort((a, b) => b.marketCap - a.marketCap);
    const r = (await askOdd(restCore, 'assets kraken', onRoute(ASSETS, setAt('items.0.polScore', 7)))) as TableReply;
    expect(r.kind).toBe('table');
    expect(r.rows[0]!.pol).toBe('unreadable (out of range)');
    expect(r.rows[1]!.pol).toBe(polText(listed[1]!.polScore));
  });

  it('a reserve ratio outside its domain reads as unreadable; the reserves themselves still show', async () => {
    const r = card(await askOdd(restCore, 'kraken solvency', onRoute(SOLVENCY, setAt('reserveRatio', -3))));
    expect(field(r, 'Reserves against liabilities', 'Coverage')?.value).toMatch(/^unreadable/);
    expect(field(r, 'Reserves against liabilities', 'Reserves')?.value).not.toMatch(/unreadable/);
  });
});

describe('numbers are never shown in exponent notation', () => {
  const EXPONENT = /\de[+-]?\d/;
  const TINY_SECURITY = onRoute(
    BY_CATEGORY,
    compose(setAt('categories[0].score.score', 4.2e-12), setAt('categories[0].score.rating', 'D')),
  );

  it('compare: a category score of 4.2e-12 reads "<0.01" in its column, as the console prints it', async () => {
    const r = (await askOdd(restCore, 'compare aave, uniswap', TINY_SECURITY)) as TableReply;
    expect(r.kind).toBe('table');
    expect(r.columns.map((c) => c.label)).toEqual(['Measure', 'Aave', 'Uniswap']);
    const security = r.rows.find((row) => row.measure === 'Security (higher is better)');
    expect(security?.e0).toBe('<0.01 D');
    const printed = renderReply(r, { color: false });
    expect(printed).toMatch(/^Security \(higher is better\) +<0\.01 D +/m);
    expect(printed).not.toMatch(EXPONENT);
    expect(visibleText(r)).not.toMatch(EXPONENT);
  });

  it('card: the same score reads "<0.01" among the category quality scores', async () => {
    const r = card(await askOdd(restCore, 'project aave', TINY_SECURITY));
    expect(field(r, 'Category quality scores', 'Security')).toEqual({
      label: 'Security',
      value: '<0.01',
      detail: 'D · moderate confidence',
    });
    expect(visibleText(r)).not.toMatch(EXPONENT);
  });

  it('ratings: a total of 1e21 rows and pages is written out in digits', async () => {
    const RATINGS = /^\/exchanges_data\/v1\/ratings$/;
    const r = (await askOdd(
      restCore,
      'ratings exchanges',
      onRoute(RATINGS, compose(setAt('total', 1e21), setAt('total_pages', 1e21))),
    )) as TableReply;
    expect(r.note).toBe('All · page 1 of 1,000,000,000,000,000,000,000 · 1,000,000,000,000,000,000,000 exchanges. PoL: lower is safer.');
  });

  it('an exchange ranked 1e21 and established in the year 1e21 reads them in digits', async () => {
    const big = compose(setAt('rank', 1e21), setAt('established', 1e21));
    const r = card(await askOdd(restCore, 'exchange kraken', onRoute(/^\/exchanges_data\/v1\/kraken$/, big)));
    expect(field(r, 'Context', 'Rank')?.value).toBe('#1,000,000,000,000,000,000,000');
    const dashboard = card(await askOdd(restCore, 'kraken dashboard', onRoute(/^\/exchanges_data\/v1\/dashboard\/kraken$/, big)));
    expect(field(dashboard, 'About', 'Established')?.value).toBe('1000000000000000000000');
    expect(visibleText(dashboard)).not.toMatch(EXPONENT);
  });

  it('lost funds: a year of 1e21 is a label in digits, in the reply and the chart', async () => {
    const LOST = /^\/exchanges_data\/v1\/lost_funds$/;
    const r = (await askOdd(restCore, 'lost-funds', onRoute(LOST, setAt('byYear[0].year', 1e21)))) as TextReply;
    expect(r.kind).toBe('text');
    expect(r.sections?.find((s) => s.title === 'By year')?.fields?.[0]?.label).toBe('1000000000000000000000');
    expect(r.image?.alt).toMatch(/^Funds lost at exchanges by year: .*, 1000000000000000000000 \$/);
    expect(visibleText(r)).not.toMatch(EXPONENT);
  });
});
