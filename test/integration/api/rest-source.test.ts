import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestSource } from '../../../src/api/rest/source.js';
import { ratingForPol, ratingForScore } from '../../../src/sim/data/scales.js';
import type { Simulator } from '../../../src/sim/server.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { restSource } from '../../helpers/sources.js';

let sim: Simulator;
let rest: RestSource;
beforeAll(async () => {
  sim = await startTestSimulator();
  rest = restSource(sim);
});
afterAll(async () => {
  await rest.close();
  await sim.close();
});

const last = <T>(a: readonly T[]) => a[a.length - 1]!;

describe('RestSource maps every route to domain values', () => {
  it('lists, searches and trends, marked as simulated REST data', async () => {
    const projects = await rest.list('project');
    expect(projects.meta).toMatchObject({ source: 'rest', simulated: true });
    expect(projects.data.map((p) => p.slug)).toEqual(sim.store.data.projects.map((p) => p.slug));
    expect(projects.data.find((p) => p.slug === 'bitcoin')).toEqual({ kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' });
    const exchanges = await rest.list('exchange');
    expect(exchanges.data).toHaveLength(sim.store.data.exchanges.length);
    expect((await rest.search('exchange', 'gate')).data[0]).toMatchObject({ kind: 'exchange', slug: 'gate-io', name: 'Gate.io' });
    expect((await rest.trending('project')).data.map((t) => t.slug)).toEqual(sim.store.data.trending.projects);
  });

  it('reads project and exchange records', async () => {
    const p = sim.store.project('solana')!;
    const rec = (await rest.record('project', 'solana')).data;
    expect(rec).toMatchObject({ kind: 'project', slug: 'solana', name: 'Solana', ticker: 'SOL', chains: p.chains });
    expect(rec.kind === 'project' && rec.market).toMatchObject({ price: p.market.price, marketCap: p.market.marketCap });
    const e = sim.store.exchange('kraken')!;
    const ex = (await rest.record('exchange', 'kraken')).data;
    expect(ex).toMatchObject({
      kind: 'exchange',
      name: 'Kraken',
      markers: {
        proofOfReserves: e.markers.isProofOfReservesPresent,
        bugBounty: e.markers.isBugBountyPresent,
        penetrationTesting: e.markers.isPenetrationTestingPresent,
      },
    });
  });

  it('reads current PoL, histories and charts', async () => {
    const p = sim.store.project('aave')!;
    const cur = (await rest.polCurrent('project', 'aave')).data;
    expect(cur).toEqual({ pol: last(p.pol), rating: ratingForPol(last(p.pol)), timestamp: sim.store.asOf });
    const days = sim.store.data.days;
    const hist = (await rest.polHistory('project', 'aave', days[10]!, days[19]!)).data;
    expect(hist).toHaveLength(10);
    expect(hist[0]).toEqual({ timestamp: days[10], pol: p.pol[10] });
    const chart = (await rest.polChart('project', 'aave', 90)).data;
    expect(chart).toHaveLength(91);
    expect(last(chart).pol).toBe(last(p.pol));
    expect((await rest.polChart('exchange', 'binance')).data).toHaveLength(days.length);
  });

  it('reads category and metric breakdowns with their histories', async () => {
    const e = sim.store.exchange('okx')!;
    const cats = (await rest.byCategory('exchange', 'okx')).data;
    expect(cats.categories.map((c) => c.category)).toEqual(['security', 'transparency', 'solvency']);
    expect(cats.categories[0]!.score).toEqual({
      score: last(e.categories.security.scores),
      rating: ratingForScore(last(e.categories.security.scores)),
      confidence: e.categories.security.confidence,
    });
    expect((await rest.categoryScore('exchange', 'okx', 'solvency')).data.score).toBe(last(e.categories.solvency.scores));
    const chart = (await rest.byCategoryChart('exchange', 'okx', 7)).data;
    expect(chart).toHaveLength(8);
    expect(last(chart).scores.transparency!.score).toBe(last(e.categories.transparency.scores));
    const days = sim.store.data.days;
    expect((await rest.byCategoryHistory('exchange', 'okx', days[0]!, days[4]!)).data).toHaveLength(5);
    const metrics = (await rest.byMetric('project', 'uniswap')).data;
    expect(metrics.metrics.length).toBe(sim.store.project('uniswap')!.metrics.length);
    expect(metrics.metrics[0]).toMatchObject({ metric: 'smart_contract_audits', category: 'security', label: 'Smart-contract audits' });
    expect((await rest.byMetricChart('project', 'uniswap', 30)).data).toHaveLength(31);
    expect(Object.keys((await rest.byMetricHistory('project', 'uniswap', days[0]!, days[0]!)).data[0]!.metrics)).toContain('longevity');
  });

  it('reads index-level PoL and its history', async () => {
    const idx = (await rest.indexPol('project')).data;
    expect(idx.pol).toBe(last(sim.store.indexPol('project')));
    expect(idx.entities).toBe(sim.store.data.projects.length);
    expect((await rest.indexPolChart(30)).data).toHaveLength(31);
    const days = sim.store.data.days;
    expect((await rest.indexPolHistory(days[0]!, days[9]!)).data.map((p) => p.pol)).toEqual(sim.store.indexPol('project').slice(0, 10));
    expect((await rest.indexPol('exchange')).data.pol).toBe(last(sim.store.indexPol('exchange')));
  });

  it('reads ratings, parameters, top ratings and tokens', async () => {
    const page = (
      await rest.ratings('exchange', { pageSize: 5, sortBy: 'pol', sortDirection: 'ASC', filters: { is_bug_bounty_present: true } })
    ).data;
    const withBounty = sim.store.data.exchanges.filter((e) => e.markers.isBugBountyPresent);
    expect(page.total).toBe(withBounty.length);
    expect(page.items).toHaveLength(5);
    expect(page.items[0]!.pol).toBe(Math.min(...withBounty.map((e) => last(e.pol))));
    expect(page.items.every((i) => i.markers?.bugBounty === true)).toBe(true);
    const projects = (await rest.ratings('project', { filters: { chains: ['Solana', 'Base'] }, pageSize: 50 })).data;
    expect(projects.total).toBe(sim.store.data.projects.filter((p) => p.chains.includes('Solana') || p.chains.includes('Base')).length);
    const params = (await rest.ratingParameters('exchange')).data;
    expect(params.sortBy).toEqual(['name', 'pol', 'tradingVolume', 'tradingVolumeChange', 'rank']);
    expect((await rest.ratingParameters('project')).data.filters.map((f) => f.name)).toEqual([
      'categories',
      'market_cap',
      'chains',
      'compliance',
    ]);
    const top = (await rest.topRatings()).data;
    expect(top).toHaveLength(10);
    expect(top[0]!.rank).toBe(1);
    expect((await rest.ratingTokens('btc')).data.map((t) => t.ticker)).toContain('BTC');
  });

  it('reads the exchange sections, listed assets, dashboard and aggregates', async () => {
    const e = sim.store.exchange('binance')!;
    expect((await rest.exchangeTransparency('binance')).data).toMatchObject({ proofOfReserves: true, auditor: e.transparency.auditor });
    expect((await rest.exchangeSecurity('binance')).data).toMatchObject({
      bugBounty: e.markers.isBugBountyPresent,
      bugBountyMaxUsd: e.security.bugBountyMaxUsd,
    });
    const solv = (await rest.exchangeSolvency('binance')).data;
    expect(solv.reservesUsd).toBe(last(e.reserves));
    expect(solv.liabilitiesUsd).toBe(last(e.liabilities));
    const noPor = (await rest.exchangeSolvency('gemini')).data;
    expect(noPor).toMatchObject({ proofOfReserves: false, reservesUsd: null, reserveRatio: null });
    const chart = (await rest.liabilitiesReservesChart('binance', 30)).data;
    expect(last(chart)).toEqual({ timestamp: sim.store.asOf, reserves: last(e.reserves), liabilities: last(e.liabilities) });
    expect((await rest.liabilitiesReservesChart('gemini', 30)).data).toEqual([]);
    const assets = (await rest.listedAssets('binance', { pageSize: 3, sortBy: 'name', sortDirection: 'ASC' })).data;
    expect(assets.total).toBe(e.listed.length);
    expect(assets.items).toHaveLength(3);
    expect(assets.items[0]!.categories.length).toBe(1);
    const cats = (await rest.listedAssetCategories('binance')).data;
    expect(cats.reduce((s, c) => s + (c.count ?? 0), 0)).toBe(e.listed.length);
    const dash = (await rest.dashboard('binance')).data;
    expect(dash.record.name).toBe('Binance');
    expect(dash.pol).toBe(last(e.pol));
    expect(dash.listedAssetsCount).toBe(e.listed.length);
    const lost = (await rest.lostFunds()).data;
    expect(lost.totalUsd).toBe(sim.store.data.lostFunds.reduce((s, i) => s + i.amountUsd, 0));
    const stats = (await rest.transparencyStats()).data;
    expect(stats.withProofOfReserves).toBe(sim.store.data.exchanges.filter((x) => x.markers.isProofOfReservesPresent).length);
  });

  it('reads the project sections, with none_identified as empty and not_returned as no tier', async () => {
    const pepe = sim.store.project('pepe')!;
    const flags = (await rest.redFlags('pepe')).data;
    expect(flags.marketMaker).toEqual(pepe.redFlags.mm);
    expect(pepe.redFlags.mm.length).toBeGreaterThan(0);
    expect((await rest.redFlags('bitcoin')).data).toEqual({ marketMaker: [], investor: [] });
    expect((await rest.socialFraud('pepe')).data.metrics.twitterFollowers).toBe(pepe.social.twitterFollowers);
    expect((await rest.registration('pepe')).data.jurisdictionTier).toBeNull();
    expect((await rest.registration('tezos')).data.jurisdictionTier).toBeNull();
    const sol = sim.store.project('solana')!;
    expect((await rest.registration('solana')).data).toMatchObject({
      publicRegistration: sol.registration.isPublicRegistrationPresent,
      jurisdictionTier: sol.registration.jurisdictionQuality,
    });
    expect((await rest.certifications('solana')).data).toEqual({
      iso27001: sol.certifications.isIso27001Present,
      ccss: sol.certifications.isCcssPresent,
      ccssLevel: sol.certifications.ccssLevel,
      soc2: sol.certifications.isSoc2Present,
    });
    expect((await rest.team('solana')).data.educationRelevant).toBe(sol.team.isEducationRelevant);
    const gh = (await rest.githubActivity('solana')).data;
    expect(gh.commitsCount7d).toBe(sol.github.commitsCount7d);
    expect(gh.heatmap).toHaveLength(52);
    expect((await rest.age('solana')).data).toEqual({ projectLaunchedAt: sol.launchedAt, protocolLaunchedAt: sol.protocolLaunchedAt });
    expect((await rest.marketData('solana')).data).toMatchObject({ price: sol.market.price, marketCap: sol.market.marketCap });
    expect((await rest.voiceProsCons('bonk')).data).toEqual({ pros: [], cons: [] });
    expect((await rest.voiceReviews('bonk')).data).toEqual([]);
    expect((await rest.voiceReviews('solana')).data).toEqual(sol.voice.reviews);
    expect(last((await rest.voiceChart('solana', 7)).data).value).toBe(last(sol.voiceScores));
    expect(last((await rest.inflationChart('solana', 7)).data).value).toBe(last(sol.inflation));
  });

  it('reports health of both services', async () => {
    expect((await rest.health()).data).toEqual({
      healthy: true,
      checks: [
        { name: 'projects_data', ok: true },
        { name: 'exchanges_data', ok: true },
      ],
    });
    sim.faults.set({ healthFailing: true });
    try {
      expect((await rest.health()).data.healthy).toBe(false);
    } finally {
      sim.faults.reset();
    }
  });

  it('turns unknown slugs and bad slugs into typed errors without a request', async () => {
    await expect(rest.polCurrent('project', 'no-such-thing')).rejects.toMatchObject({ kind: 'not_found' });
    sim.counter.reset();
    for (const bad of ['../health', 'a/b', '%2e%2e', '?x=1', '#', 'x'.repeat(10_000), '🚀', 'a\u0000b', 'Bitcoin']) {
      await expect(rest.polCurrent('project', bad)).rejects.toMatchObject({ kind: 'invalid_input' });
    }
    expect(sim.counter.total).toBe(0);
  });
});
