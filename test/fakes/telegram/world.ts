import type { Chat, ChatMember, User, UserFromGetMe } from 'grammy/types';
import { badRequest, chatNotFound, forbidden, threadNotFound } from './errors.js';

/**
 * The people and chats the fake Telegram holds: users (and whether each started the bot),
 * private chats, groups, supergroups with forum topics, who is a member or an administrator, and
 * what became of a chat (the bot blocked or removed, the chat deleted, a group upgraded).
 * Identifiers follow Telegram's conventions, on which clients rely: users positive, basic groups
 * negative, supergroups `-100…`.
 */

export type MemberStatus = 'creator' | 'administrator' | 'member' | 'left' | 'kicked';

export interface UserSpec {
  first_name?: string;
  last_name?: string;
  username?: string;
  language_code?: string;
  /** Whether the user has opened a private chat with the bot; a bot cannot write first. Default true. */
  startedBot?: boolean;
}

export interface GroupSpec {
  title: string;
  /** `group` is a basic group; forums are supergroups. Default `supergroup`. */
  type?: 'group' | 'supergroup';
  forum?: boolean;
  /** A public supergroup's username, by which `@username` names it as a chat_id. */
  username?: string;
  creator: User;
  administrators?: User[];
  members?: User[];
  /** Whether the bot is an administrator (it may then delete others' messages). Default false. */
  botIsAdmin?: boolean;
}

export interface Topic {
  threadId: number;
  name: string;
  iconColor: number;
}

export interface ChatState {
  chat: Chat;
  members: Map<number, MemberStatus>;
  topics: Map<number, Topic>;
  botIsAdmin: boolean;
  /** The bot was blocked (private chat) or removed (group). */
  blocked: boolean;
  deleted: boolean;
  /** A basic group upgraded to this supergroup. */
  migratedTo?: number;
  /** A stable value per chat, as callback queries carry it. */
  chatInstance: string;
}

/** Forum topic ids are ids of their creation messages; 1 is the General topic, which sends take without an id. */
export const GENERAL_TOPIC_ID = 1;

export class World {
  readonly users = new Map<number, User>();
  readonly chats = new Map<number, ChatState>();
  #nextUser = 710_000_001;
  #nextGroup = 4_600_000_001;
  #nextSupergroup = 2_100_000_001;

  constructor(readonly bot: UserFromGetMe) {}

  addUser(spec: UserSpec = {}): User {
    const id = this.#nextUser++;
    const user: User = {
      id,
      is_bot: false,
      first_name: spec.first_name ?? `Tester${id % 1000}`,
      ...(spec.last_name ? { last_name: spec.last_name } : {}),
      ...(spec.username ? { username: spec.username } : {}),
      language_code: spec.language_code ?? 'en',
    };
    this.users.set(id, user);
    if (spec.startedBot ?? true) this.startBot(user);
    return user;
  }

  /** The user opens the private chat with the bot (or unblocks it). */
  startBot(user: User): ChatState {
    let state = this.chats.get(user.id);
    if (!state) {
      const chat: Chat = {
        id: user.id,
        type: 'private',
        first_name: user.first_name,
        ...(user.last_name ? { last_name: user.last_name } : {}),
        ...(user.username ? { username: user.username } : {}),
      } as Chat;
      state = this.#state(chat);
      state.members.set(user.id, 'member');
      state.members.set(this.bot.id, 'member');
    }
    state.blocked = false;
    return state;
  }

  addGroup(spec: GroupSpec): ChatState {
    const type = spec.type ?? 'supergroup';
    if (spec.forum && type !== 'supergroup') throw new Error('fake Telegram: only a supergroup can be a forum');
    const id = type === 'group' ? -this.#nextGroup++ : Number(`-100${this.#nextSupergroup++}`);
    const chat = {
      id,
      type,
      title: spec.title,
      ...(spec.username && type === 'supergroup' ? { username: spec.username } : {}),
      ...(spec.forum ? { is_forum: true } : {}),
    } as Chat;
    const state = this.#state(chat);
    state.botIsAdmin = spec.botIsAdmin ?? false;
    state.members.set(spec.creator.id, 'creator');
    for (const u of spec.administrators ?? []) state.members.set(u.id, 'administrator');
    for (const u of spec.members ?? []) if (!state.members.has(u.id)) state.members.set(u.id, 'member');
    state.members.set(this.bot.id, state.botIsAdmin ? 'administrator' : 'member');
    return state;
  }

