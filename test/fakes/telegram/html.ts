import type { MessageEntity } from 'grammy/types';
import { badRequest } from './errors.js';

/**
 * Telegram's HTML parse mode, as the Bot API server parses it (TDLib's parse_html): the text a
 * person sees, with its entities at UTF-16 offsets, or the server's refusal word for word
 * (`can't parse entities: Unsupported start tag "br" at byte offset 12`). Byte offsets count
 * UTF-8 bytes of the text as sent.
 *
 * What it takes: the tags b, strong, i, em, u, ins, s, strike, del, span class="tg-spoiler",
 * tg-spoiler, a href, code, pre, code class="language-x" inside pre, blockquote (and
 * `blockquote expandable`), tg-emoji emoji-id; the entities &lt; &gt; &amp; &quot; and numeric
 * ones. As on Telegram, an `&` that starts no known entity (`&nbsp;`, `AT&T`) and a lone `>` are
 * kept as text, not refused; a `<` always starts a tag.
 */

const TAGS = new Set([
  'a',
  'b',
  'strong',
  'i',
  'em',
  's',
  'strike',
  'del',
  'u',
  'ins',
  'tg-spoiler',
  'tg-emoji',
  'span',
  'pre',
  'code',
  'blockquote',
]);

const SIMPLE: Record<string, MessageEntity['type']> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  u: 'underline',
  ins: 'underline',
  'tg-spoiler': 'spoiler',
  span: 'spoiler',
};

/** Telegram's order among entities over the same text: the outermost first. */
const PRIORITY: Record<string, number> = {
  blockquote: 0,
  expandable_blockquote: 0,
  pre: 11,
  code: 20,
  text_link: 49,
  bold: 90,
  italic: 91,
  underline: 92,
  strikethrough: 93,
  spoiler: 94,
  custom_emoji: 99,
};

interface Open {
  tag: string;
  argument: string;
  expandable: boolean;
  offset: number;
}

export interface FormattedText {
  text: string;
  entities: MessageEntity[];
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f';
const isNameChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9.-]/.test(c);

export function parseHtml(source: string): FormattedText {
  const fail = (what: string): never => {
    throw badRequest(`can't parse entities: ${what}`);
  };
  const at = (index: number) => Buffer.byteLength(source.slice(0, index), 'utf8');
  let text = '';
  const entities: Draft[] = [];
  const open: Open[] = [];
  let loneSurrogate = false;

  for (let i = 0; i < source.length; i += 1) {
    const c = source[i];
    if (c === '&') {
      const decoded = decodeEntity(source, i);
      if (decoded) {
        if (decoded.code >= 0xd800 && decoded.code <= 0xdfff) loneSurrogate = true;
        text += String.fromCodePoint(decoded.code);
        i = decoded.end - 1;
        continue;
      }
    }
    if (c !== '<') {
      text += c;
      continue;
    }

    const begin = i;
    i += 1;
    if (source[i] !== '/') {
      while (i < source.length && !isSpace(source[i]) && source[i] !== '>') i += 1;
      if (i >= source.length) fail(`Unclosed start tag at byte offset ${at(begin)}`);
      const tag = source.slice(begin + 1, i).toLowerCase();
      if (!TAGS.has(tag)) fail(`Unsupported start tag "${tag}" at byte offset ${at(begin)}`);

      let argument = '';
      let expandable = false;
      while (source[i] !== '>') {
        while (i < source.length && isSpace(source[i])) i += 1;
        if (source[i] === '>') break;
        const nameBegin = i;
        while (i < source.length && !isSpace(source[i]) && source[i] !== '=' && source[i] !== '>') i += 1;
        const name = source.slice(nameBegin, i);
        if (name === '') fail(`Empty attribute name in the tag "${tag}" at byte offset ${at(begin)}`);
        while (i < source.length && isSpace(source[i])) i += 1;
        if (source[i] !== '=') {
          if (tag === 'blockquote' && name === 'expandable') {
            expandable = true;
            if (i >= source.length) fail(`Unclosed start tag "${tag}" at byte offset ${at(begin)}`);
            continue;
          }
          fail(`Expected equal sign in declaration of an attribute of the tag "${tag}" at byte offset ${at(begin)}`);
        }
        i += 1;
        while (i < source.length && isSpace(source[i])) i += 1;
        if (i >= source.length) fail(`Unclosed start tag "${tag}" at byte offset ${at(begin)}`);

        let value = '';
        const quote = source[i];
        if (quote !== '"' && quote !== "'") {
          const tokenBegin = i;
          while (isNameChar(source[i])) i += 1;
          value = source.slice(tokenBegin, i).toLowerCase();
          if (!isSpace(source[i]) && source[i] !== '>') fail(`Unexpected end of name token at byte offset ${at(tokenBegin)}`);
        } else {
          i += 1;
          while (i < source.length && source[i] !== quote) {
            const decoded = source[i] === '&' ? decodeEntity(source, i) : null;
            if (decoded) {
              value += String.fromCodePoint(decoded.code);
              i = decoded.end;
            } else {
              value += source[i];
              i += 1;
            }
          }
          if (source[i] === quote) i += 1;
          if (i >= source.length) fail(`Unclosed start tag at byte offset ${at(begin)}`);
        }

        if (tag === 'a' && name === 'href') argument = value;
        else if (tag === 'code' && name === 'class' && value.startsWith('language-')) argument = value.slice('language-'.length);
        else if (tag === 'span' && name === 'class' && value.startsWith('tg-')) argument = value.slice('tg-'.length);
        else if (tag === 'tg-emoji' && name === 'emoji-id') argument = value;
      }
      if (tag === 'span' && argument !== 'spoiler') fail(`Tag "span" must have class "tg-spoiler" at byte offset ${at(begin)}`);
      open.push({ tag, argument, expandable, offset: text.length });
      continue;
    }

    if (open.length === 0) fail(`Unexpected end tag at byte offset ${at(begin)}`);
    while (i < source.length && !isSpace(source[i]) && source[i] !== '>') i += 1;
    const endTag = source.slice(begin + 2, i).toLowerCase();
    while (i < source.length && isSpace(source[i])) i += 1;
    if (source[i] !== '>') fail(`Unclosed end tag at byte offset ${at(begin)}`);
    const top = open.pop()!;
    if (endTag !== '' && endTag !== top.tag) {
      fail(`Unmatched end tag at byte offset ${at(begin)}, expected "</${top.tag}>", found "</${endTag}>"`);
    }
    const entity = close(top, text, entities.at(-1));
    if (entity) entities.push(entity);
  }
  if (open.length > 0) fail(`Can't find end tag corresponding to start tag "${open.at(-1)!.tag}"`);
  if (loneSurrogate) {
    fail('Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units');
  }
  // Only a pre keeps a language; a lone `<code class="language-x">` is plain code.
  const finished = entities.map((e) => (e.type === 'code' ? { type: e.type, offset: e.offset, length: e.length } : e));
  finished.sort((a, b) => a.offset - b.offset || b.length - a.length || (PRIORITY[a.type] ?? 50) - (PRIORITY[b.type] ?? 50));
  return { text, entities: finished as MessageEntity[] };
}

