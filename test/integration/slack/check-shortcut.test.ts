import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_SHORTCUT_ID } from '../../../adapters/slack/index.js';
import { messageActionBody, postToBolt } from '../../fakes/slack/index.js';
import { blocksJson, SIGNING_SECRET, startHarness, type Harness } from '../../helpers/slack/harness.js';

/**
 * "Check with polbot" from a message's menu in Slack (a message shortcut): the names the message
 * holds, each with its PoL and rating, answered to the person alone through the reply link.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const shortcut = (text: string, responseId: string, blocks?: unknown[]) =>
  postToBolt(
    h.endpoint,
    messageActionBody({
      callback_id: CHECK_SHORTCUT_ID,
      message: { text, ...(blocks ? { blocks } : {}) },
      response_url: h.fake.responseUrl(responseId),
    }),
    SIGNING_SECRET,
  );

describe('Check with polbot (Slack message shortcut)', () => {
  it('answers privately with each name the message holds, and what could be several', async () => {
    const response = await shortcut('Moving funds from Kraken to OKX, then into $UNI; dydx next week', 'check-1');
    expect(response.status).toBe(200);
    const answer = await h.fake.waitFor('response_url', (c) => c.id === 'check-1', 10_000);
    expect(answer.args.response_type).toBe('ephemeral');
    const shown = blocksJson(answer.args);
    expect(shown).toContain('Named in that message: Kraken, OKX, Uniswap');
    const kraken = h.sim.store.exchange('kraken')!.pol.at(-1)!;
    expect(shown).toContain(`${(kraken * 100).toFixed(2)}%`);
    expect(shown).toContain('dydx” could be several');
    // Nothing was posted to the channel.
    expect(h.fake.calls('chat.postMessage')).toHaveLength(0);
  });

  it('reads a bot’s card too: the names in its blocks count', async () => {
    await shortcut('', 'check-2', [{ type: 'header', text: { type: 'plain_text', text: 'Aave (AAVE)' } }]);
    const answer = await h.fake.waitFor('response_url', (c) => c.id === 'check-2', 10_000);
    expect(blocksJson(answer.args)).toContain('Named in that message: Aave');
  });
});
