import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { LIMITS } from './html.js';
import type { Button } from './render.js';
import type { ButtonCommands } from './stores.js';

/**
 * What a button carries to polbot and back. Telegram gives a button 64 bytes of callback_data:
 * the command itself when it fits, else a short key under which the database keeps it.
 */

/** What a button carries: `c` runs its command into a new message, `e` into the message it is on; `=` the command itself, `#` its stored key. */
const DATA = /^([ce])(\d{0,4})([=#])(.+)$/s;

export interface Pressed {
  replace: boolean;
  page?: number;
  /** The command as typed, or the key it is stored under. */
  command?: string;
  key?: string;
}

export function decodeData(data: string): Pressed | undefined {
  const m = DATA.exec(data);
  if (!m) return undefined;
  return {
    replace: m[1] === 'e',
    ...(m[2] ? { page: Number(m[2]) } : {}),
    ...(m[3] === '=' ? { command: m[4]! } : { key: m[4]! }),
  };
}

export class Keyboards {
  constructor(readonly stored: ButtonCommands) {}

  /** Buttons as Telegram takes them; a command longer than 64 bytes is stored and the button carries its key. */
  async markup(keyboard: readonly Button[][]): Promise<InlineKeyboardMarkup | undefined> {
    if (!keyboard.length) return undefined;
    const rows = await Promise.all(keyboard.map((row) => Promise.all(row.map((b) => this.button(b)))));
    return { inline_keyboard: rows };
  }

  private async button(b: Button): Promise<InlineKeyboardButton> {
    if (b.url) return { text: b.label, url: b.url };
    const head = `${b.replace ? 'e' : 'c'}${b.page ?? ''}`;
    const direct = `${head}=${b.run ?? ''}`;
    if (Buffer.byteLength(direct, 'utf8') <= LIMITS.callbackData) return { text: b.label, callback_data: direct };
    return { text: b.label, callback_data: `${head}#${await this.stored.park(b.run ?? '')}` };
  }
}