/** An entity while parsing: a `code` may still carry the language its enclosing `pre` takes over. */
interface Draft {
  type: MessageEntity['type'];
  offset: number;
  length: number;
  url?: string;
  language?: string;
  custom_emoji_id?: string;
}

/** The entity a closing tag makes, if any: an element around no text makes none; `pre` around `code class` merges. */
function close(top: Open, text: string, previous: Draft | undefined): Draft | null {
  const offset = top.offset;
  const length = text.length - offset;
  if (length <= 0) return null;
  const simple = SIMPLE[top.tag];
  if (simple) return { type: simple, offset, length };
  switch (top.tag) {
    case 'a':
      return { type: 'text_link', offset, length, url: top.argument || text.slice(offset) };
    case 'tg-emoji':
      if (!/^[1-9]\d*$/.test(top.argument)) throw badRequest("can't parse entities: Invalid custom emoji identifier specified");
      return { type: 'custom_emoji', offset, length, custom_emoji_id: top.argument };
    case 'blockquote':
      return { type: top.expandable ? 'expandable_blockquote' : 'blockquote', offset, length };
    case 'code':
      return top.argument ? { type: 'code', offset, length, language: top.argument } : { type: 'code', offset, length };
    case 'pre':
      if (previous?.type === 'code' && previous.offset === offset && previous.length === length && previous.language) {
        previous.type = 'pre';
        return null;
      }
      return { type: 'pre', offset, length };
    default:
      return null;
  }
}

/** The character an `&…` at `start` stands for and where it ends, or null when it is no entity Telegram knows. */
function decodeEntity(source: string, start: number): { code: number; end: number } | null {
  let end = start + 1;
  let code = 0;
  if (source[end] === '#') {
    end += 1;
    const hex = source[end] === 'x';
    if (hex) end += 1;
    const digits = hex ? /[0-9a-fA-F]/ : /[0-9]/;
    const from = end;
    while (end < source.length && digits.test(source[end]!)) end += 1;
    code = end > from ? Number.parseInt(source.slice(from, end), hex ? 16 : 10) : 0;
    if (code === 0 || code >= 0x10ffff || end - start >= 10) return null;
  } else {
    while (end < source.length && /[A-Za-z]/.test(source[end]!)) end += 1;
    const name = source.slice(start + 1, end);
    const known: Record<string, number> = { lt: 0x3c, gt: 0x3e, amp: 0x26, quot: 0x22 };
    if (!(name in known)) return null;
    code = known[name]!;
  }
  return { code, end: source[end] === ';' ? end + 1 : end };
}
