import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/sim/server.js';
import { simGet, startTestSimulator } from '../../helpers/sim.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterEach(() => sim.faults.reset());
afterAll(() => sim.close());

const PATH = '/projects_data/v1/bitcoin/pol/current';

describe('fault injection', () => {
  it('adds fixed latency', async () => {
    sim.faults.set({ latencyMs: 150 });
    const t = performance.now();
    const r = await simGet(sim, PATH);
    expect(r.status).toBe(200);
    expect(performance.now() - t).toBeGreaterThanOrEqual(145);
  });

  it('adds jittered latency within its bound', async () => {
    sim.faults.set({ latencyMs: 20, jitterMs: 60 });
    const times: number[] = [];
    for (let i = 0; i < 8; i++) {
      const t = performance.now();
      await simGet(sim, PATH);
      times.push(performance.now() - t);
    }
    expect(Math.min(...times)).toBeGreaterThanOrEqual(19);
    // Jitter means not every request waits the same time.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(3);
  });

  it('answers 500 and 503 at the configured error rate', async () => {
    sim.faults.set({ errorRate: 1 });
    const statuses = new Set<number>();
    for (let i = 0; i < 20; i++) statuses.add((await simGet(sim, PATH)).status);
    expect([...statuses].sort()).toEqual([500, 503]);
    sim.faults.set({ errorRate: 0.5 });
    let failures = 0;
    for (let i = 0; i < 200; i++) if ((await simGet(sim, PATH)).status !== 200) failures++;
    expect(failures).toBeGreaterThan(60);
    expect(failures).toBeLessThan(140);
  });

  it('answers 429 with Retry-After', async () => {
    sim.faults.set({ rateLimitRate: 1, retryAfterSec: 7 });
    const r = await simGet(sim, PATH);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.body.error.code).toBe('rate_limited');
  });

  it('fails health with 503 and failing checks while other routes still answer', async () => {
    sim.faults.set({ healthFailing: true });
    for (const service of ['projects_data', 'exchanges_data']) {
      const r = await simGet(sim, `/${service}/v1/health`);
      expect(r.status).toBe(503);
      expect(r.body.status).toBe('failing');
      expect(r.body.checks.some((c: any) => c.status === 'failing')).toBe(true);
    }
    expect((await simGet(sim, PATH)).status).toBe(200);
  });

  it('trickles a slow body: headers at once, the body over the configured time', async () => {
    sim.faults.set({ slowBodyMs: 400 });
    const t = performance.now();
    const res = await fetch(`${sim.url}${PATH}`, { headers: { 'x-api-key': sim.apiKey } });
    const headersAt = performance.now() - t;
    const body = (await res.json()) as any;
    const doneAt = performance.now() - t;
    expect(headersAt).toBeLessThan(200);
    expect(doneAt).toBeGreaterThanOrEqual(350);
    expect(body.pol).toBe(sim.store.project('bitcoin')!.pol.at(-1));
  });

  it('cuts bodies off mid-JSON', async () => {
    sim.faults.set({ malformedRate: 1 });
    const r = await simGet(sim, PATH);
    expect(r.status).toBe(200);
    expect(r.body).toBeUndefined();
    expect(() => JSON.parse(r.text)).toThrow();
    expect(r.text.length).toBeGreaterThan(0);
  });

  it('answers valid JSON of an unexpected shape', async () => {
    sim.faults.set({ unexpectedShapeRate: 1 });
    const r = await simGet(sim, PATH);
    expect(r.status).toBe(200);
    expect(r.body.pol).toBeUndefined();
    expect(typeof r.body.points).toBe('string');
  });

  it('resets the connection without an answer', async () => {
    sim.faults.set({ resetRate: 1 });
    await expect(simGet(sim, PATH)).rejects.toThrow();
  });

  it('restricts rate-based faults to matching paths', async () => {
    sim.faults.set({ errorRate: 1, match: /\/exchanges_data\// });
    expect((await simGet(sim, PATH)).status).toBe(200);
    expect((await simGet(sim, '/exchanges_data/v1/binance/pol/current')).status).toBeGreaterThanOrEqual(500);
  });

  it('scripts one-shot faults for the next N matching requests', async () => {
    sim.faults.next('/bitcoin/pol/current', { kind: 'status', status: 503 }, 2);
    expect((await simGet(sim, PATH)).status).toBe(503);
    expect((await simGet(sim, '/projects_data/v1/aave/pol/current')).status).toBe(200);
    expect((await simGet(sim, PATH)).status).toBe(503);
    expect((await simGet(sim, PATH)).status).toBe(200);
    sim.faults.next(PATH, { kind: 'redirect', location: 'http://127.0.0.1:9/elsewhere' });
    const redirect = await simGet(sim, PATH);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('http://127.0.0.1:9/elsewhere');
  });
});

describe('request counter', () => {
  it('counts requests by route template and by concrete path', async () => {
    sim.counter.reset();
    await simGet(sim, '/projects_data/v1/bitcoin/pol/current');
    await simGet(sim, '/projects_data/v1/bitcoin/pol/current');
    await simGet(sim, '/projects_data/v1/aave/pol/current');
    await simGet(sim, '/projects_data/v1/aave/pol/history/chart?days=90');
    expect(sim.counter.total).toBe(4);
    expect(sim.counter.route('GET /projects_data/v1/{slug}/pol/current')).toBe(3);
    expect(sim.counter.path('/projects_data/v1/bitcoin/pol/current')).toBe(2);
    expect(sim.counter.path('/projects_data/v1/aave/pol/history/chart?days=90')).toBe(1);
  });
});
