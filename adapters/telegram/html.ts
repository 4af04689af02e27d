/**
 * Telegram's HTML parse mode, as the Bot API takes it: `&`, `<` and `>` escaped in text, a closed
 * set of tags, and limits counted on the text a person sees (tags and entities do not count).
 */

export const LIMITS = {
  /** A message's text after entity parsing. */
  text: 4096,
  /** A photo's caption after entity parsing. */
  caption: 1024,
  /** Bytes of a button's callback_data. */
  callbackData: 64,
  /** What a callback query's answer may show. */
  callbackText: 200,
  /** Buttons a keyboard holds in all (Telegram's documented limit is 100). */
  buttons: 100,
  buttonsPerRow: 8,
  /** Longer labels are cut on phones anyway; this keeps a row readable. */
  buttonLabel: 40,
  /** Results an inline query may answer with. */
  inlineResults: 50,
  /** An inline result's title and description, kept short as clients show them on one line. */
  inlineTitle: 100,
} as const;

/**
 * Upstream text made safe for HTML parse mode. Control characters (which Telegram refuses or
 * shows as boxes) become a visible mark; bidirectional overrides, which could make a name read
 * as another, are dropped.
 */
export function escapeHtml(text: string): string {
  return (
    neutral(text)
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
      // A run of blank lines from upstream would push everything after it off the screen.
      .replace(/\n[^\S\n]*(\n[^\S\n]*)+\n/g, '\n\n')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
  );
}

/** Characters that hide or reorder text, and halves of surrogate pairs (not text at all). */
const HIDDEN = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Upstream text with nothing hidden in it, and an `@name` that cannot notify anyone: Telegram
 * turns one into a mention of whoever has that username. A zero-width space after the `@` keeps
 * the word as it reads.
 */
function neutral(text: string): string {
  return text
    .replace(HIDDEN, '')
    .replace(LONE_SURROGATE, '�')
    .replace(/@(?=[A-Za-z0-9_])/g, '@\u200b');
}

/** Text as plain words, for places that take no markup (a button, an inline result's title). */
export function plain(text: string, max: number): string {
  return clip(plainText(text), max);
}

/** Upstream text on one line, neutralised, not escaped: a table cell before it is padded, a button's label. */
export function plainText(text: string): string {
  return neutral(text)
    .replace(/[\t\n\r\u2028\u2029]/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cuts plain text to `max` characters with a visible mark, never inside a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1)).replace(/[\ud800-\udbff]$/, '')}…`;
}

const ENTITY = /&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);/g;

/** How long HTML is once Telegram has parsed it: its text without tags, each entity one character, in UTF-16 units. */
export function visibleLength(html: string): number {
  return html.replace(/<[^>]*>/g, '').replace(ENTITY, '_').length;
}

/**
 * Lines of HTML cut to `max` visible characters. Each line is whole HTML, so a cut falls between
 * lines; the line that does not fit is kept as far as it goes as plain text (which cannot break a
 * tag), ending in `…`.
 */
export function fitLines(lines: readonly string[], max: number): string {
  const out: string[] = [];
  let used = 0;
  for (const line of lines) {
    const gap = out.length ? 1 : 0;
    const size = visibleLength(line) + gap;
    if (used + size <= max) {
      out.push(line);
      used += size;
      continue;
    }
    const room = max - used - gap;
    if (room >= 2) out.push(escapeHtml(clip(stripTags(line), room)));
    break;
  }
  return out.join('\n');
}

/** The words of HTML this adapter wrote, with its tags removed and its entities read back. */
export function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** Lines packed into messages of at most `max` visible characters each, in order, never splitting a line. */
export function packLines(lines: readonly string[], max: number): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const raw of lines) {
    const line = visibleLength(raw) > max ? escapeHtml(clip(stripTags(raw), max)) : raw;
    const size = visibleLength(line) + (current.length ? 1 : 0);
    if (current.length && used + size > max) {
      parts.push(current.join('\n'));
      current = [];
      used = 0;
    }
    current.push(line);
    used += visibleLength(line) + (current.length > 1 ? 1 : 0);
  }
  if (current.length) parts.push(current.join('\n'));
  // Telegram refuses an empty text: a part with nothing to see is left out, and a message always says something.
  const seen = parts.filter((p) => stripTags(p).trim() !== '');
  return seen.length ? seen : ['—'];
}
