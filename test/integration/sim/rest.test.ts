import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../../src/sim/data/scales.js';
import type { Simulator } from '../../../src/sim/server.js';
import { simGet, startTestSimulator } from '../../helpers/sim.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(() => sim.close());

const H = '?from=0&to=9999999999';

/** Every route of the REST document, written out from the document itself (not from our route table). */
const DOCUMENTED: Record<'exchanges_data' | 'projects_data', string[]> = {
  exchanges_data: [
    '/v1/health',
    '/v1/pol',
    '/v1/binance',
    '/v1/list',
    '/v1/binance/pol/current',
    `/v1/binance/pol/history${H}`,
    '/v1/binance/pol/history/chart',
    '/v1/binance/pol/by_category',
    `/v1/binance/pol/by_category/history${H}`,
    '/v1/binance/pol/by_category/history/chart',
    '/v1/binance/pol/by_metric',
    `/v1/binance/pol/by_metric/history${H}`,
    '/v1/binance/pol/by_metric/history/chart',
    '/v1/ratings',
    '/v1/ratings/parameters',
    '/v1/search?search=bin',
    '/v1/search/trending',
    '/v1/top_ratings',
    '/v1/transparency_stats',
    '/v1/lost_funds',
    '/v1/dashboard/binance',
    '/v1/binance/listed_assets',
    '/v1/binance/listed_assets/categories',
    '/v1/binance/transparency',
    '/v1/binance/security',
    '/v1/binance/solvency',
    '/v1/binance/solvency/liabilities_reserves/history/chart',
    '/v1/ratings/parameters/tokens',
  ],
  projects_data: [
    '/v1/health',
    '/v1/pol',
    '/v1/bitcoin',
    '/v1/list',
    '/v1/bitcoin/pol/current',
    `/v1/bitcoin/pol/history${H}`,
    '/v1/bitcoin/pol/history/chart',
    '/v1/bitcoin/pol/by_category',
    `/v1/bitcoin/pol/by_category/history${H}`,
    '/v1/bitcoin/pol/by_category/history/chart',
    '/v1/bitcoin/pol/by_metric',
    `/v1/bitcoin/pol/by_metric/history${H}`,
    '/v1/bitcoin/pol/by_metric/history/chart',
    '/v1/ratings',
    '/v1/ratings/parameters',
    '/v1/search?search=bit',
    '/v1/search/trending',
    `/v1/pol/history${H}`,
    '/v1/pol/history/chart',
    '/v1/bitcoin/security',
    '/v1/bitcoin/financial',
    '/v1/bitcoin/reputational',
    '/v1/bitcoin/regulatory',
    '/v1/bitcoin/proof_of_voice',
    '/v1/bitcoin/proof_of_voice/history/chart',
    '/v1/bitcoin/operational',
    '/v1/bitcoin/financial/inflation/history/chart',
  ],
};
const ALL = Object.entries(DOCUMENTED).flatMap(([service, paths]) => paths.map((p) => `/${service}${p}`));

