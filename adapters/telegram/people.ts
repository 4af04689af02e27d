import type { Api } from 'grammy';
import type { Chat, Message, User } from 'grammy/types';
import { LRUCache } from 'lru-cache';
import type { Caller } from '../../commands/core/index.js';
import { telegramMentions } from './groups.js';
import { addressOf, type Where } from './send.js';

/**
 * Who is asking, where, and whether they may manage digests and alert rules there: in a private
 * chat the person always may (the chat is theirs); in a group only its administrators, asked of
 * Telegram (getChatMember) and remembered for a minute, so a burst of commands costs one call.
 */

const MANAGERS = 'the group’s administrators';

export function whereOf(chat: Chat, message?: Pick<Message, 'message_thread_id' | 'is_topic_message'>): Where {
  // A message_thread_id outside a forum topic is a reply thread, not a place to post to.
  return message?.is_topic_message && message.message_thread_id !== undefined
    ? { chatId: chat.id, threadId: message.message_thread_id }
    : { chatId: chat.id };
}

export const nameOf = (u: User): string => (u.username ? `@${u.username}` : [u.first_name, u.last_name].filter(Boolean).join(' '));

export class People {
  private readonly admins = new LRUCache<string, boolean>({ max: 10_000, ttl: 60_000 });

  constructor(
    private readonly api: Api,
    private readonly botUsername: () => string,
  ) {}

  private async isAdmin(chatId: number, userId: number): Promise<boolean> {
    const key = `${chatId}:${userId}`;
    const known = this.admins.get(key);
    if (known !== undefined) return known;
    const member = await this.api.getChatMember(chatId, userId).catch(() => undefined);
    const admin = member?.status === 'creator' || member?.status === 'administrator';
    // A failed check is not remembered: the next command asks again.
    if (member) this.admins.set(key, admin);
    return admin;
  }

  /**
   * The caller for something a person did in `chat`. An administrator posting as the group itself
   * (anonymous admin) is one of its administrators.
   */
  async caller(chat: Chat, from: User | undefined, place: Where, senderChat?: Chat): Promise<Caller> {
    const personal = chat.type === 'private';
    const anonymousAdmin = senderChat?.id === chat.id;
    const canManage = personal || anonymousAdmin || (from !== undefined && (await this.isAdmin(chat.id, from.id)));
    return {
      platform: 'telegram',
      userId: String(from?.id ?? senderChat?.id ?? chat.id),
      channelId: addressOf(place),
      canManageDigests: canManage,
      ...(from ? { userName: nameOf(from) } : senderChat && 'title' in senderChat ? { userName: senderChat.title } : {}),
      ...(personal ? {} : { whoManages: MANAGERS, groups: telegramMentions(this.botUsername()) }),
    };
  }
}
