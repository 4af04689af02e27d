import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksJson, headerOf, startHarness, uniqueId, type Harness } from '../../helpers/slack/harness.js';

/**
 * polbot against what Slack refuses: an expired reply link, an archived channel, and a chart
 * image Slack cannot download. In each case the person still gets the answer.
 */

const WAIT_MS = 8_000;
const THIRTY_ONE_MINUTES = 31 * 60 * 1000;

describe('Slack refusals, answered anyway', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('answers through an ephemeral message with the bot token when the reply link has expired', async () => {
    const id = uniqueId('expired');
    // The link was issued for a click 31 minutes ago.
    h.fake.responseUrl(id);
    h.fake.advanceClock(THIRTY_ONE_MINUTES);
    await h.click('pol_action_0', 'chart bitcoin 5d', { responseId: id, channel: 'C0EXPIRED1' });

    const refused = await h.fake.waitFor('response_url', (c) => c.id === id, WAIT_MS);
    expect(refused).toMatchObject({ status: 404, response: 'expired_url' });
    const ephemeral = await h.fake.waitFor('chat.postEphemeral', (c) => c.args.channel === 'C0EXPIRED1', WAIT_MS);
    expect(ephemeral.status).toBe(200);
    expect(ephemeral.args.user).toBeTruthy();
    expect(blocksJson(ephemeral.args)).toContain("Unknown range '5d'");
  });

  it('tells the person a channel is archived, and gives them the answer privately', async () => {
    h.fake.failChannel('C0ARCHIVE1', 'is_archived');
    const id = uniqueId('archived');
    await h.command('coinbase-exchange', { channel: 'C0ARCHIVE1', responseId: id });

    const notice = await h.fake.waitFor('response_url', (c) => c.id === id && blocksJson(c.args).includes('archived'), WAIT_MS);
    expect(notice.args.response_type).toBe('ephemeral');
    const card = await h.fake.waitFor('response_url', (c) => c.id === id && headerOf(c.args) !== undefined, WAIT_MS);
    expect(headerOf(card.args)).toBe(h.sim.store.exchange('coinbase-exchange')!.name);
    expect(card.args.response_type).toBe('ephemeral');
    h.fake.failChannel('C0ARCHIVE1', null);
  });
});

describe('a chart image Slack cannot download', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('posts the answer without the image, and says the chart could not be loaded', async () => {
    // A hosted chart (QuickChart) whose service nobody answers: Slack refuses the image block.
    const { reply } = await h.core.run('chart bitcoin 30d');
    if (reply.kind !== 'text') throw new Error(`expected a chart, got ${reply.kind}`);
    const hosted = {
      ...reply,
      image: { kind: 'url' as const, url: 'http://127.0.0.1:9/chart.png', width: 800, height: 400, alt: 'PoL of Bitcoin over 30 days' },
    };
    await h.slack.postReply('C0NOIMAGE1', hosted);

    const [refused, posted] = h.fake.calls('chat.postMessage').filter((c) => c.args.channel === 'C0NOIMAGE1');
    expect(refused?.response).toMatchObject({
      ok: false,
      error: 'invalid_blocks',
      errors: [expect.stringMatching(/^\[ERROR\] downloading image failed \[json-pointer:\/blocks\/\d+\/image_url\]$/)],
    });
    expect(posted?.response).toMatchObject({ ok: true });
    expect(headerOf(posted!.args)).toBe(reply.title);
    expect(blocksJson(posted!.args)).not.toContain('"type":"image"');
    expect(blocksJson(posted!.args)).toContain('The chart could not be loaded');
  });
});
