import { DeliveryError, delivering, type Deliverer } from '../../src/delivery/port.js';
import type { Reply } from '../../src/reply/model.js';

/**
 * Discord behind the delivery port: a message posted as the bot (its id is the reference), edited
 * in place, followed up in a thread started on it the first time one is needed, and found again by
 * its key in the channel's recent messages. Reasons are written for the channel's lists.
 */

/** Discord JSON error codes that mean the channel is out of reach for good. */
const DISCORD_CHANNEL_GONE: Record<number, string> = {
  10003: 'the channel no longer exists',
  10004: 'the bot is no longer in that server',
  50001: 'the bot cannot see the channel (missing access)',
  50013: 'the bot lacks permission to post there (Send Messages, Embed Links, Attach Files)',
  50007: 'the bot cannot message that user',
};

/** What a Discord failure means for a delivery: the channel out of reach, this message refused, or worth a retry. */
export function toDiscordDeliveryError(err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const code = typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : undefined;
  const status = (err as { status?: number }).status;
  if (code !== undefined && code in DISCORD_CHANNEL_GONE)
    return new DeliveryError(DISCORD_CHANNEL_GONE[code]!, { permanent: true, scope: 'channel', cause: err });
  if (code === 10008)
    return new DeliveryError('the message is gone from the channel (deleted)', { permanent: true, scope: 'message', cause: err });
  if (code === 50035 || code === 50006 || status === 413)
    return new DeliveryError('Discord refused the message as invalid or too large', { permanent: true, scope: 'message', cause: err });
  if (status === 401)
    return new DeliveryError('the Discord bot token is no longer valid', { permanent: true, scope: 'channel', cause: err });
  return new DeliveryError(`Discord did not take the message (${status ?? 'network error'})`, { permanent: false, cause: err });
}

/** What delivering needs of the running adapter (its handle has these). */
export interface DiscordPoster {
  postReply(channelId: string, reply: Reply): Promise<{ id?: string }>;
  updateReply(channelId: string, messageId: string, reply: Reply): Promise<void>;
  threadReply(channelId: string, messageId: string, name: string, reply: Reply): Promise<void>;
  findRecentMessage(channelId: string, needle: string): Promise<string | null>;
  findThreadReply(channelId: string, messageId: string, needle: string): Promise<boolean>;
}

export function discordDeliverer(discord: DiscordPoster): Deliverer {
  const guarded = <T>(work: () => Promise<T>) => delivering(toDiscordDeliveryError, work);
  return {
    platform: 'discord',
    post: (channelId, reply) =>
      guarded(async () => {
        const { id } = await discord.postReply(channelId, reply);
        if (!id) throw new DeliveryError('Discord accepted the message but did not say where it is', { permanent: false });
        return id;
      }),
    update: (channelId, messageId, reply) => guarded(() => discord.updateReply(channelId, messageId, reply)),
    followUp: (channelId, messageId, reply) => guarded(() => discord.threadReply(channelId, messageId, threadName(reply), reply)),
    find: (channelId, key) => guarded(() => discord.findRecentMessage(channelId, key)),
    findReply: (channelId, messageId, key) => guarded(() => discord.findThreadReply(channelId, messageId, key)),
  };
}

/** The thread is named after the message it follows. */
const threadName = (reply: Reply): string => ('title' in reply && typeof reply.title === 'string' ? reply.title : 'polbot alert');
