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

/** Runs the examples, then their buttons, then those answers' buttons; returns how many steps ran. */
export async function exploreTwoClicks(examples: readonly ReachStep[]): Promise<string[]> {
  const ran: string[] = [];
  const seen = new Set<string>();
  let level: ReachStep[] = [...examples];
  for (let depth = 0; depth <= 2 && level.length; depth++) {
    const next: ReachStep[] = [];
    for (const step of level) {
      if (seen.has(step.key)) continue;
      seen.add(step.key);
      ran.push(step.key);
      next.push(...(await step.run()));
    }
    level = next;
  }
  return ran;
}

/** The projects service's routes, as the REST document lists them. */
export const PROJECT_ROUTES = [
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
].map((r) => `GET /projects_data${r}`);

export const PROJECT_TOOLS = Object.keys(TOOL_CONTRACT).filter((t) => !t.includes('exchange'));

/** What of the projects service and the project tools the simulator was never asked for. */
export function unreachedProjectOperations(sim: Simulator): { routes: string[]; tools: string[] } {
  const routes = new Set(sim.counter.byRoute.keys());
  const tools = new Set(sim.counter.byTool.keys());
  return { routes: PROJECT_ROUTES.filter((r) => !routes.has(r)), tools: PROJECT_TOOLS.filter((t) => !tools.has(t)) };
}
