/**
 * A loopback stand-in for the Telegram Bot API that the real grammY client talks to once its API
 * root is overridden:
 *
 *   const fake = await startFakeTelegram();
 *   const bot = new Bot(fake.token, { client: { apiRoot: fake.url } });
 *
 * It serves `http://127.0.0.1:PORT/bot<token>/<method>` (JSON, urlencoded and multipart, e.g.
 * sendPhoto with an uploaded PNG) and `/file/bot<token>/<path>`, answering `{ ok, result }` or
 * `{ ok: false, error_code, description, parameters? }` in the Bot API server's own words; an
 * unknown token gets 401, an unknown method 404. Methods: getMe, getUpdates, setWebhook,
 * deleteWebhook, getWebhookInfo, setMyCommands, getMyCommands, deleteMyCommands, set/getMyDescription,
 * set/getMyShortDescription, sendMessage,
 * sendPhoto, sendDocument (up to 50 MB, named), sendChatAction, editMessageText, editMessageCaption, editMessageReplyMarkup,
 * deleteMessage, answerCallbackQuery, answerInlineQuery, getChatMember, getFile.
 *
 * What it enforces, as Telegram does:
 * - 4,096 characters of text and 1,024 of caption, counted after parsing (HTML tags do not count);
 *   HTML that does not parse is refused ("can't parse entities: …", html.ts);
 * - inline keyboards' shape, 64 bytes of callback_data (BUTTON_DATA_INVALID), openable button URLs;
 * - a callback or inline query answered once within its lifetime (about 15 s on the fake's clock);
 * - 429 with `retry_after` when a test asks (`rateLimitNext`) and, switched on, flood control
 *   (about 30 messages a second overall, 20 a minute in a group);
 * - 403 for a user who blocked the bot or never started it and for a group the bot was removed
 *   from; 400 "chat not found" for a deleted or unknown chat, `migrate_to_chat_id` for an upgraded group;
 * - forum topics (`message_thread_id` refused outside a forum or for a topic that does not exist);
 * - edits: "message to edit not found", "message is not modified", an omitted reply_markup
 *   removes the keyboard; replies to a missing message refused unless allow_sending_without_reply;
 * - getUpdates long polling with offset confirmation, one poller at a time (409), none while a
 *   webhook is set; webhook delivery with `X-Telegram-Bot-Api-Secret-Token`, retried until 2xx;
 * - privacy mode in groups: only commands for this bot and replies to it arrive.
 *
 * Not modelled: Markdown parse modes, messages sent via inline mode (inline_message_id), media
 * other than photos and uploaded documents, channels. Each is refused with a description saying so, not half-done.
 */
import { randomBytes } from 'node:crypto';
import type { BotCommand, BotCommandScope, Chat, Update, User, UserFromGetMe } from 'grammy/types';
import { secretWatch } from '../../helpers/secret-watch.js';
import { CallLog } from '../http-receiver/recorder.js';
import { Args } from './args.js';
import { CommandLists, Descriptions } from './commands.js';
import { FileStore } from './files.js';
import { type Method, run, startWire, type TelegramCall } from './http.js';
import {
  type Asked,
  askInline,
  type InlineInput,
  type People,
  type Pressed,
  type PressInput,
  press,
  type Said,
  type SayInput,
  say,
} from './incoming.js';
import { type FailSpec, Limits } from './limits.js';
import { type FakeMessage, MessageStore } from './messages.js';
import {
  deleteMessage,
  editMessageCaption,
  editMessageReplyMarkup,
  editMessageText,
  type Outbox,
  sendChatAction,
  sendMessage,
  sendDocument,
  sendPhoto,
} from './outgoing.js';
import { type CallbackAnswer, type InlineAnswer, Queries } from './queries.js';
import { type UpdateBody, UpdateQueue } from './updates.js';
import { Webhook, type WebhookDelivery } from './webhook.js';
import { type GroupSpec, type MemberStatus, type UserSpec, World } from './world.js';

