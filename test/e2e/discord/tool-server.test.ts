import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimStore } from '../../../src/sim/data/store.js';
import { TEST_AS_OF } from '../../helpers/sim.js';
import { messageBody, startStack, type Stack } from '../../helpers/discord.js';

/**
 * Discord against the tool server alone (no REST base URL): no tool lists or resolves exchanges,
 * so an exchange is named by its slug, and only what the tools answer is offered.
 */

const BIN = join(import.meta.dirname, '../../../bin/polbot.js');
const EPHEMERAL = 64;

type Body = {
  content?: string;
  flags?: number;
  embeds?: { title?: string; fields?: { name: string; value: string }[]; footer?: { text: string } }[];
  components?: { components: { label?: string; custom_id?: string }[] }[];
};
const body = (call: Parameters<typeof messageBody>[0]) => (messageBody(call) ?? {}) as Body;

let stack: Stack;
const truth = new SimStore({ seed: 42, asOf: TEST_AS_OF });

beforeAll(async () => {
  // A generous deadline: the first call also starts the tool server as a child process.
  stack = await startStack({
    POL_TIMEOUT_MS: '20000',
    POL_SOURCE: 'mcp',
    POL_MCP_COMMAND: `node ${BIN} sim --mcp-stdio --as-of 2026-11-22`,
  });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

describe('Discord with the tool server alone', () => {
  it('offers the typed slug as an exchange in autocomplete, labelled as a slug', async () => {
    const h = stack.fake.sendAutocomplete({ name: 'pol', subcommand: 'exchange', options: { name: 'Kraken' }, focused: 'name' });
    const choices = ((await h.callback(3_000)).data as { choices: { name: string; value: string }[] }).choices;
    expect(choices[0]).toEqual({ name: 'Exchange with the slug “kraken”', value: 'exchange:kraken' });
    // Projects are about project names: no slug is offered for them.
    const flags = stack.fake.sendAutocomplete({ name: 'pol', subcommand: 'flags', options: { name: 'kraken' }, focused: 'name' });
    const projectChoices = ((await flags.callback(3_000)).data as { choices: { value: string }[] }).choices;
    expect(projectChoices.some((c) => c.value.startsWith('exchange:'))).toBe(false);
  });

  it('answers /pol exchange by slug with the scores the tools give, and offers only buttons the tools can answer', async () => {
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'exchange', options: { name: 'exchange:kraken' } });
    const call = await h.waitForEdit(30_000);
    const edit = body(call);
    // No tool draws PoL history; the card's chart is the category quality history, and says so.
    expect(call.files).toHaveLength(1);
    expect(edit.embeds?.[0]?.footer?.text).toContain('the tool server has no PoL history');
    const embed = edit.embeds?.[0];
    const scores = embed?.fields?.find((f) => f.name === 'Category quality scores (higher is better)');
    const solvency = truth.exchange('kraken')!.categories.solvency.scores.at(-1)!;
    expect(scores?.value).toContain(`Solvency: **${Math.round(solvency * 10) / 10}**`);
    // What the tools cannot give is said plainly, not as a failure.
    expect(embed?.fields?.find((f) => f.name === 'Safeguards')?.value).toBe('_needs the REST service_');
    const buttons = (edit.components ?? []).flatMap((r) => r.components.map((c) => c.label));
    // No tool draws a PoL history, a dashboard or listed assets: those buttons would only fail,
    // so they are not offered; each section's quality score comes from its tool.
    expect(buttons).toEqual(['Category trends', 'Transparency', 'Security', 'Solvency']);
  });

  it('says how to name an exchange when a name is not a project, as a command the person can follow', async () => {
    const h = stack.fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'kraken' } });
    // Only for the asker: the deferral is ephemeral, and the answer replaces it.
    expect(((await h.callback()).data as Body).flags).toBe(EPHEMERAL);
    const message = body(await h.waitForEdit(30_000));
    expect(message.content).toContain('named by their slug');
    // A Discord command with its option, not the typed Slack grammar.
    expect(message.content).toMatch(/(<\/pol exchange:\d+>|`\/pol exchange`) `name: <slug>`/);
    expect(message.content).not.toContain('/pol search');
  });
});
