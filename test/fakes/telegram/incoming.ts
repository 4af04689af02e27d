import type { CallbackQuery, InlineQuery, Message, MessageEntity, Update, User } from 'grammy/types';
import { type FakeMessage, type MessageStore, quoted } from './messages.js';
import type { Queries } from './queries.js';
import type { UpdateBody, UpdateQueue } from './updates.js';
import { GENERAL_TOPIC_ID, type ChatState, type World } from './world.js';

/**
 * What people do, turned into the updates Telegram would send the bot: a message (with the
 * bot_command and mention entities Telegram marks in it), a press on a button of a message the
 * bot sent (a callback query, answerable for its lifetime), an inline query. In a group, privacy
 * mode (on unless the fake was started without it) holds back what a bot with privacy mode does
 * not get: only commands (`/pol` and `/pol@thisbot`, not `/pol@otherbot`), replies to the bot's
 * messages and messages in private chats reach it.
 */

export interface SayInput {
  /** The chat, by id; a user's private chat has the user's id. */
  chatId: number;
  from: User;
  text: string;
  /** The message replied to. */
  replyTo?: number;
  /** The forum topic written in. */
  threadId?: number;
  /** An administrator posting as the group (anonymous admin): the message comes from GroupAnonymousBot with the group as sender_chat. */
  asGroup?: boolean;
}

/** The account Telegram shows as the sender of an anonymous administrator's messages. */
export const GROUP_ANONYMOUS_BOT: User = { id: 1087968824, is_bot: true, first_name: 'Group', username: 'GroupAnonymousBot' };

export interface Said {
  message: Message;
  /** The update the bot gets; undefined when privacy mode or allowed_updates kept it from the bot. */
  update?: Update;
}

export interface PressInput {
  chatId: number;
  messageId: number;
  from: User;
  /** The button pressed, by its callback_data; or `text` names it by its label. */
  data?: string;
  text?: string;
}

export interface Pressed {
  query: CallbackQuery;
  update?: Update;
}

export interface InlineInput {
  from: User;
  query: string;
  /** Where the query was typed, as Telegram reports it. */
  chatType?: InlineQuery['chat_type'];
}

export interface Asked {
  query: InlineQuery;
  update?: Update;
}

export interface People {
  world: World;
  messages: MessageStore;
  queue: UpdateQueue;
  queries: Queries;
  now: () => number;
  privacyMode: boolean;
}

export function say(people: People, input: SayInput): Said {
  const state = chatOf(people.world, input.chatId);
  if (state.chat.type === 'private') {
    if (input.from.id !== state.chat.id) throw new Error(`fake Telegram: only user ${state.chat.id} writes in their private chat`);
    people.world.startBot(input.from);
  } else {
    const status = state.members.get(input.from.id);
    if (status !== 'creator' && status !== 'administrator' && status !== 'member') {
      throw new Error(`fake Telegram: user ${input.from.id} is not a member of chat ${input.chatId}`);
    }
    if (input.asGroup && status === 'member') throw new Error(`fake Telegram: only an administrator posts as the group`);
  }
  const topic = input.threadId === undefined || input.threadId === GENERAL_TOPIC_ID ? undefined : state.topics.get(input.threadId);
  if (input.threadId !== undefined && input.threadId !== GENERAL_TOPIC_ID && !topic) {
    throw new Error(`fake Telegram: chat ${input.chatId} has no topic ${input.threadId}`);
  }
  const replied = input.replyTo === undefined ? undefined : people.messages.find(state.chat.id, input.replyTo);
  if (input.replyTo !== undefined && !replied) throw new Error(`fake Telegram: no message ${input.replyTo} in chat ${input.chatId}`);
  const reply = replied ?? (topic ? people.messages.find(state.chat.id, topic.threadId) : undefined);
  const entities = markEntities(input.text);
  const now = people.now();
  const message = {
    message_id: people.messages.allocate(state.chat.id),
    ...(input.asGroup ? { from: GROUP_ANONYMOUS_BOT, sender_chat: state.chat } : { from: input.from }),
    chat: state.chat,
    date: Math.floor(now / 1000),
    ...(topic ? { message_thread_id: topic.threadId, is_topic_message: true } : {}),
    ...(reply ? { reply_to_message: quoted(reply.message) } : {}),
    text: input.text,
    ...(entities.length > 0 ? { entities } : {}),
  } as Message;
  people.messages.add('user', message, now);
  if (!reaches(people, state, message, entities, replied)) return { message };
  const update = people.queue.push({ message } as UpdateBody);
  return update ? { message, update } : { message };
}

