import { type Api, GrammyError, HttpError } from 'grammy';
import { DeliveryError, delivering, type Deliverer } from '../../src/delivery/port.js';
import type { Reply } from '../../src/reply/model.js';
import { renderReply } from './render.js';
import type { Keyboards } from './buttons.js';
import { editRendered, firstOf, parseAddress, parseRef, refOf, sendRendered, wordsOf, type Where } from './send.js';
import type { PostedMessages } from './stores.js';

/**
 * Telegram behind the delivery port: a message posted as the bot (the chat, or a forum topic),
 * edited in place, followed up as a reply to it, and found again in what the adapter recorded of
 * its own posts (a bot cannot read a chat's history). Reasons are written for the chat's lists.
 */

/** What a Telegram failure means for a delivery: the chat out of reach, this message refused, or worth a retry. */
export function toTelegramDeliveryError(err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  if (err instanceof GrammyError) {
    const d = err.description;
    const gone = (reason: string) => new DeliveryError(reason, { permanent: true, scope: 'channel', cause: err });
    if (err.error_code === 429) {
      const after = err.parameters.retry_after;
      return new DeliveryError('Telegram asked to slow down', {
        permanent: false,
        cause: err,
        ...(after !== undefined ? { retryAfterMs: after * 1000 } : {}),
      });
    }
    if (err.error_code === 401) return gone('the Telegram bot token is no longer valid');
    if (err.error_code === 403) {
      if (/blocked by the user/i.test(d)) return gone('the person blocked polbot in Telegram; unblocking it resumes nothing by itself');
      if (/kicked|not a member|removed/i.test(d)) return gone('polbot was removed from the Telegram group');
      if (/can't initiate|bot can't send messages to bots/i.test(d)) return gone('polbot cannot start a chat with that person');
      return gone('polbot may not post in that Telegram chat');
    }
    if (err.parameters.migrate_to_chat_id !== undefined)
      return gone(`the group became a supergroup (now ${err.parameters.migrate_to_chat_id}); add this again there`);
    if (/chat not found/i.test(d)) return gone('the Telegram chat no longer exists');
    if (/thread not found|topic_deleted|TOPIC_CLOSED/i.test(d)) return gone('the forum topic no longer exists or is closed');
    if (/message to edit not found|message to be replied not found|MESSAGE_ID_INVALID/i.test(d))
      return new DeliveryError('the message is gone from the chat (deleted)', { permanent: true, scope: 'message', cause: err });
    if (err.error_code === 400)
      return new DeliveryError('Telegram refused the message as invalid or too long', { permanent: true, scope: 'message', cause: err });
    return new DeliveryError(`Telegram did not take the message (${err.error_code})`, { permanent: false, cause: err });
  }
  if (err instanceof HttpError) return new DeliveryError('Telegram could not be reached', { permanent: false, cause: err });
  return new DeliveryError('Telegram did not take the message (network error)', { permanent: false, cause: err });
}

const where = (address: string): Where => {
  const w = parseAddress(address);
  if (!w) throw new DeliveryError(`"${address.slice(0, 40)}" is not a Telegram chat`, { permanent: true, scope: 'channel' });
  return w;
};

const sentOf = (ref: string) => {
  const sent = parseRef(ref);
  if (!sent) throw new DeliveryError('the message reference is not one polbot wrote', { permanent: true, scope: 'message' });
  return sent;
};

export interface TelegramPoster {
  api: Api;
  keyboards: Keyboards;
  posted: PostedMessages;
  /** Follows a group that became a supergroup (see TelegramAdapter.onMoved). */
  onMoved?(from: number, to: number): Promise<void>;
}

export function telegramDeliverer(t: TelegramPoster): Deliverer {
  const guarded = <T>(work: () => Promise<T>) =>
    delivering(toTelegramDeliveryError, async () => {
      try {
        return await work();
      } catch (err) {
        // The group became a supergroup before Telegram's notice of it arrived: follow it now, and
        // let the delivery be tried again, where the chat now is.
        const to = err instanceof GrammyError ? err.parameters.migrate_to_chat_id : undefined;
        if (to === undefined || !t.onMoved) throw err;
        const from = (err as GrammyError & { payload?: { chat_id?: unknown } }).payload?.chat_id;
        if (from !== undefined) await t.onMoved(Number(from), to);
        throw new DeliveryError(`the group became a supergroup (now ${to}); polbot follows it there`, {
          permanent: false,
          cause: err,
        });
      }
    });
  const draw = async (reply: Reply) => {
    const msg = renderReply(reply);
    return { msg, markup: await t.keyboards.markup(msg.keyboard) };
  };
  return {
    platform: 'telegram',
    post: (channelId, reply) =>
      guarded(async () => {
        const { msg, markup } = await draw(reply);
        const ref = refOf(await sendRendered(t.api, where(channelId), msg, markup));
        await t.posted.record(channelId, ref, wordsOf(msg));
        return ref;
      }),
    update: (channelId, ref, reply) =>
      guarded(async () => {
        const { msg, markup } = await draw(reply);
        await editRendered(t.api, where(channelId), sentOf(ref), msg, markup);
      }),
    followUp: (channelId, ref, reply) =>
      guarded(async () => {
        const { msg, markup } = await draw(reply);
        const sent = await sendRendered(t.api, where(channelId), msg, markup, { replyTo: firstOf(sentOf(ref)) });
        await t.posted.record(channelId, refOf(sent), wordsOf(msg), ref);
      }),
    find: (channelId, key) => guarded(() => t.posted.find(channelId, key)),
    findReply: (channelId, ref, key) => guarded(() => t.posted.findReply(channelId, ref, key)),
  };
}
