import { TOOL_CONTRACT } from '../../src/api/mcp/contract.js';
import type { Simulator } from '../../src/sim/server.js';

/**
 * What a person can reach on one surface: help's examples as that surface shows them, then every
 * button on those answers, two clicks deep. A surface supplies the steps; the explorer walks them.
 */
export interface ReachStep {
  /** What the step runs, with entity names generalised (see `reachKey`), so each kind of step runs once. */
  key: string;
  /** Runs it as the person would and returns the steps the answer offers (its buttons). */
  run(): Promise<ReachStep[]>;
}

/**
 * A command's typed text with its entities generalised: `section project:pepe voice` and
 * `section project:aave voice` call the same routes, so one of them stands for both. Without this
 * the walk grows to hundreds of answers (every row of every list is a card with a dozen buttons).
 */
export const reachKey = (typed: string): string => typed.trim().replace(/\b(project|exchange):[a-z0-9-]+/g, '$1:*');

/**
 * Runs the examples, then their buttons, then those answers' buttons; returns the keys of the steps
 * that ran. Which steps run does not depend on `concurrency`: a level's steps are chosen, in order,
 * before any of them runs. Several at a time suit a surface that paces each chat, as Telegram does.
 */
export async function exploreTwoClicks(examples: readonly ReachStep[], concurrency = 1): Promise<string[]> {
  const ran: string[] = [];
  const seen = new Set<string>();
  let level: ReachStep[] = [...examples];
  for (let depth = 0; depth <= 2 && level.length; depth++) {
    const todo = level.filter((step) => !seen.has(step.key) && seen.add(step.key));
    ran.push(...todo.map((step) => step.key));
    const offered: ReachStep[][] = [];
    let at = 0;
    const worker = async () => {
      while (at < todo.length) {
        const i = at++;
        offered[i] = await todo[i]!.run();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));
    level = offered.flat();
  }
  return ran;
}

/** Routes both services have, as the REST document lists them. */
const SHARED_ROUTES = [
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
];

/** The exchanges service's routes: the shared ones and its own. */
const EXCHANGE_ROUTES = [
  ...SHARED_ROUTES,
  '/v1/top_ratings',
  '/v1/transparency_stats',
  '/v1/lost_funds',
  '/v1/dashboard/{slug}',
  '/v1/{slug}/listed_assets',
  '/v1/{slug}/listed_assets/categories',
  '/v1/{slug}/transparency',
  '/v1/{slug}/security',
  '/v1/{slug}/solvency',
  '/v1/{slug}/solvency/liabilities_reserves/history/chart',
  '/v1/ratings/parameters/tokens',
].map((r) => `GET /exchanges_data${r}`);

/** The projects service's routes, as the REST document lists them. */
const PROJECT_ROUTES = [
  ...SHARED_ROUTES,
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
].map((r) => `GET /projects_data${r}`);

/** Every route of the two services (55) and every tool of the tool server (23). */
export const ALL_ROUTES = [...PROJECT_ROUTES, ...EXCHANGE_ROUTES];
if (ALL_ROUTES.length !== 55) throw new Error(`the REST document lists 55 routes, not ${ALL_ROUTES.length}`);
export const ALL_TOOLS = Object.keys(TOOL_CONTRACT);
if (ALL_TOOLS.length !== 23) throw new Error(`the tool document lists 23 tools, not ${ALL_TOOLS.length}`);

/** What of the two services and the tool server the simulator was never asked for. */
export function unreachedOperations(sim: Simulator): { routes: string[]; tools: string[] } {
  const routes = new Set(sim.counter.byRoute.keys());
  const tools = new Set(sim.counter.byTool.keys());
  return { routes: ALL_ROUTES.filter((r) => !routes.has(r)), tools: ALL_TOOLS.filter((t) => !tools.has(t)) };
}
