import type { AlertDeliverer } from '../../src/alerts/deliver.js';
import { DeliveryError, delivering } from '../../src/digest/deliver.js';
import type { Reply } from '../../src/reply/model.js';
import { toDiscordDeliveryError } from './digest-deliverer.js';

/**
 * Alerts in Discord: one message per incident (its id is the reference), edited in place, with
 * follow-ups in a thread started on it the first time one is needed, and found again by its key
 * in the channel's recent messages.
 */
export function discordAlertDeliverer(discord: {
  postReply(channelId: string, reply: Reply): Promise<{ id?: string }>;
  updateReply(channelId: string, messageId: string, reply: Reply): Promise<void>;
  threadReply(channelId: string, messageId: string, name: string, reply: Reply): Promise<void>;
  findRecentMessage(channelId: string, needle: string): Promise<string | null>;
}): AlertDeliverer {
  const guarded = <T>(work: () => Promise<T>) => delivering(toDiscordDeliveryError, work);
  return {
    platform: 'discord',
    post: (channelId, reply) =>
      guarded(async () => {
        const { id } = await discord.postReply(channelId, reply);
        if (!id) throw new DeliveryError('Discord accepted the alert but did not say where it is', { permanent: false });
        return id;
      }),
    update: (channelId, messageId, reply) => guarded(() => discord.updateReply(channelId, messageId, reply)),
    followUp: (channelId, messageId, reply) => guarded(() => discord.threadReply(channelId, messageId, threadName(reply), reply)),
    find: (channelId, key) => guarded(() => discord.findRecentMessage(channelId, key)),
  };
}

/** The thread is named after the alert it follows. */
const threadName = (reply: Reply): string => ('title' in reply && typeof reply.title === 'string' ? reply.title : 'polbot alert');
