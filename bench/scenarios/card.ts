/**
 * Cold card, the naive sequential baseline and the warm card, interleaved sample by sample so both
 * sides of every ratio see the same machine, the same simulator and the same injected latency.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Pool } from 'undici';
import type { Core } from '../../commands/core/core.js';
import type { PolPoint } from '../../src/api/domain.js';
import { createChartRenderer, type ChartSpec } from '../../src/charts/index.js';
import type { Reply } from '../../src/reply/model.js';
import { benchCore, chartsOf, clearCaches } from '../lib/polbot.js';
import type { SimHandle } from '../lib/sim.js';
import { round, summarize, timed, type Summary } from '../lib/stats.js';
import { fmtMs, type BenchOptions, type ScenarioResult } from '../lib/types.js';

/** Projects whose names resolve to exactly one entity; the card under test is a project card. */
export const CARD_PROJECTS = ['Bitcoin', 'Solana', 'Chainlink', 'Uniswap', 'Cardano', 'Avalanche', 'Polkadot', 'Litecoin'];

const PROJECT_SCORE_TOOLS = ['security', 'financial', 'operational', 'reputational', 'regulatory'].map((c) => `get_project_${c}_score`);

function assertCard(reply: Reply, what: string): void {
  if (reply.kind !== 'card')
    throw new Error(`${what}: expected a card, got ${reply.kind}${'message' in reply ? `: ${reply.message}` : ''}`);
  if (reply.image?.kind !== 'png' || reply.image.png.length < 1000) throw new Error(`${what}: the card has no chart PNG`);
}

/**
 * What an agent does with the same API: one tool call after another, each waiting for the last,
 * then REST for what no tool offers, then the same chart drawn by the same renderer.
 */
class NaiveAgent {
  private client!: Client;
  private readonly rest: Pool;
  private readonly charts = createChartRenderer({ renderer: 'local', quickchartUrl: 'https://quickchart.io' });

  constructor(private readonly sim: SimHandle) {
    this.rest = new Pool(sim.url, { connections: 4 });
  }

  async connect(): Promise<void> {
    this.client = new Client({ name: 'naive-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(this.sim.mcpUrl), {
      requestInit: { headers: { 'x-api-key': this.sim.apiKey } },
    });
    await this.client.connect(transport);
  }

