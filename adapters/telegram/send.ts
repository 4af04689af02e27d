import { type Api, GrammyError, InputFile } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { clip, escapeHtml, fitLines, LIMITS, stripTags, visibleLength } from './html.js';
import { captionFits, type TelegramMessage } from './render.js';

/**
 * Sending a rendered message, and changing it later. A chat is addressed as polbot's stores know
 * it: the chat id, and a forum topic after a slash (`-1001234/17`). A message is referenced by
 * what was sent for it: the photo (and whether the text is its caption) and the texts after it.
 */

export interface Where {
  chatId: number;
  /** A forum topic's message_thread_id. */
  threadId?: number;
}

export const addressOf = (w: Where): string => (w.threadId !== undefined ? `${w.chatId}/${w.threadId}` : String(w.chatId));

export function parseAddress(address: string): Where | undefined {
  const m = /^(-?\d{1,20})(?:\/(\d{1,12}))?$/.exec(address);
  if (!m) return undefined;
  return { chatId: Number(m[1]), ...(m[2] ? { threadId: Number(m[2]) } : {}) };
}

export interface Sent {
  photo?: number;
  /** The text rides on the photo as its caption. */
  captioned: boolean;
  texts: number[];
}

/** `p12c` (a photo with its caption), `p12 t13 t14` (a photo, then texts), `t15`. */
export function refOf(sent: Sent): string {
  return [...(sent.photo !== undefined ? [`p${sent.photo}${sent.captioned ? 'c' : ''}`] : []), ...sent.texts.map((t) => `t${t}`)].join(' ');
}

export function parseRef(ref: string): Sent | undefined {
  const parts = ref.trim().split(/\s+/);
  const sent: Sent = { captioned: false, texts: [] };
  for (const p of parts) {
    const m = /^([pt])(\d{1,12})(c?)$/.exec(p);
    if (!m) return undefined;
    if (m[1] === 'p') {
      sent.photo = Number(m[2]);
      sent.captioned = m[3] === 'c';
    } else sent.texts.push(Number(m[2]));
  }
  return sent.photo === undefined && sent.texts.length === 0 ? undefined : sent;
}

/** The message a reply or follow-up answers: the first one sent for it. */
export const firstOf = (sent: Sent): number => sent.photo ?? sent.texts[0]!;

export interface SendOptions {
  /** The message this one answers (a command, an alert it follows up). */
  replyTo?: number;
}

const HTML = { parse_mode: 'HTML' as const };
const NO_PREVIEW = { link_preview_options: { is_disabled: true } };

/** Sends a rendered message: the chart with the text as its caption when it fits, else the chart and then the texts. */
export async function sendRendered(
  api: Api,
  where: Where,
  msg: TelegramMessage,
  markup: InlineKeyboardMarkup | undefined,
  opts: SendOptions = {},
): Promise<Sent> {
  const thread = where.threadId !== undefined ? { message_thread_id: where.threadId } : {};
  let replyTo = opts.replyTo;
  const replying = () => (replyTo !== undefined ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {});
  const sent: Sent = { captioned: false, texts: [] };
  if (msg.photo) {
    const photo = msg.photo.kind === 'png' ? new InputFile(msg.photo.png, msg.photo.filename) : msg.photo.url;
    if (captionFits(msg)) {
      const m = await api.sendPhoto(where.chatId, photo, {
        ...thread,
        ...replying(),
        ...HTML,
        caption: msg.texts[0]!,
        ...(markup ? { reply_markup: markup } : {}),
      });
      return { photo: m.message_id, captioned: true, texts: [] };
    }
    const m = await api.sendPhoto(where.chatId, photo, { ...thread, ...replying() });
    sent.photo = m.message_id;
    // The texts that follow answer the photo, so they read as one message.
    replyTo = m.message_id;
  }
  for (const [i, text] of msg.texts.entries()) {
    const last = i === msg.texts.length - 1;
    const m = await api.sendMessage(where.chatId, text, {
      ...thread,
      ...replying(),
      ...HTML,
      ...NO_PREVIEW,
      ...(last && markup ? { reply_markup: markup } : {}),
    });
    sent.texts.push(m.message_id);
  }
  if (msg.file) {
    // After the rows it holds in full, as a reply to the answer it belongs to.
    const first = sent.photo ?? sent.texts[0];
    await api.sendDocument(where.chatId, new InputFile(msg.file.bytes, msg.file.filename), {
      ...thread,
      ...(first !== undefined ? { reply_parameters: { message_id: first, allow_sending_without_reply: true } } : {}),
      ...HTML,
      caption: escapeHtml(clip(msg.file.title, LIMITS.caption)),
    });
  }
  return sent;
}

/** Telegram's answer when an edit would change nothing; the message already shows it. */
export const unchanged = (err: unknown): boolean => err instanceof GrammyError && /message is not modified/i.test(err.description);

/**
 * Redraws a sent message in place: the caption, or the texts (a text the new version no longer
 * has is left as it was). The keyboard is always sent again: an edit without one removes it.
 */
export async function editRendered(api: Api, where: Where, sent: Sent, msg: TelegramMessage, markup: InlineKeyboardMarkup | undefined) {
  const keyboard = { reply_markup: markup ?? { inline_keyboard: [] } };
  const swallow = (err: unknown) => {
    if (!unchanged(err)) throw err;
  };
  if (sent.captioned && sent.photo !== undefined) {
    const caption =
      visibleLength(msg.texts.join('\n')) <= LIMITS.caption
        ? msg.texts.join('\n')
        : fitLines(msg.texts.join('\n').split('\n'), LIMITS.caption);
    await api.editMessageCaption(where.chatId, sent.photo, { ...HTML, caption, ...keyboard }).catch(swallow);
    return;
  }
  const texts = sent.texts;
  for (const [i, id] of texts.entries()) {
    const text = msg.texts[i];
    if (text === undefined) break;
    const last = i === Math.min(texts.length, msg.texts.length) - 1;
    await api.editMessageText(where.chatId, id, text, { ...HTML, ...NO_PREVIEW, ...(last ? keyboard : {}) }).catch(swallow);
  }
}

/** The words a message says, without markup: what the stores search for a delivery's key. */
export const wordsOf = (msg: TelegramMessage): string => msg.texts.map(stripTags).join('\n');
