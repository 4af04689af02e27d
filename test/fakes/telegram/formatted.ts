import type { MessageEntity } from 'grammy/types';
import { decodeJson } from './args.js';
import { badRequest, notModelled } from './errors.js';
import { type FormattedText, parseHtml } from './html.js';

/**
 * A message's text or a media caption as Telegram keeps it: parsed in its parse mode, trimmed as
 * Telegram trims (trailing white space, leading line breaks), then held to its limit: 4,096
 * characters of text, 1,024 of caption, counted after parsing (the tags of HTML do not count).
 * Characters are UTF-16 code units, the unit of entity offsets, so an emoji outside the BMP
 * counts two: never more generous than Telegram.
 */

export const TEXT_LIMIT = 4096;
export const CAPTION_LIMIT = 1024;
/** The server refuses to parse a text over 32 KiB, whatever it would shrink to. */
const RAW_LIMIT_BYTES = 1 << 15;

export interface TextInput {
  text: string | undefined;
  parseMode: string | undefined;
  /** Explicit entities, used when there is no parse mode. */
  entities: unknown;
}

export function messageText(input: TextInput): FormattedText {
  if (!input.text) throw badRequest('message text is empty');
  const parsed = visibleText(input);
  if (parsed.text === '') throw badRequest('message must be non-empty');
  if (parsed.text.length > TEXT_LIMIT) throw badRequest('message is too long');
  return parsed;
}

/** A caption; absent or empty, the media has none. */
export function caption(input: TextInput): FormattedText | undefined {
  if (!input.text) return undefined;
  const parsed = visibleText(input);
  if (parsed.text === '') return undefined;
  if (parsed.text.length > CAPTION_LIMIT) throw badRequest('message caption is too long');
  return parsed;
}

/** The text as a person would see it, before any limit is applied. */
export function visibleText(input: TextInput): FormattedText {
  return trim(parse(input));
}

function parse(input: TextInput): FormattedText {
  const text = input.text ?? '';
  if (Buffer.byteLength(text, 'utf8') > RAW_LIMIT_BYTES) throw badRequest('text is too long');
  const mode = (input.parseMode ?? '').toLowerCase();
  if (mode === '' || mode === 'none') return { text, entities: explicitEntities(input.entities) };
  if (mode === 'html') return parseHtml(text);
  if (mode === 'markdown' || mode === 'markdownv2') throw notModelled(`parse_mode ${input.parseMode} (polbot sends HTML)`);
  throw badRequest('unsupported parse_mode');
}

function explicitEntities(value: unknown): MessageEntity[] {
  const list = decodeJson(value, "can't parse entities JSON object") ?? [];
  if (!Array.isArray(list)) throw badRequest("can't parse entities JSON object");
  for (const e of list) {
    if (typeof e !== 'object' || e === null) throw badRequest("can't parse MessageEntity: expected an Object");
    const { offset, length, type } = e as Record<string, unknown>;
    if (!Number.isInteger(offset) || !Number.isInteger(length) || typeof type !== 'string') {
      throw badRequest('can\'t parse MessageEntity: Field "offset", "length" or "type" is missing or of a wrong type');
    }
  }
  return list as MessageEntity[];
}

/** Trailing white space and leading line breaks go; entities shift with the text and are cut to it. */
function trim({ text, entities }: FormattedText): FormattedText {
  const lead = /^[\r\n]*/.exec(text)![0].length;
  const kept = text.slice(lead).replace(/\s+$/u, '');
  const out: MessageEntity[] = [];
  for (const e of entities) {
    const from = Math.max(0, e.offset - lead);
    const to = Math.min(kept.length, e.offset + e.length - lead);
    if (to > from) out.push({ ...e, offset: from, length: to - from });
  }
  return { text: kept, entities: out };
}