export function press(people: People, input: PressInput): Pressed {
  const state = chatOf(people.world, input.chatId);
  const stored: FakeMessage | undefined = people.messages.find(state.chat.id, input.messageId);
  if (stored?.sender !== 'bot') throw new Error(`fake Telegram: the bot sent no message ${input.messageId} in chat ${input.chatId}`);
  const markup = (stored.message as { reply_markup?: { inline_keyboard: { text: string; callback_data?: string }[][] } }).reply_markup;
  const buttons = markup?.inline_keyboard.flat() ?? [];
  const button = buttons.find((b) => (input.data !== undefined ? b.callback_data === input.data : b.text === input.text));
  if (!button || button.callback_data === undefined) {
    const labels = buttons.map((b) => `${JSON.stringify(b.text)} -> ${JSON.stringify(b.callback_data ?? null)}`).join(', ');
    throw new Error(
      `fake Telegram: message ${input.messageId} has no callback button ${JSON.stringify(input.data ?? input.text)}; it has: ${labels || 'none'}`,
    );
  }
  const query: CallbackQuery = {
    id: people.queries.open('callback'),
    from: input.from,
    // A callback carries the whole message, its reply_to_message included (only a quoted message drops its own reply).
    message: stored.message as CallbackQuery['message'],
    chat_instance: state.chatInstance,
    data: button.callback_data,
  };
  const update = people.queue.push({ callback_query: query });
  return update ? { query, update } : { query };
}

export function askInline(people: People, input: InlineInput): Asked {
  const query: InlineQuery = {
    id: people.queries.open('inline'),
    from: input.from,
    query: input.query,
    offset: '',
    ...(input.chatType ? { chat_type: input.chatType } : {}),
  };
  const update = people.queue.push({ inline_query: query });
  return update ? { query, update } : { query };
}

function chatOf(world: World, chatId: number): ChatState {
  const state = world.chats.get(chatId);
  if (!state || state.deleted) throw new Error(`fake Telegram: no chat ${chatId}`);
  return state;
}

/** Whether a bot with privacy mode gets this group message (every message reaches it without). */
function reaches(people: People, state: ChatState, message: Message, entities: MessageEntity[], replied: FakeMessage | undefined): boolean {
  if (state.chat.type === 'private' || !people.privacyMode) return true;
  if (replied?.sender === 'bot') return true;
  const text = message.text ?? '';
  const me = people.world.bot.username.toLowerCase();
  return entities.some((e) => {
    if (e.type !== 'bot_command') return false;
    const addressee = text.slice(e.offset, e.offset + e.length).split('@')[1];
    return addressee === undefined || addressee.toLowerCase() === me;
  });
}

/**
 * The entities Telegram marks in plain text a person sends: `/command` or `/command@bot` and
 * `@username`, where neither touches a word character (Telegram's own rules, simplified to ASCII
 * word characters).
 */
export function markEntities(text: string): MessageEntity[] {
  const out: MessageEntity[] = [];
  for (const m of text.matchAll(/(?<![\w/<>])\/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/<>])/g)) {
    out.push({ type: 'bot_command', offset: m.index, length: m[0].length });
  }
  for (const m of text.matchAll(/(?<![\w/@])@[A-Za-z0-9_]{2,32}(?!\w)/g)) {
    out.push({ type: 'mention', offset: m.index, length: m[0].length });
  }
  return out.sort((a, b) => a.offset - b.offset);
}