export type { TelegramCall } from './http.js';
export type { Asked, InlineInput, Pressed, PressInput, Said, SayInput } from './incoming.js';
export type { FailSpec } from './limits.js';
export type { FakeMessage } from './messages.js';
export type { CallbackAnswer, InlineAnswer } from './queries.js';
export type { WebhookDelivery } from './webhook.js';
export type { GroupSpec, MemberStatus, UserSpec } from './world.js';

export interface FakeTelegramOptions {
  /** The one token the fake accepts; a realistic random one by default. */
  token?: string;
  /** The bot's username, as `/pol@<username>` and getMe show it. Default `polbot_test_bot`. */
  username?: string;
  /** In groups, deliver only commands for the bot and replies to it. Default true, as BotFather sets it. */
  privacyMode?: boolean;
  /** Flood control from the start (see `enforceRateLimits`). Default off. */
  rateLimits?: boolean;
  /** How long a callback or inline query can be answered, on the fake's clock. Default 15 s. */
  queryLifetimeMs?: number;
  /** The first delay before a webhook delivery that failed is tried again; it doubles. Default 1 s, as Telegram. */
  webhookRetryMs?: number;
}

export type CallFilter = string | ((call: TelegramCall) => boolean);

export interface FakeTelegram {
  /** The API root for grammY (`client: { apiRoot }`) and `TELEGRAM_API_URL`: `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly token: string;
  /** What getMe answers. */
  readonly bot: UserFromGetMe;

  // People and chats
  /** A person; by default one who has started the bot, so their private chat (id = user id) exists. */
  addUser(spec?: UserSpec): User;
  /** A basic group or supergroup (forum or not) with its creator, administrators and members; the bot is in it. */
  addGroup(spec: GroupSpec): Chat;
  /** A forum topic; returns its message_thread_id. */
  addTopic(chatId: number, name: string): number;
  setMember(chatId: number, user: User, status: MemberStatus): void;
  /** The user blocked the bot (private chat) or the bot was removed (group): sends get 403. */
  blockChat(chatId: number): void;
  /** The user unblocked or restarted the bot, or the bot was added back. */
  unblockChat(chatId: number): void;
  /** The chat is gone: every call naming it gets "chat not found". */
  deleteChat(chatId: number): void;
  /**
   * A basic group upgraded to a supergroup: the old id is refused with `migrate_to_chat_id` from
   * now on, and the bot gets both service messages (migrate_to_chat_id, migrate_from_chat_id).
   * Returns the new chat.
   */
  migrateChat(groupId: number): Chat;

  // What people do (each queues the update the bot would get)
  say(input: SayInput): Said;
  pressButton(input: PressInput): Pressed;
  inlineQuery(input: InlineInput): Asked;
  /** Any other update, as given. */
  queueUpdate(body: UpdateBody): Update | null;
  /** Updates not yet confirmed by getUpdates or delivered to the webhook. */
  pendingUpdates(): Update[];

  // What the bot did
  calls(filter?: CallFilter): TelegramCall[];
  waitFor(filter: CallFilter, timeoutMs?: number): Promise<TelegramCall>;
  /** Forgets recorded calls; chats, messages and scheduled failures stay. */
  clear(): void;
  /** Every message of a chat in order, the bot's and people's, each with its earlier versions and whether it was deleted. */
  messages(chatId: number): FakeMessage[];
  /** The bot's command list for a scope and language, as getMyCommands would answer. */
  commands(scope?: BotCommandScope, languageCode?: string): BotCommand[];
  /** The bot's description (`long`, in an empty chat) or short description, for a language as set. */
  description(kind: 'long' | 'short', languageCode?: string): string;
  callbackAnswers(): CallbackAnswer[];
  inlineAnswers(): InlineAnswer[];
  webhookDeliveries(): WebhookDelivery[];
  /** The bytes of a file the bot uploaded, by any file_id it was given back. */
  fileBytes(fileId: string): Buffer | undefined;

