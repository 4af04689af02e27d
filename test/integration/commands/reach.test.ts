import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import type { Args } from '../../../commands/kit/spec.js';
import { typedText } from '../../../src/reply/inline.js';
import type { CommandRef, Reply } from '../../../src/reply/model.js';
import type { Simulator } from '../../../src/sim/server.js';
import { demoCore } from '../../helpers/core.js';
import { exploreTwoClicks, reachKey, unreachedOperations, type ReachStep } from '../../helpers/reach.js';
import { startTestSimulator } from '../../helpers/sim.js';

/**
 * What a person can reach, counted at the core: every example in help, then every button on those
 * answers, two clicks deep, with REST and the tool server both configured, once preferring each.
 * The Slack, Discord and console tests walk the same way through their own surfaces.
 */

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

function step(core: Core, ref: CommandRef): ReachStep {
  return {
    key: reachKey(typedText(ref)),
    async run() {
      const { reply } = await core.invoke({ command: ref.command, args: (ref.args ?? {}) as Args });
      return buttonsOf(reply).map((b) => step(core, b));
    },
  };
}

const buttonsOf = (r: Reply): CommandRef[] =>
  [...('actions' in r && r.actions ? r.actions : []), ...(r.kind === 'choice' ? r.options : [])].map((a) => a.run);

async function explore(core: Core): Promise<string[]> {
  const help = (await core.run('help')).reply;
  const examples = (help.kind === 'text' ? (help.commands ?? []) : [])
    .flatMap((c) => c.examples)
    .filter((e) => !/^(digest|alert)-?/.test(e.command));
  return exploreTwoClicks(examples.map((e) => step(core, e)));
}

describe('reach from help and two clicks', () => {
  it('calls all 55 routes of the two services and all 23 tools, through REST and the tool server together', {
    timeout: 60_000,
  }, async () => {
    // Counted from the start: the name lists load while the cores start.
    for (const core of cores) expect((await explore(core)).length).toBeGreaterThan(40);
    expect(unreachedOperations(sim)).toEqual({ routes: [], tools: [] });
  });
});
