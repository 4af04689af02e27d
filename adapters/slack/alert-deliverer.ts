import type { AlertDeliverer } from '../../src/alerts/deliver.js';
import { DeliveryError, delivering } from '../../src/digest/deliver.js';
import type { Reply } from '../../src/reply/model.js';
import type { Posted } from './delivery.js';
import type { WorkspaceRef } from '../../src/workspace.js';
import { toDeliveryError } from './digest-deliverer.js';

/**
 * Alerts in Slack: one message per incident (its `ts` is the reference), updated with chat.update,
 * followed up in its thread, and found again by its key in the channel's history.
 */
export function slackAlertDeliverer(adapter: {
  postReply(channelId: string, reply: Reply, opts?: { threadTs?: string; workspace?: WorkspaceRef }): Promise<Posted>;
  updateReply(channelId: string, ts: string, reply: Reply, workspace?: WorkspaceRef): Promise<void>;
  findRecentMessage(channelId: string, needle: string, workspace?: WorkspaceRef): Promise<string | null>;
}): AlertDeliverer {
  const guarded = <T>(work: () => Promise<T>) => delivering(toDeliveryError, work);
  return {
    platform: 'slack',
    post: (channelId, reply, workspace) =>
      guarded(async () => {
        const { ts } = await adapter.postReply(channelId, reply, workspace ? { workspace } : {});
        // Without its ts the message could never be updated: better said now than at the first click.
        if (!ts) throw new DeliveryError('Slack accepted the alert but did not say where it is', { permanent: false });
        return ts;
      }),
    update: (channelId, ts, reply, workspace) => guarded(() => adapter.updateReply(channelId, ts, reply, workspace)),
    followUp: (channelId, ts, reply, workspace) =>
      guarded(async () => {
        await adapter.postReply(channelId, reply, { threadTs: ts, ...(workspace ? { workspace } : {}) });
      }),
    find: (channelId, key, workspace) => guarded(() => adapter.findRecentMessage(channelId, key, workspace)),
  };
}
