import type { APIMessage } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_MESSAGE } from '../../../adapters/discord/commands.js';
import { GUILD_ID, startStack, type Stack } from '../../helpers/discord.js';

/**
 * "Check with polbot" under a message's Apps menu: the names in the message, each in short,
 * answered to the person alone; a name that could be several is listed, never answered for one.
 */

const EPHEMERAL = 1 << 6;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_PER_USER: '0' });
});
afterAll(() => stack.close());

async function postMessage(content: string): Promise<APIMessage> {
  const res = await fetch(`${stack.fake.apiUrl}/v10/channels/${stack.channelId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bot ${stack.fake.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as APIMessage;
}

describe('Check with polbot (Discord message menu)', () => {
  it('is registered as a message command beside /pol', () => {
    const registered = stack.fake.commands(GUILD_ID).find((c) => c.name === CHECK_MESSAGE);
    expect(registered).toMatchObject({ type: 3, name: 'Check with polbot' });
  });

  it('answers privately with each name the message holds, in short, and lists what could be several', async () => {
    const sim = stack.core.upstream.sim!;
    const message = await postMessage('Moving funds from Kraken to OKX, then into $UNI; dydx next week');
    const h = stack.fake.sendMessageCommand({ name: CHECK_MESSAGE, message });
    const callback = await h.callback();
    expect(callback.type).toBe(5);
    expect((callback.data as { flags?: number }).flags).toBe(EPHEMERAL);
    const edit = await h.waitForEdit(15_000);
    const shown = JSON.stringify(edit.body);
    expect(shown).toContain('Named in that message: Kraken, OKX, Uniswap');
    // PoL from the dataset, in percent with two decimals below 10%.
    const kraken = sim.store.exchange('kraken')!.pol.at(-1)!;
    expect(shown).toContain(`${(kraken * 100).toFixed(2)}%`);
    expect(shown).toContain('“dydx” could be several');
    expect(shown).toContain('dYdX · exchange');
    expect(shown).toContain('dYdX (DYDX) · project');
    // Nothing reached the channel: the answer was for the person alone.
    expect(stack.fake.messages(stack.channelId).filter((m) => m.id !== message.id && m.content.includes('Named in'))).toEqual([]);
  });

  it('says when a message names nothing it knows', async () => {
    const message = await postMessage('lunch at noon?');
    const h = stack.fake.sendMessageCommand({ name: CHECK_MESSAGE, message });
    const edit = await h.waitForEdit(15_000);
    expect(JSON.stringify(edit.body)).toContain('No project or exchange names found in that message');
  });
});
