import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import { Health } from '../../../src/ops/health.js';
import { createMetrics, type Metrics } from '../../../src/ops/metrics.js';
import { operationalRoutes, startRouteServer } from '../../../src/http/routes.js';
import type { Caller } from '../../../commands/kit/context.js';
import { demoCore } from '../../helpers/core.js';

let core: Core;
let metrics: Metrics;
let health: Health;
let server: Awaited<ReturnType<typeof startRouteServer>>;
let base: string;
beforeAll(async () => {
  metrics = createMetrics();
  core = await demoCore({ RATE_LIMIT_PER_USER: '3', RATE_LIMIT_PER_CHANNEL: '5', RATE_LIMIT_WINDOW_SEC: '60' }, { metrics });
  health = new Health(core.upstream.source, { checkIntervalMs: 0 });
  server = await startRouteServer(operationalRoutes(health, metrics), 0, '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.close();
  await core.close();
});

const caller = (userId: string, channelId = 'C1'): Caller => ({ platform: 'slack', userId, channelId, canManageDigests: true });

describe('operations', () => {
  it('serves /healthz with the upstream source, circuit and cache', async () => {
    await core.run('binance', caller('U0', 'C0'));
    await fetch(`${base}/healthz`);
    await new Promise((r) => setTimeout(r, 100));
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      status: 'ok',
      upstream: { source: 'rest', circuits: { rest: 'closed' }, healthy: true, problems: { rest: [] } },
    });
    expect(body.upstream.cache.entries).toBeGreaterThan(0);
  });

  it('shows a degraded upstream on /healthz without failing the liveness check', async () => {
    core.upstream.sim!.faults.set({ healthFailing: true });
    core.upstream.source.cache.clear();
    try {
      await fetch(`${base}/healthz`);
      await new Promise((r) => setTimeout(r, 150));
      const res = await fetch(`${base}/healthz`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.status).toBe('degraded');
      expect(body.upstream.healthy).toBe(false);
    } finally {
      core.upstream.sim!.faults.reset();
      core.upstream.source.cache.clear();
    }
  });

  it('exposes Prometheus metrics for commands, upstream requests and the cache', async () => {
    await core.run('kraken', caller('U9', 'C9'));
    const res = await fetch(`${base}/metrics`);
    const text = await res.text();
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    expect(text).toMatch(/polbot_command_duration_seconds_count\{command="card",platform="slack",reply="card"\} [1-9]/);
    expect(text).toMatch(
      /polbot_upstream_request_duration_seconds_count\{route="exchanges_data \/v1\/\{slug\}\/pol\/current",status="200"\} [1-9]/,
    );
    expect(text).toMatch(/polbot_cache_lookups_total\{method="polCurrent",outcome="miss"\} [1-9]/);
    expect(text).not.toContain(core.upstream.sim!.apiKey);
  });

  it('limits each person, politely, without calling the upstream', async () => {
    for (let i = 0; i < 3; i++) expect((await core.run('okx', caller('U1', 'C2'))).reply.kind).toBe('card');
    const counter = core.upstream.sim!.counter;
    counter.reset();
    const limited = await core.run('okx', caller('U1', 'C2'));
    expect(limited.reply).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/faster than polbot answers\. Please wait \d+ s/),
    });
    expect(counter.total).toBe(0);
    // Someone else in the same channel is still answered.
    expect((await core.run('okx', caller('U2', 'C2'))).reply.kind).toBe('card');
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/polbot_rate_limited_total\{platform="slack",scope="user"\} 1/);
  });

  it('limits a busy channel too', async () => {
    for (let i = 0; i < 5; i++) await core.run('help', caller(`V${i}`, 'C3'));
    const limited = await core.run('help', caller('V9', 'C3'));
    expect(limited.reply).toMatchObject({ kind: 'error', message: expect.stringMatching(/This channel is asking faster/) });
  });

  it('answers 503 on /healthz while stopping', async () => {
    health.stopping = true;
    try {
      const res = await fetch(`${base}/healthz`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as any).status).toBe('stopping');
    } finally {
      health.stopping = false;
    }
  });
});
