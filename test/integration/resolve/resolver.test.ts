import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CachedDataSource } from '../../../src/api/cache/cached-source.js';
import { Resolver, type Resolution } from '../../../src/resolve/resolver.js';
import type { Simulator } from '../../../src/sim/server.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { cached, restSource } from '../../helpers/sources.js';

let sim: Simulator;
let source: CachedDataSource;
let resolver: Resolver;
beforeAll(async () => {
  sim = await startTestSimulator();
  source = cached(restSource(sim));
  resolver = new Resolver(source, { exchangeNames: true, upstreamProjectResolution: false });
});
afterAll(async () => {
  await source.close();
  await sim.close();
});

const slugOf = (r: Resolution) => (r.status === 'resolved' ? `${r.entity.kind}:${r.entity.slug}` : r.status);
const candidates = (r: Resolution) => (r.status === 'ambiguous' ? r.candidates.map((c) => `${c.kind}:${c.slug}`) : []);

describe('resolver over the REST lists', () => {
  it('resolves exact slugs, names and tickers, whatever the case, spacing or diacritics', async () => {
    const cases: [string, string][] = [
      ['bitcoin', 'project:bitcoin'],
      ['BITCOIN', 'project:bitcoin'],
      ['  Bitcoin  ', 'project:bitcoin'],
      ['btc', 'project:bitcoin'],
      ['ETH', 'project:ethereum'],
      ['lido dao', 'project:lido-dao'],
      ['Lido-DAO', 'project:lido-dao'],
      ['Crème Finance', 'project:creme-finance'],
      ['creme finance', 'project:creme-finance'],
      ['CRÈME-FINANCE', 'project:creme-finance'],
      ['binance', 'exchange:binance'],
      ['uniswap', 'project:uniswap'],
    ];
    for (const [input, expected] of cases) expect(slugOf(await resolver.resolve(input)), input).toBe(expected);
  });

  it('resolves exchanges by brand and by slug when they differ', async () => {
    expect(slugOf(await resolver.resolve('Gate.io'))).toBe('exchange:gate-io');
    expect(slugOf(await resolver.resolve('gate-io'))).toBe('exchange:gate-io');
    expect(slugOf(await resolver.resolve('gateio'))).toBe('exchange:gate-io');
    expect(slugOf(await resolver.resolve('HTX'))).toBe('exchange:huobi');
    expect(slugOf(await resolver.resolve('huobi'))).toBe('exchange:huobi');
    expect(slugOf(await resolver.resolve('coinbase'))).toBe('exchange:coinbase-exchange');
    expect(slugOf(await resolver.resolve('crypto.com exchange'))).toBe('exchange:crypto-com');
  });

  it('calls the same key on a project and an exchange ambiguous across kinds', async () => {
    const r = await resolver.resolve('dydx');
    expect(r.status).toBe('ambiguous');
    expect(candidates(r).sort()).toEqual(['exchange:dydx', 'project:dydx']);
    expect(slugOf(await resolver.resolve('dydx', 'exchange'))).toBe('exchange:dydx');
    expect(slugOf(await resolver.resolve('dydx', 'project'))).toBe('project:dydx');
  });

  it('never auto-picks a partial match, even a single one', async () => {
    const shiba = await resolver.resolve('shiba');
    expect(shiba.status).toBe('ambiguous');
    expect(candidates(shiba).sort()).toEqual(['project:shiba-inu', 'project:shibaswap']);
    const lido = await resolver.resolve('lido');
    expect(candidates(lido).sort()).toEqual(['project:lido-dao', 'project:lido-staked-ether']);
    const bitcoinC = await resolver.resolve('bitcoin c');
    expect(bitcoinC.status).toBe('ambiguous');
    expect(candidates(bitcoinC)).toEqual(['project:bitcoin-cash']);
    const kraken = await resolver.resolve('krak');
    expect(kraken.status).toBe('ambiguous');
    expect(candidates(kraken)).toEqual(['exchange:kraken']);
  });

  it('gives not found with up to 5 suggestions for near misses, and none for nonsense', async () => {
    const typo = await resolver.resolve('etherium');
    expect(typo.status).toBe('not_found');
    const suggestions = typo.status === 'not_found' ? typo.suggestions.map((s) => s.slug) : [];
    expect(suggestions).toContain('ethereum');
    expect(suggestions.length).toBeLessThanOrEqual(5);
    const nonsense = await resolver.resolve('qqqzzzxxx');
    expect(nonsense).toMatchObject({ status: 'not_found', suggestions: [] });
  });

  it('handles hostile input without throwing and without sending it anywhere unencoded', async () => {
    const hostile = [
      '../health',
      'a/b',
      '%2e%2e',
      '?x=1',
      '#',
      'x'.repeat(10_000),
      '🚀🚀',
      'bit\u0000coin',
      '',
      '   ',
      '<!channel>',
      '\u202Ebitcoin',
      '../../exchanges_data/v1/list',
    ];
    sim.counter.reset();
    for (const input of hostile) {
      const r = await resolver.resolve(input);
      expect(['resolved', 'ambiguous', 'not_found']).toContain(r.status);
      if (r.status === 'resolved') expect(r.entity.slug).toMatch(/^[a-z0-9-]+$/);
    }
    // Only the two entity lists were fetched; no input reached a URL.
    for (const path of sim.counter.byPath.keys()) expect(['/projects_data/v1/list', '/exchanges_data/v1/list']).toContain(path);
    expect(slugOf(await resolver.resolve('bit\u0000coin'))).toBe('project:bitcoin');
  });

  it('suggests from cached lists only, best first, at most 25', async () => {
    await resolver.resolve('warm-up');
    sim.counter.reset();
    const bit = resolver.suggest('bit');
    expect(bit.length).toBeGreaterThan(3);
    expect(bit.length).toBeLessThanOrEqual(25);
    // Prefix matches come before names that merely contain the text.
    const starts = bit.map((b) => b.name.toLowerCase().startsWith('bit') || b.slug.startsWith('bit'));
    expect(starts.indexOf(false) === -1 || starts.slice(starts.indexOf(false)).every((s) => !s)).toBe(true);
    expect(resolver.suggest('bitcoin')[0]!.slug).toBe('bitcoin');
    expect(resolver.suggest('gate')[0]!.slug).toBe('gate-io');
    expect(bit.map((b) => b.kind)).toEqual(expect.arrayContaining(['project', 'exchange']));
    expect(resolver.suggest('').length).toBe(25);
    expect(sim.counter.total).toBe(0);
  });
});

describe('resolver through the MCP tool server', () => {
  it('uses resolve_project_slug, never auto-picks, and needs an explicit slug for exchanges without REST', async () => {
    const { mcpSource } = await import('../../helpers/sources.js');
    const toolsOnly = cached(mcpSource(sim));
    const mcpResolver = new Resolver(toolsOnly, { exchangeNames: false, upstreamProjectResolution: true });
    try {
      sim.counter.reset();
      expect(slugOf(await mcpResolver.resolve('Bitcoin'))).toBe('project:bitcoin');
      expect(sim.counter.tool('resolve_project_slug')).toBe(1);
      const shiba = await mcpResolver.resolve('shiba');
      expect(shiba.status).toBe('ambiguous');
      expect(candidates(shiba).sort()).toEqual(['project:shiba-inu', 'project:shibaswap']);
      const notFound = await mcpResolver.resolve('binance');
      expect(notFound).toMatchObject({ status: 'not_found', reason: 'exchange_names_unavailable' });
      expect(slugOf(await mcpResolver.resolve('binance', 'exchange'))).toBe('exchange:binance');
      expect((await mcpResolver.resolve('../x', 'exchange')).status).toBe('not_found');
    } finally {
      await toolsOnly.close();
    }
  });
});
