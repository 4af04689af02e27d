import { autoRetry } from '@grammyjs/auto-retry';
import { apiThrottler } from '@grammyjs/transformer-throttler';
import { Bot, type Context, GrammyError } from 'grammy';
import type { CallbackQuery, InlineQueryResult, Message } from 'grammy/types';
import type { Caller, Core, RunResult } from '../../commands/core/index.js';
import type { Queryable } from '../../src/db/index.js';
import type { Logger } from '../../src/log.js';
import type { TelegramSettings } from './config.js';
import { LIMITS, plain } from './html.js';
import { nameOf, People, whereOf } from './people.js';
import { notice, renderReply, type TelegramMessage } from './render.js';
import { decodeData, Keyboards } from './buttons.js';
import { editRendered, parseRef, sendRendered, type Sent, type Where } from './send.js';
import { ButtonCommands, PostedMessages, SeenUpdates } from './stores.js';

export interface TelegramAdapterOptions {
  core: Core;
  telegram: TelegramSettings;
  db: Queryable;
  log: Logger;
  /** How long a note to one person stays in a group before it is deleted. */
  noticeTtlMs?: number;
  /** A callback is answered by then even when the command is still running (Telegram allows about 15 s). */
  callbackAnswerMs?: number;
  /**
   * A chat Telegram gave a new id (a group that became a supergroup): what polbot keeps for the
   * old one moves to the new one. Without it, the old chat's digests and rules pause with the reason.
   */
  moved?: (from: string, to: string) => Promise<{ digests: number; alerts: number }>;
}

const FAILED: RunResult = {
  command: 'failed',
  reply: { kind: 'error', message: 'Something went wrong answering that. Please try again.' },
};
const STALE_BUTTON = 'That button no longer works. Run the command again.';
/** Candidates an inline query offers a card for, when a name is ambiguous. */
const INLINE_CANDIDATES = 5;
/** The least time between two typing statuses, over all chats. */
const TYPING_EVERY_MS = 1_000;

/**
 * polbot in Telegram: `/pol …` (and `/pol@bot …` in groups), plain words in a private chat or in
 * reply to polbot, buttons, and inline mode. Only translation happens here: the core answers,
 * render.ts draws, send.ts sends. Every handler catches its own failures: nothing reaches grammY's
 * error path, which would stop long polling.
 */
export class TelegramAdapter {
  readonly bot: Bot;
  get api() {
    return this.bot.api;
  }
  readonly keyboards: Keyboards;
  readonly posted: PostedMessages;
  private readonly seen: SeenUpdates;
  private readonly people: People;
  private readonly log: Logger;
  private readonly core: Core;
  private readonly noticeTtlMs: number;
  private readonly callbackAnswerMs: number;
  readonly moved: TelegramAdapterOptions['moved'];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly working = new Set<Promise<unknown>>();
  private lastTyping = 0;

