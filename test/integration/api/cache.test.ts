import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/sim/server.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { cached, restSource } from '../../helpers/sources.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterEach(() => sim.faults.reset());
afterAll(() => sim.close());

describe('cache in front of a source', () => {
  it('coalesces 100 concurrent identical calls into one upstream request', async () => {
    const source = cached(restSource(sim));
    sim.faults.set({ latencyMs: 50 });
    sim.counter.reset();
    const results = await Promise.all(Array.from({ length: 100 }, () => source.polCurrent('project', 'bitcoin')));
    expect(sim.counter.path('/projects_data/v1/bitcoin/pol/current')).toBe(1);
    expect(sim.counter.total).toBe(1);
    expect(new Set(results.map((r) => r.data.pol))).toEqual(new Set([sim.store.project('bitcoin')!.pol.at(-1)]));
    await source.close();
  });

  it('coalesces different methods that share one REST route', async () => {
    const source = cached(restSource(sim));
    sim.counter.reset();
    sim.faults.set({ latencyMs: 30 });
    await Promise.all([
      source.redFlags('pepe'),
      source.socialFraud('pepe'),
      source.team('pepe'),
      source.age('pepe'),
      source.githubActivity('pepe'),
    ]);
    expect(sim.counter.path('/projects_data/v1/pepe/reputational')).toBe(1);
    expect(sim.counter.path('/projects_data/v1/pepe/operational')).toBe(1);
    expect(sim.counter.total).toBe(2);
    await source.close();
  });

  it('serves repeated calls from the cache within the TTL, and refetches after it', async () => {
    const source = cached(restSource(sim), { ttl: { polCurrent: 150 } });
    sim.counter.reset();
    await source.polCurrent('project', 'aave');
    await source.polCurrent('project', 'aave');
    expect(sim.counter.total).toBe(1);
    expect(source.cache.stats()).toMatchObject({ hits: 1, misses: 1 });
    await new Promise((r) => setTimeout(r, 200));
    await source.polCurrent('project', 'aave');
    expect(sim.counter.total).toBe(2);
    await source.close();
  });

  it('serves the last good value, marked stale with its age, when the upstream fails', async () => {
    const source = cached(restSource(sim, { maxAttempts: 1 }), { ttl: { polCurrent: 50 } });
    const fresh = await source.polCurrent('project', 'solana');
    expect(fresh.meta.stale).toBeUndefined();
    await new Promise((r) => setTimeout(r, 120));
    sim.faults.set({ errorRate: 1 });
    const stale = await source.polCurrent('project', 'solana');
    expect(stale.data).toEqual(fresh.data);
    expect(stale.meta.stale?.ageMs).toBeGreaterThanOrEqual(100);
    expect(stale.meta.stale?.reason).toBe('unavailable');
    expect(stale.meta.fetchedAt).toBe(fresh.meta.fetchedAt);
    expect(source.cache.stats().staleServed).toBe(1);
    // Nothing cached for this one: the error comes through, typed.
    await expect(source.polCurrent('project', 'cardano')).rejects.toMatchObject({ kind: 'unavailable' });
    await source.close();
  });

  it('refuses stale values older than the configured maximum', async () => {
    const source = cached(restSource(sim, { maxAttempts: 1 }), { ttl: { polCurrent: 20 }, maxStaleMs: 50 });
    await source.polCurrent('project', 'tron');
    await new Promise((r) => setTimeout(r, 100));
    sim.faults.set({ errorRate: 1 });
    await expect(source.polCurrent('project', 'tron')).rejects.toMatchObject({ kind: 'unavailable' });
    await source.close();
  });

  it('opens the circuit after repeated failures and fails fast without calling the upstream', async () => {
    const source = cached(restSource(sim, { maxAttempts: 1 }), {}, { threshold: 3, cooldownMs: 300 });
    sim.faults.set({ errorRate: 1 });
    for (const slug of ['xrp', 'tron', 'sui'])
      await expect(source.polCurrent('project', slug)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(source.cache.stats().breakers).toEqual({ rest: 'open' });
    sim.counter.reset();
    await expect(source.polCurrent('project', 'near-protocol')).rejects.toMatchObject({
      kind: 'unavailable',
      detail: expect.stringMatching(/circuit open/),
    });
    expect(sim.counter.total).toBe(0);
    sim.faults.reset();
    await new Promise((r) => setTimeout(r, 350));
    expect((await source.polCurrent('project', 'near-protocol')).data.pol).toBeGreaterThan(0);
    expect(source.cache.stats().breakers).toEqual({ rest: 'closed' });
    await source.close();
  });

  it('does not count answers such as not found against the breaker, and does not cache them', async () => {
    const source = cached(restSource(sim), {}, { threshold: 2 });
    sim.counter.reset();
    for (let i = 0; i < 4; i++) await expect(source.polCurrent('project', 'missing-one')).rejects.toMatchObject({ kind: 'not_found' });
    expect(source.cache.stats().breakers).toEqual({ rest: 'closed' });
    expect(sim.counter.total).toBe(4);
    await source.close();
  });

  it('limits upstream concurrency', async () => {
    const source = cached(restSource(sim), { concurrency: 2 });
    sim.faults.set({ latencyMs: 100 });
    const t = performance.now();
    await Promise.all(['bitcoin', 'ethereum', 'solana', 'cardano'].map((s) => source.polCurrent('project', s)));
    // Four calls through two slots take two rounds of the injected latency.
    expect(performance.now() - t).toBeGreaterThanOrEqual(190);
    await source.close();
  });

  it('peeks at cached values without calling the upstream', async () => {
    const source = cached(restSource(sim));
    expect(source.cache.peek('list', 'exchange')).toBeUndefined();
    await source.list('exchange');
    sim.counter.reset();
    expect(source.cache.peek('list', 'exchange')?.data.length).toBe(sim.store.data.exchanges.length);
    expect(sim.counter.total).toBe(0);
    await source.close();
  });

  it('stays within its entry bound', async () => {
    const source = cached(restSource(sim), { maxEntries: 5 });
    for (const p of sim.store.data.projects.slice(0, 12)) await source.polCurrent('project', p.slug);
    expect(source.cache.stats().entries).toBeLessThanOrEqual(5);
    await source.close();
  });
});

describe('cache byte bound', () => {
  it('evicts to stay within its byte budget', async () => {
    const source = cached(restSource(sim), { maxBytes: 200_000 });
    for (const p of sim.store.data.projects.slice(0, 10)) await source.polChart('project', p.slug);
    const stats = source.cache.stats();
    expect(stats.bytes).toBeLessThanOrEqual(200_000);
    expect(stats.entries).toBeLessThan(10);
    expect(stats.entries).toBeGreaterThan(0);
    await source.close();
  });
});