  private async tool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = await this.client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 200)}`);
    return (result.structuredContent ?? {}) as Record<string, unknown>;
  }

  private async get(path: string): Promise<Record<string, unknown>> {
    const res = await this.rest.request({ path, method: 'GET', headers: { 'x-api-key': this.sim.apiKey } });
    const body = (await res.body.json()) as Record<string, unknown>;
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
    return body;
  }

  /** The same project card's content, assembled sequentially; returns the number of upstream calls. */
  async card(name: string): Promise<number> {
    let calls = 0;
    const resolved = await this.tool('resolve_project_slug', { query: name });
    calls++;
    // An agent must not guess: only a resolved slug goes on.
    const slug = resolved.status === 'resolved' ? (resolved.resolvedSlug as string | undefined) : undefined;
    if (!slug) throw new Error(`resolve_project_slug did not resolve ${name}: ${JSON.stringify(resolved).slice(0, 200)}`);
    for (const tool of PROJECT_SCORE_TOOLS) {
      await this.tool(tool, { slug });
      calls++;
    }
    await this.tool('get_project_red_flags', { slug });
    await this.tool('get_project_market_data', { slug });
    await this.tool('get_project_categories_scores_dynamic', { slug, days: 90 });
    calls += 3;
    // No tool offers overall PoL, its history, the index or the record (category, chains).
    await this.get(`/projects_data/v1/${slug}/pol/current`);
    const chart = await this.get(`/projects_data/v1/${slug}/pol/history/chart?days=90`);
    await this.get('/projects_data/v1/pol');
    await this.get(`/projects_data/v1/${slug}`);
    calls += 4;
    const points = (chart.points as { timestamp: number; pol: number }[]).map(
      (p): PolPoint => ({ timestamp: p.timestamp, pol: p.pol }) as PolPoint,
    );
    this.charts.clear();
    const spec = { kind: 'pol', entityName: name, range: '90d', simulated: true, cacheKey: `project:${slug}`, points } as ChartSpec;
    const image = await this.charts.render(spec);
    if (image.kind !== 'png') throw new Error('naive chart is not a PNG');
    return calls;
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
    await this.rest.close();
  }
}

/** One plain GET on the keep-alive pool: the round trip every upstream request pays. */
async function measureRoundTrip(sim: SimHandle, samples: number): Promise<Summary> {
  const pool = new Pool(sim.url, { connections: 1 });
  const times: number[] = [];
  for (let i = 0; i < samples + 3; i++) {
    const { ms } = await timed(async () => {
      const res = await pool.request({
        path: '/projects_data/v1/bitcoin/pol/current',
        method: 'GET',
        headers: { 'x-api-key': sim.apiKey },
      });
      await res.body.dump();
    });
    if (i >= 3) times.push(ms);
  }
  await pool.close();
  return summarize(times);
}

/** The card's own chart (90 days of PoL), drawn with the image cache cleared each time. */
async function measureCardChart(core: Core, samples: number): Promise<Summary> {
  const charts = chartsOf(core);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const name = CARD_PROJECTS[i % CARD_PROJECTS.length]!;
    const slug = name.toLowerCase();
    const points = (await core.upstream.source.polChart('project', slug, 90)).data;
    charts.clear();
    const spec = { kind: 'pol', entityName: name, range: '90d', simulated: true, cacheKey: `project:${slug}`, points } as ChartSpec;
    times.push((await timed(() => charts.render(spec))).ms);
  }
  return summarize(times);
}

/**
 * Times the chart renders a command does, without changing them: the cold card's time splits into
 * its data round and its chart, and each part is compared with its own floor.
 */
function timeRenders(core: Core): { take(): number } {
  const inner = core.ctx.charts;
  let ms = 0;
  core.ctx.charts = {
    async render(spec) {
      const started = performance.now();
      try {
        return await inner.render(spec);
      } finally {
        ms += performance.now() - started;
      }
    },
  };
  return {
    take() {
      const taken = ms;
      ms = 0;
      return taken;
    },
  };
}

export async function cardScenario(sim: SimHandle, o: BenchOptions): Promise<ScenarioResult> {
  const samples = o.quick ? 8 : 48;
  const warmSamples = o.quick ? 80 : 400;
  await sim.setFaults({ latencyMs: o.latencyMs, jitterMs: o.jitterMs });
  const core = await benchCore(sim, o.log);
  const renders = timeRenders(core);
  const agent = new NaiveAgent(sim);
  await agent.connect();
  try {
    // Warm-up, untimed: JIT, fonts, keep-alive connections on both sides.
    for (const name of CARD_PROJECTS.slice(0, 3)) {
      clearCaches(core);
      assertCard((await core.run(name)).reply, `warm-up ${name}`);
      await agent.card(name);
    }

    const coldAll: number[] = [];
    const coldData: number[] = [];
    const coldChart: number[] = [];
    const coldWithoutChart: number[] = [];
    const naive: number[] = [];
    let naiveCalls = 0;
    for (let i = 0; i < samples; i++) {
      const name = CARD_PROJECTS[i % CARD_PROJECTS.length]!;

      // Cold everything: entity lists (resolution), entity data and chart image.
      clearCaches(core);
      const a = await timed(() => core.run(name));
      assertCard(a.value.reply, `cold ${name}`);
      coldAll.push(a.ms);

      // Cold entity data and chart, with the entity lists already held (as a running bot has them).
      clearCaches(core);
      await Promise.all([core.upstream.source.list('project'), core.upstream.source.list('exchange')]);
      renders.take();
      const b = await timed(() => core.run(name));
      assertCard(b.value.reply, `cold data ${name}`);
      const chartMs = renders.take();
      coldData.push(b.ms);
      coldChart.push(chartMs);
      coldWithoutChart.push(b.ms - chartMs);

      const n = await timed(() => agent.card(name));
      naive.push(n.ms);
      naiveCalls = n.value;
    }

    // The first card of a freshly started polbot: start-up loaded the name lists, so the card
    // costs one data round and its chart.
    const firstAll: number[] = [];
    const firstData: number[] = [];
    for (let i = 0; i < (o.quick ? 4 : 12); i++) {
      const fresh = await benchCore(sim, o.log);
      const freshRenders = timeRenders(fresh);
      try {
        const name = CARD_PROJECTS[i % CARD_PROJECTS.length]!;
        const f = await timed(() => fresh.run(name));
        assertCard(f.value.reply, `first card ${name}`);
        firstAll.push(f.ms);
        firstData.push(f.ms - freshRenders.take());
      } finally {
        await fresh.close();
      }
    }

    // Warm: data and chart cached; every reply still carries its PNG.
    for (const name of CARD_PROJECTS) assertCard((await core.run(name)).reply, `warm-up ${name}`);
    const warm: number[] = [];
    for (let i = 0; i < warmSamples; i++) {
      const name = CARD_PROJECTS[i % CARD_PROJECTS.length]!;
      const w = await timed(() => core.run(name));
      assertCard(w.value.reply, `warm ${name}`);
      warm.push(w.ms);
    }

    await sim.setFaults({ latencyMs: o.latencyMs, jitterMs: o.jitterMs });
    const rtt = await measureRoundTrip(sim, o.quick ? 10 : 30);
    const chart = await measureCardChart(core, o.quick ? 12 : 30);

    const A = summarize(coldAll);
    const B = summarize(coldData);
    const C = summarize(coldChart);
    const D = summarize(coldWithoutChart);
    const N = summarize(naive);
    const W = summarize(warm);
    const F = summarize(firstAll);
    const FD = summarize(firstData);
    const L = o.latencyMs;
    const speedup = N.p50 / A.p50;
    const resolution = A.p50 - B.p50;
    return {
      rows: [
        {
          metric: '1. cold card after resolution (lists held; data + chart cold): p50 / p95',
          measured: `${fmtMs(B.p50)} / ${fmtMs(B.p95)} = ${fmtMs(D.p50)} data round + ${fmtMs(C.p50)} chart`,
          target: `≤ 1.3 × RTT + chart = ${fmtMs(1.3 * L + C.p50)}`,
          pass: B.p50 <= 1.3 * L + C.p50,
        },
        {
          metric: '1. cold card: data round after resolution / injected RTT',
          measured: `${(D.p50 / L).toFixed(2)}× (p95 ${(D.p95 / L).toFixed(2)}×)`,
          target: '≤ 1.3×',
          pass: D.p50 <= 1.3 * L,
        },
        {
          metric: '1. first card after start: data round / injected RTT',
          measured: `${(FD.p50 / L).toFixed(2)}× (p95 ${(FD.p95 / L).toFixed(2)}×); whole card ${fmtMs(F.p50)} with its chart`,
          target: '≤ 1.3×',
          pass: FD.p50 <= 1.3 * L,
        },
        {
          metric: '1. cold card, all cold (resolution lists + data + chart): p50 / p95',
          measured: `${fmtMs(A.p50)} / ${fmtMs(A.p95)} = ${(A.p50 / L).toFixed(2)}× RTT; resolution ${fmtMs(resolution)}`,
          target: '— (two rounds: lists, then data)',
          pass: null,
        },
        {
          metric: `2. naive sequential MCP + REST (${naiveCalls} calls) p50 / polbot's speed-up`,
          measured: `${fmtMs(N.p50)} / ${speedup.toFixed(2)}× (${(N.p50 / B.p50).toFixed(2)}× with lists held)`,
          target: '≥ 4×',
          pass: speedup >= 4,
        },
        {
          metric: '3. warm card p50 / p95 (data + chart cached)',
          measured: `${fmtMs(W.p50)} / ${fmtMs(W.p95)}`,
          target: '≤ 15 ms',
          pass: W.p50 <= 15,
        },
      ],
      details: {
        injectedLatencyMs: L,
        jitterMs: o.jitterMs,
        measuredRoundTripMs: rtt,
        cardChartRenderMs: chart,
        coldCardAfterResolutionMs: B,
        coldCardChartMs: C,
        coldCardDataRoundMs: D,
        coldCardAllColdMs: A,
        firstCardAfterStartMs: F,
        firstCardAfterStartDataRoundMs: FD,
        resolutionCostMs: round(resolution, 2),
        coldCardRatioToRtt: { afterResolution: round(B.p50 / L, 2), dataRound: round(D.p50 / L, 2), allCold: round(A.p50 / L, 2) },
        naiveSequentialMs: N,
        naiveUpstreamCalls: naiveCalls,
        speedupOverNaive: round(speedup, 2),
        speedupOverNaiveAfterResolution: round(N.p50 / B.p50, 2),
        warmCardMs: W,
        projects: CARD_PROJECTS,
      },
    };
  } finally {
    await agent.close();
    await core.close();
  }
}