  constructor(opts: TelegramAdapterOptions) {
    this.core = opts.core;
    this.log = opts.log;
    this.noticeTtlMs = opts.noticeTtlMs ?? 60_000;
    this.callbackAnswerMs = opts.callbackAnswerMs ?? 8_000;
    this.moved = opts.moved;
    this.bot = new Bot(opts.telegram.token, {
      client: { ...(opts.telegram.apiUrl ? { apiRoot: opts.telegram.apiUrl } : {}), timeoutSeconds: 60 },
    });
    // Messages are paced below Telegram's flood limits (30 a second, 20 a minute in a group, about
    // one a second in a chat), and a 429 that still comes is waited out as its retry_after says, a
    // bounded number of times. Only what posts or changes a message is paced: a typing status
    // queued with them held a slow answer a second behind it and, in a burst, took half of the 30 a
    // second from the answers (onMessage paces it instead); an administrator check, a deletion or
    // a callback answer is no message, and would spend a group's 20 a minute for nothing.
    const throttle = apiThrottler();
    const paced = (method: string) => /^(send|edit|copy|forward)/.test(method) && method !== 'sendChatAction';
    this.bot.api.config.use((prev, method, payload, signal) =>
      paced(method) ? throttle(prev, method, payload, signal) : prev(method, payload, signal),
    );
    // A network failure is not retried here (the plugin would retry it for ever, start-up included):
    // it reaches the caller, and a delivery is tried again by its queue, polling by the runner.
    this.bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60, rethrowHttpErrors: true }));
    this.keyboards = new Keyboards(new ButtonCommands(opts.db));
    this.posted = new PostedMessages(opts.db);
    this.seen = new SeenUpdates(opts.db);
    this.people = new People(this.bot.api, () => this.username);
    this.wire();
  }

  get username(): string {
    return this.bot.botInfo.username;
  }

  private wire(): void {
    const { bot } = this;
    // Each update once, whichever replica it reaches and however often Telegram sends it.
    bot.use(async (ctx, next) => {
      if (await this.seen.first(ctx.update.update_id)) await next();
      else this.log.debug({ update: ctx.update.update_id }, 'telegram update already handled');
    });
    bot.on('message:text', (ctx) => this.track(this.onMessage(ctx, ctx.message)));
    // Telegram tells the old group it became a supergroup, and the new one where it came from.
    bot.on('message:migrate_to_chat_id', (ctx) => this.track(this.onMoved(ctx.message.chat.id, ctx.message.migrate_to_chat_id)));
    bot.on('message:migrate_from_chat_id', (ctx) => this.track(this.onMoved(ctx.message.migrate_from_chat_id, ctx.message.chat.id)));
    bot.on('callback_query:data', (ctx) => this.track(this.onPress(ctx, ctx.callbackQuery)));
    bot.on('inline_query', (ctx) => this.track(this.onInline(ctx)));
    bot.catch((err) => this.log.error({ error: describe(err.error) }, 'telegram update failed'));
  }

  /** Runs a handler to its end, whatever it meets; `drain` waits for those under way. */
  private async track(work: Promise<void>): Promise<void> {
    const guarded = work.catch((err: unknown) => this.log.error({ error: describe(err) }, 'telegram handler failed'));
    this.working.add(guarded);
    try {
      await guarded;
    } finally {
      this.working.delete(guarded);
    }
  }

  async drain(): Promise<void> {
    await Promise.all([...this.working]);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private run(text: string, caller: Caller, words = false): Promise<RunResult> {
    return (words ? this.core.converse(text, caller) : this.core.run(text, caller)).catch((err: unknown) => {
      this.log.error({ error: describe(err) }, 'command core failed');
      return FAILED;
    });
  }

  // -------------------------------------------------------------------------------------------
  // Messages: commands, and plain words where they are meant for polbot

  /** What a message asks of polbot, if anything: a command's text, or words to understand. */
  private asked(message: Message): { text: string; words: boolean } | undefined {
    const text = message.text ?? '';
    const first = message.entities?.[0];
    if (first?.type === 'bot_command' && first.offset === 0) {
      const [name = '', to] = text.slice(1, first.length).toLowerCase().split('@');
      if (to !== undefined && to !== this.username.toLowerCase()) return undefined;
      const rest = text.slice(first.length).trim();
      // `/pol check` in reply to a message checks the names that message mentions, as Slack's and Discord's message actions do.
      const replied = message.reply_to_message;
      const quoted = replied && ('text' in replied ? replied.text : 'caption' in replied ? replied.caption : undefined);
      if (name === 'pol' && /^check$/i.test(rest) && quoted) return { text: `check ${quoted.slice(0, 4000)}`, words: false };
      if (name === 'pol') return { text: rest, words: false };
      if (name === 'help') return { text: 'help', words: false };
      // `/start` opens a private chat; a link to it may carry what the person wanted (`?start=help`).
      if (name === 'start') return { text: 'help', words: false };
      return message.chat.type === 'private' ? { text: text.slice(1), words: true } : undefined;
    }
    if (message.chat.type === 'private') return { text, words: true };
    const mention = new RegExp(`@${this.username}\\b`, 'gi');
    const toBot = message.reply_to_message?.from?.id === this.bot.botInfo.id;
    if (toBot || mention.test(text)) return { text: text.replace(mention, ' ').trim(), words: true };
    return undefined;
  }

  private async onMessage(ctx: Context, message: Message): Promise<void> {
    if (message.from?.is_bot && message.sender_chat?.id !== message.chat.id) return;
    const asked = this.asked(message);
    if (!asked) return;
    const place = whereOf(message.chat, message);
    const caller = await this.people.caller(message.chat, message.from, place, message.sender_chat);
    const pending = this.run(asked.text, caller, asked.words);
    // A person waits on a chart; Telegram shows that polbot is on it, not for an instant answer.
    // One a second at most over all chats, so that a burst of commands costs Telegram's limits
    // next to nothing beyond its answers.
    const slow = setTimeout(() => {
      if (Date.now() - this.lastTyping < TYPING_EVERY_MS) return;
      this.lastTyping = Date.now();
      void ctx.api
        .sendChatAction(place.chatId, 'typing', place.threadId !== undefined ? { message_thread_id: place.threadId } : {})
        .catch(() => undefined);
    }, 300);
    const result = await pending.finally(() => clearTimeout(slow));
    await this.answer(place, message, result, asked.words ? undefined : asked.text);
  }

  /**
   * Sends an answer where it belongs. For the channel: a reply to the asking message. For the
   * person alone in a group: a mistake as a short reply that goes away after a minute; anything
   * longer (help) in their private chat, with a note in the group that goes away too.
   */
  private async answer(place: Where, message: Message, result: RunResult, source?: string): Promise<void> {
    const msg = renderReply(result.reply, source !== undefined ? { source } : {});
    const group = message.chat.type !== 'private';
    const replyTo = { replyTo: message.message_id };
    if (!msg.private || !group || result.reply.kind === 'choice') {
      await this.send(place, msg, replyTo);
      return;
    }
    if (result.reply.kind === 'error') {
      const sent = await this.send(place, msg, replyTo);
      this.expire(place, sent);
      return;
    }
    // An administrator posting as the group has no private chat to send to.
    const person = message.from && !message.from.is_bot ? message.from : undefined;
    const inPrivate = person ? await this.sendPrivately(person.id, msg) : false;
    const note = inPrivate
      ? notice(`📬 ${nameOf(person!)}: sent to you in a private chat with me.`)
      : notice('That answer is for you alone. Open a private chat with me and ask there:', [
          [{ label: 'Open a private chat', url: `https://t.me/${this.username}?start=help` }],
        ]);
    this.expire(place, await this.send(place, note, replyTo));
  }

  /** Whether the person's private chat took it: a bot cannot write first (403), nor to an id that is no person (400). */
  private sendPrivately(userId: number, msg: TelegramMessage): Promise<boolean> {
    return this.send({ chatId: userId }, msg).then(
      () => true,
      (err: unknown) => {
        if (err instanceof GrammyError && (err.error_code === 403 || err.error_code === 400)) return false;
        throw err;
      },
    );
  }

  private async send(place: Where, msg: TelegramMessage, opts: { replyTo?: number } = {}): Promise<Sent> {
    return sendRendered(this.bot.api, place, msg, await this.keyboards.markup(msg.keyboard), opts);
  }

  /** A note for one person in a group is deleted after a minute (while this process runs). */
  private expire(place: Where, sent: Sent): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      for (const id of [...(sent.photo !== undefined ? [sent.photo] : []), ...sent.texts]) {
        this.bot.api.deleteMessage(place.chatId, id).catch(() => undefined);
      }
    }, this.noticeTtlMs);
    timer.unref();
    this.timers.add(timer);
  }

  async onMoved(from: number, to: number): Promise<void> {
    if (!this.moved) return;
    const moved = await this.moved(String(from), String(to));
    if (moved.digests || moved.alerts)
      this.log.info({ from, to, ...moved }, 'telegram group became a supergroup; its digests and rules moved with it');
  }

  // -------------------------------------------------------------------------------------------
  // Buttons

  private async onPress(ctx: Context, query: CallbackQuery): Promise<void> {
    const pressed = decodeData(query.data ?? '');
    const message = query.message && 'chat' in query.message ? (query.message as Message) : undefined;
    let answered = false;
    const answer = async (text?: string, alert = false) => {
      if (answered) return;
      answered = true;
      await ctx
        .answerCallbackQuery(text ? { text: plain(text, LIMITS.callbackText), show_alert: alert } : {})
        .catch((err: unknown) => this.log.debug({ error: describe(err) }, 'telegram callback answer failed'));
    };
    const command = pressed?.command ?? (pressed?.key ? await this.keyboards.stored.take(pressed.key) : undefined);
    if (!pressed || command === undefined || !message) return answer(STALE_BUTTON, true);
    const group = message.chat.type !== 'private';
    // A choice answers the person who asked; in a group, someone else's press runs nothing.
    const asker = message.reply_to_message?.from;
    if (pressed.replace && pressed.page === undefined && group && asker && !asker.is_bot && asker.id !== query.from.id) {
      return answer(`This choice is for ${nameOf(asker)}. Ask with /pol yourself to get your own.`, true);
    }
    const place = whereOf(message.chat, message);
    const caller = await this.people.caller(message.chat, query.from, place);
    const pending = this.run(command, caller);
    // Telegram gives a press about 15 s to be answered; a slow command is answered empty first.
    const early = await Promise.race([
      pending,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), this.callbackAnswerMs).unref()),
    ]);
    if (!early) await answer();
    const result = early ?? (await pending);
    const msg = renderReply(result.reply, { source: command, ...(pressed.page !== undefined ? { page: pressed.page } : {}) });

    if (msg.private && group && result.reply.kind !== 'choice') {
      // Telegram shows a press's answer to the presser alone: the natural place for a refusal.
      if (result.reply.kind === 'error') return answer(msg.summary, true);
      // Anything longer goes to their private chat, if polbot may write there.
      const delivered = await this.sendPrivately(query.from.id, msg);
      return answer(
        delivered
          ? 'Sent to you in a private chat with me.'
          : `Open a private chat with @${this.username} first (a bot cannot write to you before you do), then press again.`,
        !delivered,
      );
    }
    await answer();
    if (pressed.replace && !msg.photo) {
      const sent = parseRef(`t${message.message_id}`)!;
      await editRendered(ctx.api, place, sent, { ...msg, texts: msg.texts.slice(0, 1) }, await this.keyboards.markup(msg.keyboard));
      if (msg.texts.length > 1) await this.send(place, { ...msg, texts: msg.texts.slice(1) }, { replyTo: message.message_id });
      return;
    }
    if (pressed.replace) await ctx.api.deleteMessage(place.chatId, message.message_id).catch(() => undefined);
    await this.send(place, msg, pressed.replace && asker ? { replyTo: message.reply_to_message!.message_id } : {});
  }

  // -------------------------------------------------------------------------------------------
  // Inline mode: `@bot binance` in any chat

  private async onInline(ctx: Context): Promise<void> {
    const query = ctx.inlineQuery!;
    const text = query.query.trim();
    const caller: Caller = {
      platform: 'telegram',
      userId: String(query.from.id),
      channelId: `inline:${query.from.id}`,
      canManageDigests: false,
      canPost: false,
      userName: nameOf(query.from),
    };
    const results: InlineQueryResult[] = [];
    if (text) {
      const first = await this.run(text, caller);
      const cards =
        first.reply.kind === 'choice' && first.reply.reason === 'ambiguous'
          ? await Promise.all(
              first.reply.options.slice(0, INLINE_CANDIDATES).map(async (o) => ({
                label: o.label,
                result: await this.run(o.command ?? this.core.registry.text(o.run), caller),
              })),
            )
          : [{ label: undefined, result: first }];
      for (const [i, c] of cards.entries()) {
        // Only a card is offered: nothing at all beats a guess or an error sent into someone's chat.
        if (c.result.reply.kind !== 'card') continue;
        // A result is text alone: no chart to show (its series is drawn as a line of bars instead), no buttons.
        const { image: _chart, ...card } = c.result.reply;
        const msg = renderReply({ ...card, actions: [], menus: [] });
        const content = msg.texts.join('\n').slice(0, LIMITS.text);
        results.push({
          type: 'article',
          id: `${i}-${c.result.reply.entity.kind}-${c.result.reply.entity.slug}`.slice(0, 64),
          title: plain(c.label ? `${c.label}: ${msg.summary}` : msg.summary, LIMITS.inlineTitle),
          description: plain(`${c.result.reply.entity.kind} · PoL is a loss probability: lower is safer`, LIMITS.inlineTitle),
          input_message_content: { message_text: content, parse_mode: 'HTML', link_preview_options: { is_disabled: true } },
        });
      }
    }
    await ctx
      .answerInlineQuery(results, { cache_time: 60, is_personal: false })
      .catch((err: unknown) => this.log.debug({ error: describe(err) }, 'telegram inline answer failed'));
  }
}

/** An error as log fields, with nothing of the request in it (the URL holds the bot token). */
export function describe(err: unknown): Record<string, unknown> {
  if (err instanceof GrammyError) return { name: 'GrammyError', method: err.method, code: err.error_code, description: err.description };
  if (err instanceof Error) return { name: err.name, message: err.message.replace(/bot\d+:[\w-]+/g, 'bot<token>') };
  return { message: String(err) };
}
