import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import type { Reply } from '../../../src/reply/model.js';
import type { Simulator } from '../../../src/sim/server.js';
import { ask, demoCore, visibleText } from '../../helpers/core.js';
import { randomChanges, startOddProxy, type OddProxy, type RandomChange } from '../../helpers/odd-proxy.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { brokenNumbers } from '../../helpers/truth.js';

/**
 * Every command against an upstream that changes answers at random (seeded, so a failure repeats):
 * fields missing and renamed, or values of the wrong type (lists and objects swapped, text where a
 * number is meant). Identity fields are left alone: without them an answer may fail whole. Nothing
 * else may cost the whole answer, and no broken number may show.
 */

/** Commands whose reply is one kind of upstream answer (a chart, a ranking, a list, the two indexes). */
const ONE_ANSWER = new Set(['chart aave 30d', 'top exchanges', 'top projects', 'trending', 'index']);
const COMMANDS = [
  'project aave',
  'exchange kraken',
  'flags aave',
  'chart aave 30d',
  'compare aave, uniswap',
  'top exchanges',
  'top projects',
  'search swap',
  'trending',
  'index',
];
const SEEDS = [1, 2, 3];
/**
 * Left as they are: what identifies an entity or an answer, and the container of a list or a
 * series (without it there is nothing to show, and the answer rightly says it could not be read).
 */
const IDENTITY = new Set([
  'slug',
  'name',
  'resolvedSlug',
  'requestedSlug',
  'status',
  'entityType',
  'simulated',
  'jsonrpc',
  'id',
  'tools',
  'items',
  'points',
  'projects',
]);

let sim: Simulator;
let proxy: OddProxy;
const cores: Record<'REST' | 'tool server with REST', Core> = {} as never;

beforeAll(async () => {
  sim = await startTestSimulator();
  proxy = await startOddProxy(sim.url);
  const upstream = { POL_API_BASE_URL: proxy.url, POL_API_KEY: sim.apiKey, RATE_LIMIT_PER_USER: '0' };
  cores.REST = await demoCore(upstream);
  cores['tool server with REST'] = await demoCore({ ...upstream, POL_MCP_URL: proxy.mcpUrl, POL_SOURCE: 'mcp' });
  // The name lists come through unchanged: resolution is not what this sweep is about.
  await Promise.all(
    Object.values(cores).map((c) =>
      Promise.all([ask(c, 'search aave'), c.upstream.source.list('project'), c.upstream.source.list('exchange')]),
    ),
  );
});
afterAll(async () => {
  await Promise.all(Object.values(cores).map((c) => c.close()));
  await proxy.close();
  await sim.close();
});

describe.each(['REST', 'tool server with REST'] as const)('through %s', (name) => {
  it.each(['missing or renamed', 'wrong types', 'another body'] as RandomChange[])(
    'fields %s at random: every command answers with what it could read',
    async (mode) => {
      const core = cores[name];
      const lost: string[] = [];
      const broken: string[] = [];
      const wrongEntity: string[] = [];
      let answered = 0;
      for (const seed of SEEDS) {
        // Lists stay cached (they hold the identities); every other answer is asked again.
        core.upstream.source.cache.clear();
        await Promise.all([core.upstream.source.list('project'), core.upstream.source.list('exchange')]);
        proxy.set(randomChanges(mode, seed, IDENTITY));
        for (const text of COMMANDS) {
          const reply: Reply = await ask(core, text);
          const shown = visibleText(reply);
          if (reply.kind === 'error') {
            // A command made of one answer has nothing left when that whole answer is another's.
            const allowed =
              mode === 'another body' &&
              ONE_ANSWER.has(text) &&
              reply.message === 'The risk-data service sent an answer we could not read.';
            if (!allowed) lost.push(`seed ${seed} "${text}": ${shown.replace(/\n/g, ' | ').slice(0, 200)}`);
          } else answered++;
          // An answer about another entity is never shown as this one's.
          if (/someone-else|50\.0%/.test(shown)) wrongEntity.push(`seed ${seed} "${text}"`);
          for (const b of brokenNumbers(reply)) broken.push(`seed ${seed} "${text}": ${b}`);
        }
        proxy.set(null);
      }
      expect(broken).toEqual([]);
      expect(lost).toEqual([]);
      expect(wrongEntity).toEqual([]);
      if (mode !== 'another body') expect(answered).toBe(COMMANDS.length * SEEDS.length);
      else expect(answered).toBeGreaterThanOrEqual(COMMANDS.length * SEEDS.length * 0.6);
      // The sweep did change answers on both services and, through the tool server, its tools.
      const changed = [...proxy.changed().keys()];
      expect(changed.some((k) => k.startsWith('rest /projects_data'))).toBe(true);
      expect(changed.some((k) => k.startsWith('rest /exchanges_data'))).toBe(true);
      if (name !== 'REST') expect(changed.some((k) => k.startsWith('mcp get_project_'))).toBe(true);
    },
  );
});