  // Faults and time
  /** The next `times` calls of `method` get 429 with `retry_after`. */
  rateLimitNext(method: string, retryAfterSec: number, times?: number): void;
  /** The next calls of `method` get this error instead of being handled. */
  failNext(method: string, spec: FailSpec): void;
  clearFaults(): void;
  enforceRateLimits(on: boolean): void;
  /** Moves the fake's clock (message dates, query lifetimes, flood windows) forward. */
  advanceClock(ms: number): void;
  now(): number;
  close(): Promise<void>;
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const botId = 7_100_000_000 + Math.floor(Math.random() * 800_000_000);
  const token = options.token ?? `${botId}:AA${randomBytes(25).toString('base64url').slice(0, 33)}`;
  secretWatch.secret(token, 'Telegram bot token');
  const username = options.username ?? 'polbot_test_bot';
  const privacyMode = options.privacyMode ?? true;
  const bot: UserFromGetMe = {
    id: Number(token.split(':')[0]),
    is_bot: true,
    first_name: 'polbot',
    username,
    can_join_groups: true,
    can_read_all_group_messages: !privacyMode,
    supports_inline_queries: true,
    can_connect_to_business: false,
    has_main_web_app: false,
  } as UserFromGetMe;

  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const world = new World(bot);
  const messages = new MessageStore();
  const files = new FileStore();
  const limits = new Limits();
  limits.flood = options.rateLimits ?? false;
  const queue = new UpdateQueue();
  const queries = new Queries(now, options.queryLifetimeMs ?? 15_000);
  const commands = new CommandLists(world);
  const descriptions = new Descriptions();
  const log = new CallLog<TelegramCall>('fake Telegram', (c) => `${c.method} -> ${c.status}${c.description ? ` ${c.description}` : ''}`);
  const box: Outbox = { world, messages, files, limits, now };
  const people: People = { world, messages, queue, queries, now, privacyMode };

  const methods = new Map<string, Method>();
  const webhook = new Webhook({
    queue,
    now,
    retryBaseMs: options.webhookRetryMs ?? 1000,
    runReply: async (method, body) => {
      await run(wire, method, new Args(body), new AbortController().signal, 'webhook reply');
    },
  });
  const table: Record<string, Method> = {
    getMe: () => bot,
    getUpdates: (args, gone) => queue.getUpdates(args, gone),
    setWebhook: (args) => webhook.set(args),
    deleteWebhook: (args) => webhook.remove(args),
    getWebhookInfo: () => webhook.info(),
    setMyCommands: (args) => commands.set(args),
    getMyCommands: (args) => commands.get(args),
    deleteMyCommands: (args) => commands.remove(args),
    setMyDescription: (args) => descriptions.set('long', args),
    getMyDescription: (args) => descriptions.get('long', args),
    setMyShortDescription: (args) => descriptions.set('short', args),
    getMyShortDescription: (args) => descriptions.get('short', args),
    sendMessage: (args) => sendMessage(box, args),
    sendPhoto: (args) => sendPhoto(box, args),
    sendDocument: (args) => sendDocument(box, args),
    sendChatAction: (args) => sendChatAction(box, args),
    editMessageText: (args) => editMessageText(box, args),
    editMessageCaption: (args) => editMessageCaption(box, args),
    editMessageReplyMarkup: (args) => editMessageReplyMarkup(box, args),
    deleteMessage: (args) => deleteMessage(box, args),
    answerCallbackQuery: (args) => queries.answerCallback(args),
    answerInlineQuery: (args) => queries.answerInline(args),
    getChatMember: (args) => {
      const state = world.resolve(args.string('chat_id'));
      return world.member(state, args.int('user_id') ?? 0);
    },
    getFile: (args) => files.get(args.string('file_id')),
  };
  for (const [name, method] of Object.entries(table)) methods.set(name.toLowerCase(), method);
  const wire = { token, methods, limits, log, fileAt: (path: string) => files.byPath(path)?.bytes };
  const server = await startWire(wire);

  const stateOf = (chatId: number) => {
    const state = world.chats.get(chatId);
    if (!state) throw new Error(`fake Telegram: no chat ${chatId}`);
    return state;
  };
  const toPredicate = (filter: CallFilter | undefined) =>
    filter === undefined
      ? () => true
      : typeof filter === 'string'
        ? (c: TelegramCall) => c.method.toLowerCase() === filter.toLowerCase()
        : filter;

