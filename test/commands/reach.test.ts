import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../commands/core/core.js';
import type { Args } from '../../commands/kit/spec.js';
import { TOOL_CONTRACT } from '../../src/api/mcp/contract.js';
import type { Action, Reply } from '../../src/reply/model.js';
import type { Simulator } from '../../src/sim/server.js';
import { demoCore } from '../helpers/core.js';
import { startTestSimulator } from '../helpers/sim.js';

/**
 * What a person can reach: every example in help, then every button on those answers, two clicks
 * deep, with REST and the tool server both configured, once preferring each. The simulator counts
 * what was called; every route of the projects service and every project tool of the two upstream
 * documents must be among it.
 */

/** The projects service's routes, as the REST document lists them. */
const PROJECT_ROUTES = [
  '/v1/health',
  '/v1/pol',
  '/v1/{slug}',
  '/v1/list',
  '/v1/{slug}/pol/current',
  '/v1/{slug}/pol/history',
  '/v1/{slug}/pol/history/chart',
  '/v1/{slug}/pol/by_category',
  '/v1/{slug}/pol/by_category/history',
  '/v1/{slug}/pol/by_category/history/chart',
  '/v1/{slug}/pol/by_metric',
  '/v1/{slug}/pol/by_metric/history',
  '/v1/{slug}/pol/by_metric/history/chart',
  '/v1/ratings',
  '/v1/ratings/parameters',
  '/v1/search',
  '/v1/search/trending',
  '/v1/pol/history',
  '/v1/pol/history/chart',
  '/v1/{slug}/security',
  '/v1/{slug}/financial',
  '/v1/{slug}/reputational',
  '/v1/{slug}/regulatory',
  '/v1/{slug}/proof_of_voice',
  '/v1/{slug}/proof_of_voice/history/chart',
  '/v1/{slug}/operational',
  '/v1/{slug}/financial/inflation/history/chart',
];

let sim: Simulator;
const cores: Core[] = [];

beforeAll(async () => {
  sim = await startTestSimulator();
  const env = { POL_API_BASE_URL: sim.url, POL_API_KEY: sim.apiKey, POL_MCP_URL: sim.mcpUrl, RATE_LIMIT_PER_USER: '0' };
  cores.push(await demoCore({ ...env, POL_SOURCE: 'rest' }), await demoCore({ ...env, POL_SOURCE: 'mcp' }));
});
afterAll(async () => {
  await Promise.all(cores.map((c) => c.close()));
  await sim.close();
});

const actionsOf = (r: Reply): Action[] => [...('actions' in r && r.actions ? r.actions : []), ...(r.kind === 'choice' ? r.options : [])];

async function explore(core: Core): Promise<number> {
  const help = (await core.run('help')).reply;
  const examples = (help.kind === 'text' ? (help.commands ?? []) : []).flatMap((c) => c.examples.map((e) => e.text!)).filter((t) => !t.startsWith('digest'));
  let level: Reply[] = [];
  for (const text of examples) level.push((await core.run(text)).reply);
  const clicked = new Set<string>();
  for (let depth = 0; depth < 2; depth++) {
    const next: Reply[] = [];
    for (const reply of level) {
      for (const a of actionsOf(reply)) {
        const key = JSON.stringify(a.run);
        if (clicked.has(key)) continue;
        clicked.add(key);
        next.push((await core.invoke({ command: a.run.command, args: (a.run.args ?? {}) as Args })).reply);
      }
    }
    level = next;
  }
  return clicked.size;
}

describe('reach from help and two clicks', () => {
  it('calls every route of the projects service and every project tool, through REST and the tool server together', { timeout: 120_000 }, async () => {
    // Counted from the start: the name lists load while the cores start.
    const clicks = await Promise.all(cores.map(explore));
    for (const n of clicks) expect(n).toBeGreaterThan(20);
    const routes = new Set([...sim.counter.byRoute.keys()]);
    expect(PROJECT_ROUTES.filter((r) => !routes.has(`GET /projects_data${r}`))).toEqual([]);
    const tools = new Set(sim.counter.byTool.keys());
    const projectTools = Object.keys(TOOL_CONTRACT).filter((t) => !t.includes('exchange'));
    expect(projectTools.filter((t) => !tools.has(t))).toEqual([]);
  });
});