  /** The chat a chat_id parameter names, refused as Telegram refuses it. */
  resolve(chatId: string | undefined): ChatState {
    if (chatId === undefined || chatId.trim() === '') throw badRequest('chat_id is empty');
    const text = chatId.trim();
    const state = text.startsWith('@')
      ? [...this.chats.values()].find((s) => s.chat.type !== 'private' && 'username' in s.chat && s.chat.username === text.slice(1))
      : /^-?\d+$/.test(text)
        ? this.chats.get(Number(text))
        : undefined;
    // A person the bot knows of who never opened a chat with it: Telegram says why it cannot write.
    if (!state && this.users.has(Number(text))) throw forbidden("bot can't initiate conversation with a user");
    if (!state || state.deleted) throw chatNotFound();
    if (state.migratedTo !== undefined) {
      throw badRequest('group chat was upgraded to a supergroup chat', { migrate_to_chat_id: state.migratedTo });
    }
    if (state.blocked && state.chat.type !== 'private') {
      throw forbidden(`bot was kicked from the ${state.chat.type === 'group' ? 'group' : 'supergroup'} chat`);
    }
    return state;
  }

  /** Whether the bot may post in the chat: not in a private chat whose user blocked it. */
  checkWritable(state: ChatState): void {
    if (state.chat.type === 'private' && state.blocked) throw forbidden('bot was blocked by the user');
  }

  /** The topic a message_thread_id names; undefined for none. Refused where there is no such thread. */
  thread(state: ChatState, threadId: number | undefined): Topic | undefined {
    if (threadId === undefined || threadId === 0) return undefined;
    const forum = state.chat.type === 'supergroup' && (state.chat as { is_forum?: boolean }).is_forum === true;
    if (!forum || threadId === GENERAL_TOPIC_ID) throw threadNotFound();
    const topic = state.topics.get(threadId);
    if (!topic) throw threadNotFound();
    return topic;
  }

  member(state: ChatState, userId: number): ChatMember {
    const user = userId === this.bot.id ? this.botUser() : this.users.get(userId);
    if (!user) throw badRequest('user not found');
    const status = state.members.get(userId) ?? 'left';
    switch (status) {
      case 'creator':
        return { status, user, is_anonymous: false };
      case 'administrator':
        return {
          status,
          user,
          can_be_edited: false,
          is_anonymous: false,
          can_manage_chat: true,
          can_delete_messages: true,
          can_manage_video_chats: true,
          can_restrict_members: true,
          can_promote_members: false,
          can_change_info: true,
          can_invite_users: true,
          can_post_stories: false,
          can_edit_stories: false,
          can_delete_stories: false,
          can_pin_messages: true,
          ...(state.topics.size > 0 || (state.chat as { is_forum?: boolean }).is_forum ? { can_manage_topics: true } : {}),
        } as ChatMember;
      case 'kicked':
        return { status, user, until_date: 0 };
      default:
        return { status, user };
    }
  }

  /** The bot as a message's `from` shows it. */
  botUser(): User {
    const { id, is_bot, first_name, username } = this.bot;
    return { id, is_bot, first_name, username };
  }

  #state(chat: Chat): ChatState {
    const state: ChatState = {
      chat,
      members: new Map(),
      topics: new Map(),
      botIsAdmin: false,
      blocked: false,
      deleted: false,
      chatInstance: String(BigInt(Math.abs(chat.id)) * 7919n + 1234567890123n),
    };
    this.chats.set(chat.id, state);
    return state;
  }

  /** A basic group becomes a supergroup: the old id is refused with `migrate_to_chat_id` from now on. */
  migrate(groupId: number): ChatState {
    const old = this.chats.get(groupId);
    if (old?.chat.type !== 'group') throw new Error(`fake Telegram: ${groupId} is not a basic group`);
    const creator = [...old.members].find(([, s]) => s === 'creator')?.[0];
    const next = this.addGroup({
      title: (old.chat as { title: string }).title,
      creator: this.users.get(creator ?? -1) ?? ({ id: creator ?? 0, is_bot: false, first_name: 'creator' } as User),
      botIsAdmin: old.botIsAdmin,
    });
    for (const [id, status] of old.members) if (!next.members.has(id)) next.members.set(id, status);
    old.migratedTo = next.chat.id;
    return next;
  }
}
