import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeInvocation } from '../../../adapters/discord/custom-id.js';
import type { CommandRef } from '../../../src/reply/model.js';
import type { Simulator } from '../../../src/sim/server.js';
import type { InteractionHandle, RecordedCall } from '../../fakes/discord/index.js';
import { exploreTwoClicks, reachKey, unreachedOperations, type ReachStep } from '../../helpers/reach.js';
import { startTestSimulator } from '../../helpers/sim.js';
import { messageBody, startStack, type Stack } from '../../helpers/discord.js';

/**
 * Reach through Discord: help's examples as the Discord help shows them (the command, then
 * `name: pepe` `section: security`), each sent as a slash command with those options, then every
 * button and menu entry of each answer used, two clicks deep.
 */

let sim: Simulator;
const stacks: Stack[] = [];

beforeAll(async () => {
  sim = await startTestSimulator();
  const env = { POL_API_BASE_URL: sim.url, POL_API_KEY: sim.apiKey, POL_MCP_URL: sim.mcpUrl, RATE_LIMIT_PER_USER: '0' };
  stacks.push(await startStack({ ...env, POL_SOURCE: 'rest' }), await startStack({ ...env, POL_SOURCE: 'mcp' }));
});
afterAll(async () => {
  await Promise.all(stacks.map((s) => s.close()));
  await sim.close();
});

interface Component {
  type: number;
  custom_id?: string;
  label?: string;
  options?: { value: string; label: string }[];
  components?: Component[];
}
interface Message {
  embeds?: { fields?: { value: string }[] }[];
  components?: Component[];
}

const WAIT_MS = 10_000;

/** The message that answers an interaction: sent with the callback, or edited or followed up after a deferral. */
async function answerOf(h: InteractionHandle): Promise<Message> {
  const callback = await h.callback(WAIT_MS);
  if (callback.type === 4 || callback.type === 7) return (callback.data ?? {}) as Message;
  const call: RecordedCall = await Promise.race([h.waitForEdit(WAIT_MS), h.waitForFollowup(WAIT_MS)]);
  return (messageBody(call) ?? {}) as Message;
}

/**
 * A component's command in typed form, for telling which steps are alike. A long command kept on
 * the adapter's side under a fresh key each time is told apart by where it was offered and its label.
 */
function keyOf(stack: Stack, value: string, parent: string, label: string): string {
  const command = value.startsWith('pol:run:') ? value.slice('pol:run:'.length) : value;
  const invocation = command.startsWith('~') ? undefined : decodeInvocation(command);
  return invocation ? reachKey(stack.core.registry.text(invocation as CommandRef)) : `${parent} > ${label}`;
}

function componentSteps(stack: Stack, message: Message, parent: string): ReachStep[] {
  const all = (message.components ?? []).flatMap((row) => row.components ?? []);
  return all.flatMap((c): ReachStep[] => {
    if (!c.custom_id) return []; // a link button
    const customId = c.custom_id;
    if (c.type === 2)
      return [
        step(
          keyOf(stack, customId, parent, c.label ?? customId),
          () => stack.fake.sendComponent({ custom_id: customId, component_type: 2 }),
          stack,
        ),
      ];
    // A filter menu's options are the same list filtered another way: one of them stands for all.
    const options = customId.startsWith('pol:run:menu-') ? (c.options ?? []).slice(0, 1) : (c.options ?? []);
    return options.map((o) =>
      step(
        keyOf(stack, o.value, parent, o.label),
        () => stack.fake.sendComponent({ custom_id: customId, component_type: 3, values: [o.value] }),
        stack,
      ),
    );
  });
}

function step(key: string, send: () => InteractionHandle, stack: Stack): ReachStep {
  return { key, run: async () => componentSteps(stack, await answerOf(send()), key) };
}

interface Example {
  subcommand: string;
  options: Record<string, string | number>;
}

/**
 * Help's examples, read from the help embed: each `e.g.` line under the command mention it
 * belongs to. A command shown without examples takes no options: its mention runs it as it is.
 */
async function examplesShown(stack: Stack): Promise<Example[]> {
  const help = await answerOf(stack.fake.sendCommand({ name: 'pol', subcommand: 'help' }));
  const lines = (help.embeds?.[0]?.fields ?? []).flatMap((f) => f.value.split('\n'));
  const examples: Example[] = [];
  lines.forEach((line, i) => {
    const subcommand = /^<\/pol ([a-z-]+):\d+>/.exec(line)?.[1];
    if (!subcommand) return;
    const next = lines[i + 1] ?? '';
    if (!next.startsWith('e.g. ')) return void examples.push({ subcommand, options: {} });
    for (const example of next.slice('e.g. '.length).split(' · ')) {
      const options = Object.fromEntries(
        [...example.matchAll(/`([a-z_]+): ([^`]+)`/g)].map((m) => [m[1]!, /^\d+$/.test(m[2]!) ? Number(m[2]) : m[2]!]),
      );
      examples.push({ subcommand, options });
    }
  });
  return examples;
}

describe('reach in Discord', () => {
  it('calls all 55 routes of the two services and all 23 tools from help and two clicks', { timeout: 120_000 }, async () => {
    for (const stack of stacks) {
      const examples = await examplesShown(stack);
      expect(examples).toContainEqual({ subcommand: 'section', options: { name: 'pepe', section: 'security' } });
      const steps = examples.map((e) =>
        step(`${e.subcommand} ${JSON.stringify(e.options)}`, () => stack.fake.sendCommand({ name: 'pol', ...e }), stack),
      );
      const ran = await exploreTwoClicks(steps);
      expect(ran.length).toBeGreaterThan(40);
    }
    expect(unreachedOperations(sim)).toEqual({ routes: [], tools: [] });
  });
});
