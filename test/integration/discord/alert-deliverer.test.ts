import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discordDeliverer } from '../../../adapters/discord/deliverer.js';
import type { Deliverer } from '../../../src/delivery/port.js';
import { DeliveryError } from '../../../src/delivery/port.js';
import type { TextReply } from '../../../src/reply/model.js';
import { startStack, type Stack } from '../../helpers/discord.js';

/** An alert in Discord is one message: posted, edited in place, followed up in a thread started on it. */

let stack: Stack;
let deliverer: Deliverer;

beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_PER_USER: '0' });
  deliverer = discordDeliverer(stack.handle);
});
afterAll(async () => {
  await stack.close();
});

const alert = (title: string, text: string): TextReply => ({ kind: 'text', title, text });

describe('alerts through the Discord adapter', () => {
  it('posts once, edits that same message in place, and follows up in one thread on it', async () => {
    const id = await deliverer.post(stack.channelId, alert('Alert: Kraken', 'PoL 5.4% (was 3.1%, worse)'));
    await deliverer.update(stack.channelId, id, alert('Alert: Kraken · acknowledged', 'Acknowledged at 09:14 UTC'));
    const edits = stack.fake.calls((c) => c.method === 'PATCH' && c.path === `/channels/${stack.channelId}/messages/${id}`);
    expect(edits).toHaveLength(1);
    expect(edits[0]!.status).toBe(200);
    expect(JSON.stringify(edits[0]!.body)).toContain('Alert: Kraken · acknowledged');

    await deliverer.followUp(stack.channelId, id, alert('Alert: Kraken', 'Again: PoL 6.1%'));
    await deliverer.followUp(stack.channelId, id, alert('Alert: Kraken', 'Again: PoL 6.8%'));
    const started = stack.fake.calls((c) => c.method === 'POST' && c.path === `/channels/${stack.channelId}/messages/${id}/threads`);
    // The second follow-up found the thread there (Discord answers 160004) and used it.
    expect(started.map((c) => c.status)).toEqual([201, 400]);
    const inThread = stack.fake.calls((c) => c.method === 'POST' && c.path === `/channels/${id}/messages` && c.status === 200);
    expect(inThread).toHaveLength(2);
    expect(JSON.stringify(inThread[1]!.body)).toContain('Again: PoL 6.8%');
  });

  it('says plainly when the message is gone or the channel is out of reach, as errors a retry will not fix', async () => {
    const gone = await deliverer.update(stack.channelId, '1234567890123456789', alert('x', 'y')).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DeliveryError);
    expect(gone).toMatchObject({ permanent: true, scope: 'message', reason: 'the message is gone from the channel (deleted)' });
    const nowhere = await deliverer.post('1999999999999999999', alert('x', 'y')).catch((e: unknown) => e);
    expect(nowhere).toMatchObject({ permanent: true, scope: 'channel', reason: 'the channel no longer exists' });
  });
});
