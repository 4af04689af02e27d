import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import type { Simulator } from '../../../src/sim/server.js';
import { Typist } from '../../helpers/console.js';
import { demoCore } from '../../helpers/core.js';
import { exploreTwoClicks, reachKey, unreachedOperations, type ReachStep } from '../../helpers/reach.js';
import { startTestSimulator } from '../../helpers/sim.js';

/**
 * Reach through the console: help's examples as the console prints them (`e.g. /pol binance, …`)
 * typed at the prompt, then what each answer offers typed in turn: the commands after `more:`
 * and the numbers of a choice. Two answers deep, as a person would go.
 */

let sim: Simulator;
let chartDir: string;
const consoles: { core: Core; typed: Typist }[] = [];

beforeAll(async () => {
  sim = await startTestSimulator();
  chartDir = await mkdtemp(join(tmpdir(), 'polbot-reach-'));
  const env = { POL_API_BASE_URL: sim.url, POL_API_KEY: sim.apiKey, POL_MCP_URL: sim.mcpUrl, RATE_LIMIT_PER_USER: '0' };
  for (const source of ['rest', 'mcp']) {
    const core = await demoCore({ ...env, POL_SOURCE: source });
    consoles.push({ core, typed: new Typist(core, chartDir) });
  }
});
afterAll(async () => {
  for (const c of consoles) {
    await c.typed.close();
    await c.core.close();
  }
  await sim.close();
  await rm(chartDir, { recursive: true, force: true });
});

/** What an answer offers: the commands after `more:`, or a choice's numbers (typed right after the question). */
function offered(typed: Typist, lines: readonly string[], answer: string): ReachStep[] {
  const more = /^more: (.*)$/m.exec(answer)?.[1];
  const commands = more ? more.split(/ {2}(?=\/pol )/).map((c) => c.replace(/^\/pol /, '')) : [];
  const numbers = [...answer.matchAll(/^ {2}(\d+)\. (.*)$/gm)].map((m) => ({ n: m[1]!, label: m[2]! }));
  return [
    ...commands.map((c) => stepOf(typed, [c], reachKey(c))),
    ...numbers.map(({ n, label }) => stepOf(typed, [...lines, n], `${lines.join(' / ')} → ${label}`)),
  ];
}

function stepOf(typed: Typist, lines: string[], key: string): ReachStep {
  return {
    key,
    async run() {
      let answer = '';
      for (const line of lines) answer = await typed.type(line);
      return offered(typed, lines, answer);
    },
  };
}

async function examplesShown(typed: Typist): Promise<string[]> {
  const help = await typed.type('help');
  const lines = help.split('\n').filter((l) => l.trim().startsWith('e.g. '));
  return lines
    .flatMap((l) =>
      l
        .trim()
        .slice('e.g. '.length)
        .split(/, (?=\/pol )/)
        .map((e) => e.replace(/^\/pol /, '')),
    )
    .filter((e) => !/^(digest|alert)\b/.test(e));
}

describe('reach in the console', () => {
  it('calls all 55 routes of the two services and all 23 tools from help and two answers on', { timeout: 120_000 }, async () => {
    for (const { typed } of consoles) {
      const examples = await examplesShown(typed);
      expect(examples).toContain('pepe security');
      expect(examples).toContain('compare binance, kraken, okx');
      const ran = await exploreTwoClicks(examples.map((e) => stepOf(typed, [e], reachKey(e))));
      expect(ran).toContain('ratings projects page=2');
      expect(ran.length).toBeGreaterThan(40);
    }
    expect(unreachedOperations(sim)).toEqual({ routes: [], tools: [] });
  });
});
