import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { decodeJson } from './args.js';
import { badRequest } from './errors.js';

/**
 * `reply_markup` as the Bot API server reads it, then as Telegram's servers judge it: the shape
 * (an object; `inline_keyboard` an array of arrays of buttons, each with text and one action),
 * then the content (callback_data of 1-64 bytes, button URLs Telegram can open, at most 100
 * buttons). Keyboards other than inline ones are kept as sent.
 */

export const CALLBACK_DATA_LIMIT_BYTES = 64;
const MAX_BUTTONS = 100;
/** Actions a button may carry besides url and callback_data; the fake keeps them without judging them. */
const OTHER_ACTIONS = [
  'callback_game',
  'pay',
  'switch_inline_query',
  'switch_inline_query_chosen_chat',
  'switch_inline_query_current_chat',
  'login_url',
  'web_app',
  'copy_text',
];

export type Markup = InlineKeyboardMarkup | Record<string, unknown>;

/** The markup, checked for shape only: what the Bot API server refuses before anything is sent. */
export function readMarkup(value: unknown): Markup | undefined {
  const markup = decodeJson(value, "can't parse reply keyboard markup JSON object");
  if (markup === undefined) return undefined;
  if (typeof markup !== 'object' || markup === null || Array.isArray(markup)) throw badRequest('object expected as reply markup');
  const object = markup as Record<string, unknown>;
  if (!('inline_keyboard' in object)) return object;
  const rows = object.inline_keyboard;
  if (!Array.isArray(rows)) throw badRequest('field "inline_keyboard" must be of type Array');
  for (const row of rows) {
    if (!Array.isArray(row)) throw badRequest('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
    for (const button of row) checkButtonShape(button);
  }
  // An empty inline keyboard is no keyboard: sent in an edit, it removes the one there was.
  if (rows.every((row: unknown[]) => row.length === 0)) return undefined;
  return { inline_keyboard: rows as InlineKeyboardButton[][] };
}

function checkButtonShape(button: unknown): void {
  const fail = (what: string): never => {
    throw badRequest(`can't parse inline keyboard button: ${what}`);
  };
  if (typeof button !== 'object' || button === null || Array.isArray(button)) fail('InlineKeyboardButton must be an Object');
  const b = button as Record<string, unknown>;
  if (!('text' in b)) fail('Can\'t find field "text"');
  if (typeof b.text !== 'string') fail('Field "text" must be of type String');
  for (const field of ['url', 'callback_data']) {
    if (field in b && typeof b[field] !== 'string') fail(`Field "${field}" must be of type String`);
  }
  const acts = (b.url as string | undefined) || (b.callback_data as string | undefined) || OTHER_ACTIONS.some((a) => a in b);
  if (!acts) fail('Text buttons are unallowed in the inline keyboard');
}

/** What Telegram's servers refuse in a keyboard whose shape the Bot API server accepted. */
export function judgeMarkup(markup: Markup | undefined): void {
  if (!markup || !('inline_keyboard' in markup)) return;
  const buttons = (markup as InlineKeyboardMarkup).inline_keyboard.flat();
  if (buttons.length > MAX_BUTTONS) throw badRequest('reply markup is too long');
  for (const button of buttons) {
    const b = button as unknown as Record<string, unknown>;
    if (typeof b.callback_data === 'string' && Buffer.byteLength(b.callback_data, 'utf8') > CALLBACK_DATA_LIMIT_BYTES) {
      throw badRequest('BUTTON_DATA_INVALID');
    }
    if (typeof b.url === 'string' && b.url !== '' && !openable(b.url)) throw badRequest('BUTTON_URL_INVALID');
  }
}

function openable(url: string): boolean {
  try {
    return ['http:', 'https:', 'tg:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}