  let closed = false;
  return {
    url: server.origin,
    token,
    bot,

    addUser: (spec) => world.addUser(spec),
    addGroup: (spec) => {
      const state = world.addGroup(spec);
      // A forum's General topic holds message id 1.
      if (spec.forum) messages.allocate(state.chat.id);
      return state.chat;
    },
    addTopic: (chatId, name) => {
      const state = stateOf(chatId);
      if (!(state.chat as { is_forum?: boolean }).is_forum) throw new Error(`fake Telegram: chat ${chatId} is not a forum`);
      const threadId = messages.allocate(chatId);
      const iconColor = 0x6fb9f0;
      state.topics.set(threadId, { threadId, name, iconColor });
      const creator = [...state.members].find(([, s]) => s === 'creator')?.[0];
      messages.add(
        'service',
        {
          message_id: threadId,
          from: world.users.get(creator ?? 0) ?? world.botUser(),
          chat: state.chat,
          date: Math.floor(now() / 1000),
          message_thread_id: threadId,
          forum_topic_created: { name, icon_color: iconColor },
          is_topic_message: true,
        } as FakeMessage['message'],
        now(),
      );
      return threadId;
    },
    setMember: (chatId, user, status) => void stateOf(chatId).members.set(user.id, status),
    blockChat: (chatId) => {
      stateOf(chatId).blocked = true;
    },
    unblockChat: (chatId) => {
      const state = stateOf(chatId);
      if (state.chat.type === 'private') world.startBot(world.users.get(chatId)!);
      else state.blocked = false;
    },
    deleteChat: (chatId) => {
      stateOf(chatId).deleted = true;
    },
    migrateChat: (groupId) => {
      const old = stateOf(groupId);
      const next = world.migrate(groupId);
      // As Telegram does: the old group says where it went, the new one where it came from; a bot
      // in privacy mode gets both (service messages always reach it).
      const creator = [...next.members].find(([, s]) => s === 'creator')?.[0];
      const from = world.users.get(creator ?? 0) ?? world.botUser();
      const notices = [
        { chat: old.chat, migrate_to_chat_id: next.chat.id },
        { chat: next.chat, migrate_from_chat_id: old.chat.id },
      ];
      for (const notice of notices) {
        const message = {
          message_id: messages.allocate(notice.chat.id),
          from,
          date: Math.floor(now() / 1000),
          ...notice,
        } as FakeMessage['message'];
        messages.add('service', message, now());
        queue.push({ message } as UpdateBody);
      }
      return next.chat;
    },

    say: (input) => say(people, input),
    pressButton: (input) => press(people, input),
    inlineQuery: (input) => askInline(people, input),
    queueUpdate: (body) => queue.push(body),
    pendingUpdates: () => queue.pending(),

    calls: (filter) => log.calls(toPredicate(filter)),
    waitFor: (filter, timeoutMs) => log.waitFor(toPredicate(filter), timeoutMs),
    clear: () => log.clear(),
    messages: (chatId) => messages.list(chatId),
    commands: (scope, languageCode) => commands.list(scope, languageCode),
    description: (kind, languageCode) => descriptions.shown(kind, languageCode),
    callbackAnswers: () => [...queries.callbackAnswers],
    inlineAnswers: () => [...queries.inlineAnswers],
    webhookDeliveries: () => [...webhook.deliveries],
    fileBytes: (fileId) => files.bytesOf(fileId),

    rateLimitNext: (method, retryAfterSec, times) => limits.rateLimitNext(method, retryAfterSec, times),
    failNext: (method, spec) => limits.failNext(method, spec),
    clearFaults: () => limits.clear(),
    enforceRateLimits: (on) => {
      limits.flood = on;
    },
    advanceClock: (ms) => {
      offsetMs += ms;
    },
    now,
    close: async () => {
      if (closed) return;
      closed = true;
      webhook.close();
      queue.endPoll();
      log.dispose();
      await server.close();
    },
  };
}
