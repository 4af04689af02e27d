import type { AlertDeliverer } from '../../src/alerts/deliver.js';
import { DeliveryError, delivering } from '../../src/digest/deliver.js';
import type { Reply } from '../../src/reply/model.js';
import type { Posted } from './delivery.js';
import { toDeliveryError } from './digest-deliverer.js';

/**
 * Alerts in Slack: one message per incident (its `ts` is the reference), updated with chat.update,
 * followed up in its thread, and found again by its key in the channel's history.
 */
export function slackAlertDeliverer(adapter: {
  postReply(channelId: string, reply: Reply, opts?: { threadTs?: string }): Promise<Posted>;
  updateReply(channelId: string, ts: string, reply: Reply): Promise<void>;
  findRecentMessage(channelId: string, needle: string): Promise<string | null>;
}): AlertDeliverer {
  const guarded = <T>(work: () => Promise<T>) => delivering(toDeliveryError, work);
  return {
    platform: 'slack',
    post: (channelId, reply) =>
      guarded(async () => {
        const { ts } = await adapter.postReply(channelId, reply);
        // Without its ts the message could never be updated: better said now than at the first click.
        if (!ts) throw new DeliveryError('Slack accepted the alert but did not say where it is', { permanent: false });
        return ts;
      }),
    update: (channelId, ts, reply) => guarded(() => adapter.updateReply(channelId, ts, reply)),
    followUp: (channelId, ts, reply) =>
      guarded(async () => {
        await adapter.postReply(channelId, reply, { threadTs: ts });
      }),
    find: (channelId, key) => guarded(() => adapter.findRecentMessage(channelId, key)),
  };
}
