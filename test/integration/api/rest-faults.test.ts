import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../src/api/errors.js';
import type { Simulator } from '../../../src/sim/server.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { restSource } from '../../helpers/sources.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterEach(() => sim.faults.reset());
afterAll(() => sim.close());

const CURRENT = '/projects_data/v1/bitcoin/pol/current';

async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(UpstreamError);
    return err as UpstreamError;
  }
  throw new Error('expected the call to fail');
}

describe('RestSource under upstream faults', () => {
  it('gives a timeout error within its deadline', async () => {
    const rest = restSource(sim, { timeoutMs: 300 });
    sim.faults.set({ latencyMs: 2_000 });
    const t = performance.now();
    const err = await failure(rest.polCurrent('project', 'bitcoin'));
    expect(err.kind).toBe('timeout');
    expect(performance.now() - t).toBeLessThan(1_500);
    expect(err.message).not.toMatch(/svc_|http:|127\.0\.0\.1/);
    await rest.close();
  });

  it('honours Retry-After on 429 and then succeeds', async () => {
    const rest = restSource(sim, { timeoutMs: 4_000 });
    sim.counter.reset();
    sim.faults.next(CURRENT, { kind: 'status', status: 429, retryAfterSec: 1 });
    const t = performance.now();
    const ok = await rest.polCurrent('project', 'bitcoin');
    const waited = performance.now() - t;
    expect(ok.data.pol).toBe(sim.store.project('bitcoin')!.pol.at(-1));
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(sim.counter.path(CURRENT)).toBe(2);
    await rest.close();
  });

  it('does not wait for a Retry-After longer than its deadline', async () => {
    const rest = restSource(sim, { timeoutMs: 1_000 });
    sim.faults.next(CURRENT, { kind: 'status', status: 429, retryAfterSec: 30 });
    const t = performance.now();
    const err = await failure(rest.polCurrent('project', 'bitcoin'));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterMs).toBe(30_000);
    expect(performance.now() - t).toBeLessThan(500);
    await rest.close();
  });

  it('retries a 503 to success', async () => {
    const rest = restSource(sim);
    sim.counter.reset();
    sim.faults.next(CURRENT, { kind: 'status', status: 503 }, 2);
    const ok = await rest.polCurrent('project', 'bitcoin');
    expect(ok.data.rating).toBeTruthy();
    expect(sim.counter.path(CURRENT)).toBe(3);
    await rest.close();
  });

  it('retries 502/503/504 to exhaustion and gives a typed error', async () => {
    const rest = restSource(sim, { maxAttempts: 3 });
    for (const status of [502, 503, 504]) {
      sim.counter.reset();
      sim.faults.next(CURRENT, { kind: 'status', status }, 10);
      const err = await failure(rest.polCurrent('project', 'bitcoin'));
      expect(err.kind).toBe('unavailable');
      expect(err.status).toBe(status);
      expect(sim.counter.path(CURRENT)).toBe(3);
      sim.faults.reset();
    }
    await rest.close();
  });

  it('does not retry a 500 or a 404', async () => {
    const rest = restSource(sim);
    sim.counter.reset();
    sim.faults.next(CURRENT, { kind: 'status', status: 500 });
    expect((await failure(rest.polCurrent('project', 'bitcoin'))).kind).toBe('unavailable');
    expect(sim.counter.path(CURRENT)).toBe(1);
    sim.counter.reset();
    expect((await failure(rest.polCurrent('project', 'nope'))).kind).toBe('not_found');
    expect(sim.counter.path('/projects_data/v1/nope/pol/current')).toBe(1);
    await rest.close();
  });

  it('retries a connection reset', async () => {
    const rest = restSource(sim);
    sim.faults.next(CURRENT, { kind: 'reset' });
    expect((await rest.polCurrent('project', 'bitcoin')).data.pol).toBeGreaterThan(0);
    await rest.close();
  });

  it('reports malformed JSON as a bad response naming the route for the log, not to the person', async () => {
    const rest = restSource(sim);
    sim.faults.next(CURRENT, { kind: 'malformed' });
    const err = await failure(rest.polCurrent('project', 'bitcoin'));
    expect(err.kind).toBe('bad_response');
    expect(err.route).toBe('projects_data /v1/{slug}/pol/current');
    expect(err.message).toBe('The risk-data service sent an answer we could not read.');
    await rest.close();
  });

  it('reports an unexpected shape as a bad response naming the route for the log', async () => {
    const rest = restSource(sim);
    sim.faults.next('/exchanges_data/v1/kraken/pol/by_category', { kind: 'shape' });
    const err = await failure(rest.byCategory('exchange', 'kraken'));
    expect(err.kind).toBe('bad_response');
    expect(err.route).toBe('exchanges_data /v1/{slug}/pol/by_category');
    expect(err.message).not.toMatch(/v1|\{slug\}|categories/);
    expect(err.detail).toMatch(/categories/);
    await rest.close();
  });

  it('rejects a wrong key as unauthorized', async () => {
    const rest = restSource(sim, { apiKey: 'svc_wrong' });
    expect((await failure(rest.list('project'))).kind).toBe('unauthorized');
    await rest.close();
  });

  it('refuses a redirect to another host and never sends the key there', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const foreign: Server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"pol":0.5,"rating":"C"}');
    });
    await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', r));
    const { port } = foreign.address() as AddressInfo;
    const rest = restSource(sim);
    try {
      sim.faults.next(CURRENT, { kind: 'redirect', location: `http://127.0.0.1:${port}/steal` });
      const err = await failure(rest.polCurrent('project', 'bitcoin'));
      expect(err.kind).toBe('bad_response');
      expect(err.message).toMatch(/another host/);
      expect(err.message).not.toContain(String(port));
      expect(seen).toHaveLength(0);
      // A same-host redirect is followed...
      sim.faults.next(CURRENT, { kind: 'redirect', location: '/projects_data/v1/bitcoin/pol/current?moved=1' });
      expect((await rest.polCurrent('project', 'bitcoin')).data.pol).toBe(sim.store.project('bitcoin')!.pol.at(-1));
      // ...but an answer about another entity is not taken for the one asked about.
      sim.faults.next(CURRENT, { kind: 'redirect', location: '/projects_data/v1/aave/pol/current' });
      const elsewhere = await failure(rest.polCurrent('project', 'bitcoin'));
      expect(elsewhere.kind).toBe('bad_response');
      expect(elsewhere.detail).toBe('slug: the answer is about "aave", not "bitcoin"');
    } finally {
      await rest.close();
      await new Promise((r) => foreign.close(r));
    }
  });

  it('caps the response size', async () => {
    const rest = restSource(sim, { maxBodyBytes: 10_000 });
    const err = await failure(rest.polChart('project', 'bitcoin'));
    expect(err.kind).toBe('bad_response');
    expect(err.detail).toMatch(/larger than 10000 bytes/);
    expect((await rest.polCurrent('project', 'bitcoin')).data.pol).toBeGreaterThan(0);
    await rest.close();
  });

  it('gives a timeout for a body that trickles past the deadline', async () => {
    const rest = restSource(sim, { timeoutMs: 400 });
    sim.faults.set({ slowBodyMs: 2_000 });
    expect((await failure(rest.polCurrent('project', 'bitcoin'))).kind).toBe('timeout');
    await rest.close();
  });
});