describe('every documented route', () => {
  it.each(ALL)('GET %s answers 200 JSON marked as simulated', async (path) => {
    const r = await simGet(sim, path);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('x-simulated')).toBe('true');
    expect(r.body.simulated).toBe(true);
  });

  it.each(ALL)('GET %s without a key is 401 and with a wrong key 403', async (path) => {
    const missing = await simGet(sim, path, { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    const wrong = await simGet(sim, path, { key: 'svc_wrong' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('forbidden');
  });

  it('answers 405 with Allow: GET to any other method', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${sim.url}/projects_data/v1/bitcoin`, { method, headers: { 'x-api-key': sim.apiKey } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET');
      expect(((await res.json()) as any).error.code).toBe('method_not_allowed');
    }
  });

  it('answers 404 with the error body for an unknown slug on every slug route', async () => {
    const slugRoutes = ALL.filter((p) => /\/(binance|bitcoin)(\/|\?|$)/.test(p));
    for (const path of slugRoutes) {
      const r = await simGet(sim, path.replace(/binance|bitcoin/, 'no-such-entity'));
      expect(r.status, path).toBe(404);
      expect(r.body).toMatchObject({ error: { code: 'not_found', message: expect.stringContaining('no-such-entity') }, simulated: true });
    }
  });

  it('answers 404 for an unknown route and for a project slug on the exchange service', async () => {
    expect((await simGet(sim, '/projects_data/v2/list')).status).toBe(404);
    expect((await simGet(sim, '/exchanges_data/v1/bitcoin/pol/current')).status).toBe(404);
    expect((await simGet(sim, '/projects_data/v1/binance/pol/current')).status).toBe(404);
  });
});

describe('validation', () => {
  const bad = async (path: string, parameter: string) => {
    const r = await simGet(sim, path);
    expect(r.status, path).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_parameter', parameter });
    expect(r.body.error.message).toContain(parameter);
  };

  it('requires integer from and to on every history route', async () => {
    for (const route of [
      '/projects_data/v1/bitcoin/pol/history',
      '/projects_data/v1/pol/history',
      '/exchanges_data/v1/binance/pol/by_category/history',
      '/exchanges_data/v1/binance/pol/by_metric/history',
    ]) {
      await bad(route, 'from');
      await bad(`${route}?from=1`, 'to');
      await bad(`${route}?from=abc&to=2`, 'from');
      await bad(`${route}?from=1&to=2.5`, 'to');
      await bad(`${route}?from=10&to=5`, 'from');
    }
  });

  it('checks days is an integer from 1 to 365 on chart routes, and omitted means all history', async () => {
    await bad('/projects_data/v1/bitcoin/pol/history/chart?days=0', 'days');
    await bad('/projects_data/v1/bitcoin/pol/history/chart?days=366', 'days');
    await bad('/exchanges_data/v1/binance/solvency/liabilities_reserves/history/chart?days=7d', 'days');
    const all = await simGet(sim, '/projects_data/v1/bitcoin/pol/history/chart');
    expect(all.body.points).toHaveLength(sim.store.data.days.length);
    expect(all.body.points.length).toBeGreaterThanOrEqual(730);
    const month = await simGet(sim, '/projects_data/v1/bitcoin/pol/history/chart?days=30');
    expect(month.body.points).toHaveLength(31);
    expect(month.body.points.at(-1).timestamp - month.body.points[0].timestamp).toBe(30 * DAY);
  });

  it('rejects page < 1 and page_size outside 1..50 instead of clamping', async () => {
    await bad('/exchanges_data/v1/ratings?page=0', 'page');
    await bad('/exchanges_data/v1/ratings?page_size=51', 'page_size');
    await bad('/projects_data/v1/ratings?page_size=0', 'page_size');
    await bad('/exchanges_data/v1/binance/listed_assets?page_size=100', 'page_size');
    const ok = await simGet(sim, '/exchanges_data/v1/ratings?page_size=50');
    expect(ok.body.items).toHaveLength(Math.min(sim.store.data.exchanges.length, 50));
  });

  it('requires search on /v1/search and checks enums and booleans', async () => {
    await bad('/projects_data/v1/search', 'search');
    await bad('/projects_data/v1/search?search=%20', 'search');
    await bad('/exchanges_data/v1/ratings?sort_by=volume', 'sort_by');
    await bad('/exchanges_data/v1/ratings?sort_direction=up', 'sort_direction');
    await bad('/exchanges_data/v1/ratings?is_bug_bounty_present=yes', 'is_bug_bounty_present');
    await bad('/exchanges_data/v1/ratings?listed_tokens=btc', 'listed_tokens');
    await bad('/exchanges_data/v1/binance/listed_assets?sort_by=rank', 'sort_by');
  });

  it('accepts array parameters as repeated keys and comma-separated alike', async () => {
    const repeated = await simGet(sim, '/projects_data/v1/ratings?categories=Meme&categories=DeFi&page_size=50');
    const comma = await simGet(sim, '/projects_data/v1/ratings?categories=Meme,DeFi&page_size=50');
    expect(repeated.body.total).toBeGreaterThan(0);
    expect(comma.body).toEqual(repeated.body);
    const expected = sim.store.data.projects.filter((p) => p.category === 'Meme' || p.category === 'DeFi').length;
    expect(repeated.body.total).toBe(expected);
    expect(repeated.body.items.every((i: any) => ['Meme', 'DeFi'].includes(i.category))).toBe(true);
  });
});

describe('pagination', () => {
  it('carries items, page, page_size, total and total_pages, and pages do not overlap', async () => {
    const total = sim.store.data.exchanges.length;
    const p1 = await simGet(sim, '/exchanges_data/v1/ratings?page_size=10&sort_by=name&sort_direction=ASC');
    const p2 = await simGet(sim, '/exchanges_data/v1/ratings?page=2&page_size=10&sort_by=name&sort_direction=ASC');
    expect(p1.body).toMatchObject({ page: 1, page_size: 10, total, total_pages: Math.ceil(total / 10) });
    expect(p2.body.page).toBe(2);
    const names = [...p1.body.items, ...p2.body.items].map((i: any) => i.name);
    expect(new Set(names).size).toBe(20);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    const defaults = await simGet(sim, '/exchanges_data/v1/ratings');
    expect(defaults.body).toMatchObject({ page: 1, page_size: 20 });
    expect(defaults.body.items).toHaveLength(20);
  });

  it('sorts exchange ratings by rank ascending by default, rank 1 being the lowest PoL', async () => {
    const r = await simGet(sim, '/exchanges_data/v1/ratings?page_size=50');
    const pols = r.body.items.map((i: any) => i.pol);
    expect(pols).toEqual([...pols].sort((a: number, b: number) => a - b));
    expect(r.body.items[0].rank).toBe(1);
    const minPol = Math.min(...sim.store.data.exchanges.map((e) => e.pol.at(-1)!));
    expect(r.body.items[0].pol).toBe(minPol);
  });

  it('filters exchange ratings by markers and listed tokens', async () => {
    const r = await simGet(sim, '/exchanges_data/v1/ratings?page_size=50&is_proof_of_reserves_present=true');
    const expected = sim.store.data.exchanges
      .filter((e) => e.markers.isProofOfReservesPresent)
      .map((e) => e.slug)
      .sort();
    expect(r.body.items.map((i: any) => i.slug).sort()).toEqual(expected);
    const btc = sim.store.data.tokens.find((t) => t.ticker === 'BTC')!;
    const byToken = await simGet(sim, `/exchanges_data/v1/ratings?page_size=50&listed_tokens=${btc.id}`);
    const listing = sim.store.data.exchanges
      .filter((e) => e.listed.includes(btc.id))
      .map((e) => e.slug)
      .sort();
    expect(byToken.body.items.map((i: any) => i.slug).sort()).toEqual(listing);
  });

  it('pages listed assets with search and category filters', async () => {
    const binance = sim.store.exchange('binance')!;
    const r = await simGet(sim, '/exchanges_data/v1/binance/listed_assets?page_size=5');
    expect(r.body.total).toBe(binance.listed.length);
    expect(r.body.items).toHaveLength(5);
    const cats = await simGet(sim, '/exchanges_data/v1/binance/listed_assets/categories');
    const first = cats.body.items[0];
    const filtered = await simGet(sim, `/exchanges_data/v1/binance/listed_assets?page_size=50&categories=${first.id}`);
    expect(filtered.body.total).toBe(first.count);
  });
});

describe('values match the data store', () => {
  it('serves current PoL, rating and breakdowns from the store', async () => {
    for (const slug of ['bitcoin', 'terra-classic', 'ethereum', 'shibaswap']) {
      const p = sim.store.project(slug)!;
      const cur = await simGet(sim, `/projects_data/v1/${slug}/pol/current`);
      expect(cur.body.pol).toBe(p.pol.at(-1));
      const cats = await simGet(sim, `/projects_data/v1/${slug}/pol/by_category`);
      expect(cats.body.categories.map((c: any) => c.category)).toEqual([
        'security',
        'financial',
        'operational',
        'reputational',
        'regulatory',
      ]);
      for (const c of cats.body.categories) {
        expect(c.score.score).toBe((p.categories as any)[c.category].scores.at(-1));
        expect(c.score.confidence).toBe((p.categories as any)[c.category].confidence);
      }
    }
    const gate = await simGet(sim, '/exchanges_data/v1/gate-io/pol/by_category');
    expect(gate.body.categories.map((c: any) => c.category)).toEqual(['security', 'transparency', 'solvency']);
  });

  it('treats from and to as inclusive bounds', async () => {
    const days = sim.store.data.days;
    const from = days[100]!;
    const to = days[109]!;
    const r = await simGet(sim, `/projects_data/v1/aave/pol/history?from=${from}&to=${to}`);
    expect(r.body.points).toHaveLength(10);
    expect(r.body.points[0]).toMatchObject({ timestamp: from, pol: sim.store.project('aave')!.pol[100] });
  });

  it('computes the index PoL as the mean of its entities', async () => {
    const r = await simGet(sim, '/projects_data/v1/pol');
    const pols = sim.store.data.projects.map((p) => p.pol.at(-1)!);
    expect(r.body.pol).toBeCloseTo(pols.reduce((a, b) => a + b, 0) / pols.length, 5);
    const ex = await simGet(sim, '/exchanges_data/v1/pol');
    expect(ex.body.entities).toBe(sim.store.data.exchanges.length);
  });

  it('answers health 200 with per-dependency status', async () => {
    const r = await simGet(sim, '/exchanges_data/v1/health');
    expect(r.body).toMatchObject({ status: 'ok', service: 'exchanges_data' });
    expect(r.body.checks.length).toBeGreaterThan(0);
    expect(r.body.checks.every((c: any) => c.status === 'ok')).toBe(true);
  });

  it('searches names, slugs and tickers, exact matches first', async () => {
    const r = await simGet(sim, '/projects_data/v1/search?search=bitcoin');
    expect(r.body.items[0].slug).toBe('bitcoin');
    expect(r.body.items.map((i: any) => i.slug)).toEqual(expect.arrayContaining(['bitcoin-cash', 'bitcoin-sv']));
    const ticker = await simGet(sim, '/projects_data/v1/search?search=UNI');
    expect(ticker.body.items[0].slug).toBe('uniswap');
    const accent = await simGet(sim, '/projects_data/v1/search?search=creme');
    expect(accent.body.items[0].slug).toBe('creme-finance');
  });
});

describe('the data set', () => {
  it('has at least 60 projects, 30 exchanges and two years of daily history', () => {
    expect(sim.store.data.projects.length).toBeGreaterThanOrEqual(60);
    expect(sim.store.data.exchanges.length).toBeGreaterThanOrEqual(30);
    const days = sim.store.data.days;
    expect(days.length).toBeGreaterThanOrEqual(730);
    expect(days.at(-1)! - days[0]!).toBeGreaterThanOrEqual(729 * DAY);
    expect(days.every((t, i) => i === 0 || t - days[i - 1]! === DAY)).toBe(true);
  });

  it('includes the awkward cases people hit', async () => {
    // Exchange slugs that differ from the brand name.
    expect((await simGet(sim, '/exchanges_data/v1/gate-io')).body.name).toBe('Gate.io');
    expect((await simGet(sim, '/exchanges_data/v1/huobi')).body.name).toBe('HTX');
    // A name that is both an exchange and a project.
    expect((await simGet(sim, '/exchanges_data/v1/dydx')).body.name).toBe('dYdX');
    expect((await simGet(sim, '/projects_data/v1/dydx')).body.name).toBe('dYdX');
    // Names sharing words, so a bare query matches several.
    const shiba = await simGet(sim, '/projects_data/v1/search?search=shiba');
    expect(shiba.body.items.length).toBeGreaterThanOrEqual(2);
    // Red flags present and none_identified; empty Proof of Voice; jurisdiction not returned or empty.
    const flags = await Promise.all(sim.store.data.projects.map((p) => simGet(sim, `/projects_data/v1/${p.slug}/reputational`)));
    expect(flags.some((f) => f.body.mmRedFlags === 'none_identified')).toBe(true);
    expect(flags.some((f) => Array.isArray(f.body.mmRedFlags) && f.body.mmRedFlags.length > 0)).toBe(true);
    expect((await simGet(sim, '/projects_data/v1/bonk/proof_of_voice')).body).toMatchObject({
      pros: 'none_identified',
      cons: 'none_identified',
      reviews: 'none_identified',
    });
    expect((await simGet(sim, '/projects_data/v1/monero/regulatory')).body.jurisdictionQuality).toBe('not_returned');
    expect((await simGet(sim, '/projects_data/v1/tezos/regulatory')).body.jurisdictionQuality).toBe('');
    // Scores at both edges.
    const top = await simGet(sim, '/projects_data/v1/ethereum/pol/by_category');
    expect(top.body.categories.every((c: any) => c.score.score === 100 && c.score.rating === 'AAA')).toBe(true);
    const bottom = await simGet(sim, '/projects_data/v1/terra-classic/pol/by_category');
    expect(bottom.body.categories.every((c: any) => c.score.score === 0 && c.score.rating === 'D')).toBe(true);
    expect((await simGet(sim, '/projects_data/v1/terra-classic/pol/current')).body.rating).toBe('D');
    // An exchange with no proof of reserves has no liabilities/reserves history.
    expect((await simGet(sim, '/exchanges_data/v1/gemini/solvency/liabilities_reserves/history/chart')).body.points).toEqual([]);
    expect((await simGet(sim, '/exchanges_data/v1/binance/solvency/liabilities_reserves/history/chart?days=7')).body.points).toHaveLength(
      8,
    );
  });

  it('is deterministic: the same seed gives the same bytes, another seed other numbers', async () => {
    const twin = await startTestSimulator();
    const other = await startTestSimulator({ seed: 7 });
    try {
      for (const path of [
        '/projects_data/v1/list',
        '/projects_data/v1/bitcoin/pol/history/chart',
        '/exchanges_data/v1/ratings?page_size=50',
        '/exchanges_data/v1/lost_funds',
        '/projects_data/v1/pepe/reputational',
      ]) {
        const a = await simGet(sim, path);
        const b = await simGet(twin, path);
        expect(b.text, path).toBe(a.text);
      }
      const a = await simGet(sim, '/projects_data/v1/bitcoin/pol/history/chart');
      const c = await simGet(other, '/projects_data/v1/bitcoin/pol/history/chart');
      expect(c.text).not.toBe(a.text);
    } finally {
      await twin.close();
      await other.close();
    }
  });
});
