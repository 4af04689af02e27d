import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import { Health } from '../../../src/ops/health.js';
import { createMetrics } from '../../../src/ops/metrics.js';
import type { CardReply } from '../../../src/reply/model.js';
import type { Simulator } from '../../../src/sim/server.js';
import { ask, demoCore, visibleText } from '../../helpers/core.js';
import { startOddProxy, type OddProxy } from '../../helpers/odd-proxy.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { polText, scoreText } from '../../helpers/truth.js';

/**
 * REST and the tool server both configured, REST preferred. REST goes away (its port closes: every
 * call is refused) while the tool server stays up: polbot answers from the tool server what it can,
 * says what is missing, and shows each source's circuit in /healthz and /metrics.
 */

let sim: Simulator;
let restGateway: OddProxy;
let core: Core;
const metrics = createMetrics();

beforeAll(async () => {
  sim = await startTestSimulator();
  // REST goes through a proxy that can be stopped on its own; the tool server is the simulator's.
  restGateway = await startOddProxy(sim.url);
  core = await demoCore(
    { POL_API_BASE_URL: restGateway.url, POL_API_KEY: sim.apiKey, POL_MCP_URL: sim.mcpUrl, POL_SOURCE: 'rest', RATE_LIMIT_PER_USER: '0' },
    { metrics, breaker: { threshold: 3, cooldownMs: 60_000 } },
  );
});
afterAll(async () => {
  await core.close();
  await sim.close();
});

const last = <T>(a: readonly T[]) => a[a.length - 1]!;
const field = (r: CardReply, section: string, label: string) =>
  r.sections.find((s) => s.title === section)?.fields?.find((f) => f.label === label);

describe('failover from REST to the tool server', () => {
  it('answers with REST while it is up, with both circuits closed', async () => {
    const r = (await ask(core, 'project aave')) as CardReply;
    expect(r.headline.value).toBe(polText(last(sim.store.project('aave')!.pol)));
    expect(r.footer.sources).toEqual(['rest']);
    expect(core.upstream.source.cache.stats().breakers).toEqual({ rest: 'closed', mcp: 'closed' });
  });

  it('with REST refused, a project card comes from the tool server and says what is missing', async () => {
    await restGateway.close();
    core.upstream.source.cache.clear();
    const aave = sim.store.project('aave')!;
    const r = (await ask(core, 'project aave')) as CardReply;
    expect(r.kind).toBe('card');
    // The tool server's project list carries no tickers.
    expect(r.title).toBe('Aave');
    expect(r.footer.sources).toEqual(['mcp']);
    // Overall PoL has no tool: the card says so instead of showing a number.
    expect(r.headline.value).toBe('unavailable');
    expect(r.headline.change?.text).toBe('Overall PoL unavailable right now (the REST service is not answering).');
    // The category quality scores come from the five score tools.
    for (const category of ['security', 'financial', 'operational', 'reputational', 'regulatory'] as const) {
      const label = category[0]!.toUpperCase() + category.slice(1);
      expect(field(r, 'Category quality scores', label)?.value, label).toBe(scoreText(last(aave.categories[category].scores)));
    }
    expect(visibleText(r)).not.toMatch(/could not read|went wrong/i);
  });

  it('shows each source circuit in /healthz and /metrics: REST open, the tool server closed', async () => {
    // Enough refused calls have been made to open the REST circuit.
    await ask(core, 'project uniswap');
    expect(core.upstream.source.cache.stats().breakers).toEqual({ rest: 'open', mcp: 'closed' });

    const health = new Health(core.upstream.source, { checkIntervalMs: 0 });
    const problems = await health.check();
    expect(problems.mcp).toEqual([]);
    expect(problems.rest?.map((p) => p.kind)).toEqual(['refused']);
    const report = await health.report();
    expect(report.status).toBe('degraded');
    expect(report.upstream.circuits).toEqual({ rest: 'open', mcp: 'closed' });

    const scraped = await metrics.registry.metrics();
    expect(scraped).toContain('polbot_upstream_circuit_state{source="rest"} 2');
    expect(scraped).toContain('polbot_upstream_circuit_state{source="mcp"} 0');

    const text = visibleText(await ask(core, 'health'));
    expect(text).toContain('The risk-data service answers through the tool server only');
    expect(text).toContain('the connection was refused');
  });

  it('an exchange card, which needs REST, says so in a short message', async () => {
    const r = await ask(core, 'exchange kraken');
    expect(r.kind).toBe('error');
    const text = visibleText(r);
    expect(text.length).toBeLessThan(400);
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
  });
});
