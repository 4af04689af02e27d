import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FailoverSource } from '../../../src/api/failover.js';
import type { McpSource } from '../../../src/api/mcp/source.js';
import { ratingForScore } from '../../../src/sim/data/scales.js';
import type { Simulator } from '../../../src/sim/server.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { mcpSource, mcpWithRest } from '../../helpers/sources.js';

let sim: Simulator;
let mcp: FailoverSource;
let toolsOnly: McpSource;
beforeAll(async () => {
  sim = await startTestSimulator();
  mcp = mcpWithRest(sim);
  toolsOnly = mcpSource(sim);
});
afterAll(async () => {
  await mcp.close();
  await toolsOnly.close();
  await sim.close();
});

const last = <T>(a: readonly T[]) => a[a.length - 1]!;

describe('McpSource maps the tools to domain values', () => {
  it('lists projects and resolves project slugs through the tools', async () => {
    const list = await toolsOnly.list('project');
    expect(list.meta).toMatchObject({ source: 'mcp', simulated: true });
    expect(list.data.map((p) => p.slug)).toEqual(sim.store.data.projects.map((p) => p.slug));
    expect((await toolsOnly.resolveProject('Bitcoin')).data).toMatchObject({ status: 'resolved', resolved: { slug: 'bitcoin' } });
    const shiba = (await toolsOnly.resolveProject('shiba')).data!;
    expect(shiba.status).toBe('ambiguous');
    expect(shiba.matches.map((m) => m.slug).sort()).toEqual(['shiba-inu', 'shibaswap']);
    expect((await toolsOnly.resolveProject('qqqzzz')).data).toMatchObject({ status: 'not_found', matches: [] });
  });

  it('reads category scores for projects and exchanges', async () => {
    const p = sim.store.project('chainlink')!;
    const cats = (await toolsOnly.byCategory('project', 'chainlink')).data.categories;
    expect(cats.map((c) => c.category)).toEqual(['security', 'financial', 'operational', 'reputational', 'regulatory']);
    for (const c of cats) {
      const series = (p.categories as Record<string, { scores: number[]; confidence: string }>)[c.category]!;
      expect(c.score).toEqual({ score: last(series.scores), rating: ratingForScore(last(series.scores)), confidence: series.confidence });
    }
    const e = sim.store.exchange('bybit')!;
    expect((await toolsOnly.categoryScore('exchange', 'bybit', 'solvency')).data.score).toBe(last(e.categories.solvency.scores));
    const chart = (await toolsOnly.byCategoryChart('exchange', 'bybit', 30)).data;
    expect(chart).toHaveLength(31);
    expect(last(chart).scores.transparency!.score).toBe(last(e.categories.transparency.scores));
  });

  it('reads every project section tool', async () => {
    const p = sim.store.project('solana')!;
    expect((await toolsOnly.redFlags('pepe')).data.marketMaker).toEqual(sim.store.project('pepe')!.redFlags.mm);
    expect((await toolsOnly.redFlags('bitcoin')).data).toEqual({ marketMaker: [], investor: [] });
    expect((await toolsOnly.socialFraud('solana')).data.metrics.telegramMembers).toBe(p.social.telegramMembers);
    expect((await toolsOnly.registration('monero')).data.jurisdictionTier).toBeNull();
    expect((await toolsOnly.registration('solana')).data.publicRegistration).toBe(p.registration.isPublicRegistrationPresent);
    expect((await toolsOnly.certifications('solana')).data.ccssLevel).toBe(p.certifications.ccssLevel);
    expect((await toolsOnly.team('solana')).data.businessExperienceRelevant).toBe(p.team.isBusinessExperienceRelevant);
    expect((await toolsOnly.githubActivity('solana')).data.commitsCount7d).toBe(p.github.commitsCount7d);
    expect((await toolsOnly.age('solana')).data.projectLaunchedAt).toBe(p.launchedAt);
    expect((await toolsOnly.marketData('solana')).data).toMatchObject({ price: p.market.price, marketCap: p.market.marketCap });
    expect((await toolsOnly.voiceProsCons('fantom')).data).toEqual({ pros: [], cons: [] });
    expect((await toolsOnly.voiceReviews('solana')).data).toEqual(p.voice.reviews);
    expect((await toolsOnly.health()).data.healthy).toBe(true);
  });

  it('builds a project record from the tools when no REST is configured', async () => {
    const rec = (await toolsOnly.record('project', 'aave')).data;
    expect(rec).toMatchObject({ kind: 'project', slug: 'aave', name: 'Aave', market: { price: sim.store.project('aave')!.market.price } });
  });

  it('fails clearly for data no tool offers when there is no REST, and uses REST when there is', async () => {
    for (const call of [
      () => toolsOnly.polCurrent('project', 'bitcoin'),
      () => toolsOnly.search('project', 'bit'),
      () => toolsOnly.list('exchange'),
      () => toolsOnly.polHistory('project', 'bitcoin', 0, 1),
      () => toolsOnly.ratings('exchange'),
      () => toolsOnly.indexPol('project'),
      () => toolsOnly.dashboard('binance'),
    ]) {
      await expect(call()).rejects.toMatchObject({
        kind: 'not_available',
        message: expect.stringMatching(/not available through the tool server/),
      });
    }
    const cur = await mcp.polCurrent('project', 'bitcoin');
    expect(cur.data.pol).toBe(last(sim.store.project('bitcoin')!.pol));
    expect(cur.meta.source).toBe('rest');
    expect((await mcp.list('exchange')).data).toHaveLength(sim.store.data.exchanges.length);
  });

  it('turns an unknown slug into not found, and a bad slug into invalid input without a call', async () => {
    await expect(toolsOnly.redFlags('no-such-project')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(toolsOnly.categoryScore('exchange', 'no-such-exchange', 'security')).rejects.toMatchObject({ kind: 'not_found' });
    sim.counter.reset();
    for (const bad of ['../health', 'a/b', '%2e%2e', '?x=1', '#', 'x'.repeat(10_000), '🚀', 'a\u0000b']) {
      await expect(toolsOnly.redFlags(bad)).rejects.toMatchObject({ kind: 'invalid_input' });
    }
    expect(sim.counter.total).toBe(0);
  });

  it('reports an unexpected shape as a bad response naming the tool', async () => {
    sim.faults.next('mcp:get_project_security_score', { kind: 'shape' });
    await expect(toolsOnly.categoryScore('project', 'bitcoin', 'security')).rejects.toMatchObject({
      kind: 'bad_response',
      route: 'mcp get_project_security_score',
    });
    expect((await toolsOnly.categoryScore('project', 'bitcoin', 'security')).data.score).toBeGreaterThan(0);
  });

  it('reconnects after a transport failure', async () => {
    await toolsOnly.age('bitcoin');
    sim.faults.next('/mcp', { kind: 'reset' });
    expect((await toolsOnly.age('ethereum')).data.projectLaunchedAt).toBe(sim.store.project('ethereum')!.launchedAt);
    sim.faults.next('/mcp', { kind: 'status', status: 503 }, 2);
    expect((await toolsOnly.age('solana')).data.projectLaunchedAt).toBe(sim.store.project('solana')!.launchedAt);
  });

  it('times out within its deadline and reports a wrong key as unauthorized', async () => {
    const slow = mcpSource(sim, { timeoutMs: 300 });
    sim.faults.set({ latencyMs: 2_000, match: /^\/mcp/ });
    try {
      const t = performance.now();
      await expect(slow.age('bitcoin')).rejects.toMatchObject({ kind: 'timeout' });
      expect(performance.now() - t).toBeLessThan(1_500);
    } finally {
      sim.faults.reset();
      await slow.close();
    }
    const { McpSource } = await import('../../../src/api/mcp/source.js');
    const wrong = new McpSource({ url: sim.mcpUrl, apiKey: 'svc_wrong', timeoutMs: 2_000 });
    await expect(wrong.age('bitcoin')).rejects.toMatchObject({ kind: 'unauthorized' });
    await wrong.close();
  });
});
