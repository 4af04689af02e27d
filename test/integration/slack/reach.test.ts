import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../fakes/slack/index.js';
import { exploreTwoClicks, reachKey, unreachedOperations, type ReachStep } from '../../helpers/reach.js';
import { startTestSimulator } from '../../helpers/sim.js';
import type { Simulator } from '../../../src/sim/server.js';
import { startHarness, uniqueId, type Harness } from '../../helpers/slack/harness.js';

/**
 * Reach through Slack: help's examples as Slack shows them (`/pol pepe security`), each typed as a
 * slash command, then every button of each answer clicked, two clicks deep. A button Slack cannot
 * show (over its limits) is not clicked, so what the simulator counts is what a person in Slack
 * can get to.
 */

let sim: Simulator;
const harnesses: Harness[] = [];

beforeAll(async () => {
  sim = await startTestSimulator();
  const env = { POL_API_BASE_URL: sim.url, POL_API_KEY: sim.apiKey, POL_MCP_URL: sim.mcpUrl };
  harnesses.push(await startHarness({ env: { ...env, POL_SOURCE: 'rest' } }), await startHarness({ env: { ...env, POL_SOURCE: 'mcp' } }));
});
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  await sim.close();
});

interface Button {
  action_id: string;
  value: string;
}

const WAIT_MS = 10_000;

/** The message that answers a step: a post in its own channel, or on its own reply link. */
async function answerTo(h: Harness, channel: string, responseId: string): Promise<RecordedCall> {
  return Promise.race([
    h.fake.waitFor('chat.postMessage', (c) => c.args.channel === channel && c.status === 200, WAIT_MS),
    h.fake.waitFor('response_url', (c) => c.id === responseId && !/Looking up/.test(String(c.args.text)), WAIT_MS),
  ]);
}

function buttonsIn(call: RecordedCall): Button[] {
  const blocks = (call.args.blocks ?? []) as { type: string; elements?: (Button & { type: string })[] }[];
  return blocks.flatMap((b) => (b.type === 'actions' ? (b.elements ?? []).filter((e) => e.type === 'button') : []));
}

function clickStep(h: Harness, button: Button, from: RecordedCall): ReachStep {
  return {
    key: reachKey(button.value),
    async run() {
      const channel = uniqueId('CREACH').toUpperCase();
      const responseId = uniqueId('reach-click');
      const ephemeral = from.method === 'response_url';
      const response = await h.click(button.action_id, button.value, {
        channel,
        responseId,
        ephemeral,
        messageTs: (from.response as { ts?: string } | undefined)?.ts ?? '1763800000.000100',
      });
      expect(response.status).toBe(200);
      return stepsFrom(h, await answerTo(h, channel, responseId));
    },
  };
}

const stepsFrom = (h: Harness, answer: RecordedCall): ReachStep[] => buttonsIn(answer).map((b) => clickStep(h, b, answer));

function typedStep(h: Harness, text: string): ReachStep {
  return {
    key: reachKey(text),
    async run() {
      const channel = uniqueId('CREACH').toUpperCase();
      const responseId = uniqueId('reach-cmd');
      expect((await h.command(text, { channel, responseId })).status).toBe(200);
      return stepsFrom(h, await answerTo(h, channel, responseId));
    },
  };
}

/** Help's examples, read from the help message as Slack shows it: `_e.g._ `/pol binance`, …`. */
async function examplesShown(h: Harness): Promise<string[]> {
  const responseId = uniqueId('reach-help');
  await h.command('help', { responseId });
  const help = await answerTo(h, 'none', responseId);
  const texts = ((help.args.blocks ?? []) as { text?: { text?: string } }[]).map((b) => b.text?.text ?? '');
  const lines = texts.flatMap((t) => t.split('\n')).filter((l) => l.includes('_e.g._'));
  const examples = lines.flatMap((l) => [...l.split('_e.g._')[1]!.matchAll(/`\/pol ([^`]+)`/g)].map((e) => e[1]!));
  return examples.filter((e) => !/^(digest|alert)\b/.test(e));
}

describe('reach in Slack', () => {
  it('calls all 55 routes of the two services and all 23 tools from help and two clicks', { timeout: 120_000 }, async () => {
    for (const h of harnesses) {
      const examples = await examplesShown(h);
      expect(examples).toContain('pepe security');
      const ran = await exploreTwoClicks(examples.map((t) => typedStep(h, t)));
      expect(ran.length).toBeGreaterThan(40);
    }
    expect(unreachedOperations(sim)).toEqual({ routes: [], tools: [] });
  });
});
