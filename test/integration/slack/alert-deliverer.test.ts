import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackDeliverer } from '../../../adapters/slack/deliverer.js';
import type { Deliverer } from '../../../src/delivery/port.js';
import { DeliveryError } from '../../../src/delivery/port.js';
import type { TextReply } from '../../../src/reply/model.js';
import { headerOf, startHarness, type Harness } from '../../helpers/slack/harness.js';

/** An alert in Slack is one message: posted, redrawn in place with chat.update, followed up in its thread. */

let h: Harness;
let deliverer: Deliverer;

beforeAll(async () => {
  h = await startHarness();
  deliverer = slackDeliverer(h.slack);
});
afterAll(async () => {
  await h.close();
});

const alert = (title: string, text: string): TextReply => ({ kind: 'text', title, text });
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('alerts through the Slack adapter', () => {
  it('posts once, updates that same message in place, and follows up in its thread', async () => {
    const ts = await deliverer.post('CALERT001', alert('Alert: Kraken', 'PoL 5.4% (was 3.1%, worse)'));
    const posted = h.fake.calls('chat.postMessage').filter((c) => c.args.channel === 'CALERT001');
    expect(posted).toHaveLength(1);
    expect((posted[0]!.response as { ts: string }).ts).toBe(ts);

    await deliverer.update('CALERT001', ts, alert('Alert: Kraken · acknowledged', 'Acknowledged by Dana at 09:14 UTC'));
    const updated = h.fake.calls('chat.update').filter((c) => c.args.channel === 'CALERT001');
    expect(updated).toHaveLength(1);
    expect(updated[0]!.args.ts).toBe(ts);
    expect(headerOf(updated[0]!.args)).toBe('Alert: Kraken · acknowledged');
    // The channel still holds one message, now the updated one.
    expect(await h.slack.hasRecentMessage('CALERT001', 'Acknowledged by Dana')).toBe(true);
    expect(await h.slack.hasRecentMessage('CALERT001', 'was 3.1%')).toBe(false);

    await deliverer.followUp('CALERT001', ts, alert('Again', 'PoL 6.1%'));
    const followUp = h.fake
      .calls('chat.postMessage')
      .filter((c) => c.args.channel === 'CALERT001')
      .at(-1)!;
    expect(followUp.args.thread_ts).toBe(ts);
  });

  it('posts a card with its chart as one message showing the uploaded file, keeps the chart through a redraw, and finds it by its text', async () => {
    // Kraken's card from the simulator, with its PNG chart.
    const { reply } = await h.core.run('exchange kraken');
    const chart = reply.kind === 'card' ? reply.image : undefined;
    if (chart?.kind !== 'png') throw new Error('expected a card with a PNG chart');
    const ts = await deliverer.post('CALERT004', reply);

    const [post, ...more] = h.fake.calls('chat.postMessage').filter((c) => c.args.channel === 'CALERT004');
    expect(more).toEqual([]);
    expect(headerOf(post!.args)).toBe('Kraken');
    const [upload] = h.fake.uploads().filter((u) => u.filename === chart.filename);
    expect(upload?.bytes.subarray(0, 8).equals(PNG)).toBe(true);
    const images = (post!.args.blocks as { type: string }[]).filter((b) => b.type === 'image');
    expect(images).toEqual([{ type: 'image', slack_file: { id: upload!.file_id }, alt_text: expect.stringContaining('Kraken') }]);
    // Completed without a channel: shared nowhere, so no file message beside the card.
    const complete = h.fake.calls('files.completeUploadExternal').find((c) => JSON.stringify(c.args.files).includes(upload!.file_id));
    expect(complete?.args.channel_id).toBeUndefined();
    expect(h.fake.files().filter((f) => f.channels.includes('CALERT004'))).toEqual([]);

    // A redraw carries words only; the message keeps showing the same file.
    await deliverer.update('CALERT004', ts, alert('Kraken · acknowledged', 'Acknowledged by Dana at 09:14 UTC'));
    const [updated] = h.fake.calls('chat.update').filter((c) => c.args.ts === ts);
    expect(headerOf(updated!.args)).toBe('Kraken · acknowledged');
    expect((updated!.args.blocks as { type: string }[]).filter((b) => b.type === 'image')).toEqual(images);
    expect(await deliverer.find!('CALERT004', 'Acknowledged by Dana')).toBe(ts);
  });

  it('posts the card without its chart when the upload fails, saying so in the card, as one message', async () => {
    const { reply } = await h.core.run('exchange bitstamp');
    h.fake.failNext('files.getUploadURLExternal', { error: 'missing_scope' });
    const ts = await deliverer.post('CALERT005', reply);
    const posts = h.fake.calls('chat.postMessage').filter((c) => c.args.channel === 'CALERT005');
    expect(posts.map((c) => (c.response as { ts: string }).ts)).toEqual([ts]);
    expect(JSON.stringify(posts[0]!.args.blocks)).not.toContain('"type":"image"');
    expect(JSON.stringify(posts[0]!.args.blocks)).toContain('The chart could not be uploaded to Slack.');
  });

  it('names a person in words in a new message, where a mention would notify them, and as a mention in an update', async () => {
    const status = (): TextReply => ({
      kind: 'text',
      title: 'Alert: Kraken',
      sections: [{ title: 'Alert #7', fields: [{ label: 'Status', value: ['Acknowledged by ', { user: 'U0DANA0001', name: 'dana' }] }] }],
    });
    const ts = await deliverer.post('CALERT006', status());
    const posted = h.fake.calls('chat.postMessage').filter((c) => c.args.channel === 'CALERT006');
    expect(JSON.stringify(posted[0]!.args.blocks)).toContain('Acknowledged by dana');
    expect(JSON.stringify(posted[0]!.args)).not.toContain('<@');

    await deliverer.update('CALERT006', ts, status());
    const updated = h.fake.calls('chat.update').filter((c) => c.args.channel === 'CALERT006');
    expect(JSON.stringify(updated[0]!.args.blocks)).toContain('Acknowledged by <@U0DANA0001>');
    expect(String(updated[0]!.args.text)).not.toContain('<@');
  });

  it('says plainly when the message is gone or the channel refuses, as a delivery error that will not pass by retrying', async () => {
    const gone = await deliverer.update('CALERT002', '1763000000.000001', alert('x', 'y')).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DeliveryError);
    expect(gone).toMatchObject({ permanent: true, scope: 'message', reason: 'the message is gone from the channel (deleted)' });

    h.fake.failChannel('CALERT003', 'is_archived');
    const archived = await deliverer.post('CALERT003', alert('x', 'y')).catch((e: unknown) => e);
    expect(archived).toMatchObject({ permanent: true, scope: 'channel', reason: 'the channel is archived' });
  });
});
