/**
 * Upstream text (names, red flags, reviews) reaches Discord through here. Two contexts exist:
 * places that render markdown and mentions (content, embed title/description/fields) and places
 * that show text as typed (select labels, embed author and footer, autocomplete choices), where a
 * backslash would be shown literally.
 */

// Zero-width, bidi overrides and similar: they let text pretend to be something else
// (a reversed URL, a name that looks identical to another) and carry nothing a reader needs.
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is meant alone; combining marks among them are what is stripped.
const INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0]/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// Half of a surrogate pair is not text: JSON carries it only as an escape that strict decoders
// refuse, and clients draw it as garbage.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// Inserted by us, after the input's own invisible characters are gone: it breaks a token
// without changing what a person reads.
const ZWSP = '\u200b';

/** Strips invisible and control characters; tabs become spaces, newlines stay. */
export function clean(text: string): string {
  // Invisibles before lone surrogates: taking one out from between two halves makes a whole character again.
  return text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ').replace(CONTROL, '').replace(INVISIBLE, '').replace(LONE_SURROGATE, '');
}

/**
 * Breaks `@everyone` and `@here` so they stay words even where allowed_mentions is not consulted.
 * Discord finds them inside longer words too (`@everyonewin` still pings), so no word boundary.
 */
function breakMassMentions(text: string): string {
  return text.replace(/@(everyone|here)/gi, `@${ZWSP}$1`);
}

/**
 * Inline markup: backslashes, backticks, `*`, `_`, `~~` and `||`. Inside a bare URL `*` and `_`
 * belong to the address (Discord does not format there, and a backslash would change the link).
 * One linear pass: discord.js's escapeMarkdown looks behind every position for a URL or an emoji,
 * which takes a minute on 100 KB without spaces, and skips `_` anywhere after a `<:` on the line.
 */
const INLINE = /(https?:\/\/\S+)|[\\`*_]|~~|\|\|/g;
const INLINE_IN_URL = /[\\`]|~~|\|\|/g;
const backslashEach = (markup: string): string => markup.replace(/[\s\S]/g, '\\$&');

function escapeInline(text: string): string {
  return text.replace(INLINE, (match, url: string | undefined) => (url ? url.replace(INLINE_IN_URL, backslashEach) : backslashEach(match)));
}

/**
 * Longer than any Discord text field (a description holds 4096), so what is cut here is never
 * shown, and the caller's clip still marks the cut. Escaping 100 KB would only cost time.
 */
const MAX_ESCAPED_INPUT = 8192;

/**
 * For contexts that render markdown: every markdown construct, user/role/channel/command mentions,
 * custom emoji, timestamps and masked links become literal text.
 */
export function escapeText(text: string): string {
  const cleaned = clean(text);
  // Cut after cleaning: thousands of invisible characters must not hide that the text went on.
  const head = cleaned.length > MAX_ESCAPED_INPUT ? cleaned.slice(0, MAX_ESCAPED_INPUT) : cleaned;
  // Line starts allow only spaces before a marker, never a newline: `\s*` would rescan every
  // following blank line from each line start, quadratic on a long run of newlines.
  const out = escapeInline(head)
    .replace(/^([^\S\n]*)(#{1,3} )/gm, '$1\\$2')
    // Lists need a space after the marker; escaping every "1." would also turn every "1.33%"
    // into "1\.33%", which renders the same but reads badly in the payload.
    .replace(/^([^\S\n]*)([*-]) /gm, '$1\\$2 ')
    .replace(/^([^\S\n]*\d+)\. /gm, '$1\\. ')
    // `<@id>`, `<@!id>`, `<@&id>`, `<#id>`, `</cmd:id>`, `<:emoji:id>`, `<a:..>`, `<t:..>`, `<id:..>`.
    .replace(/<(?=[@#/:]|a:|t:|id:)/g, '\\<')
    // `[label](url)` anywhere on a line, including `[label](<url>)`: breaking the joint is enough.
    .replace(/\]\(/g, ']\\(')
    .replace(/^([^\S\n]*)>/gm, '$1\\>')
    .replace(/^([^\S\n]*)-#/gm, '$1\\-#');
  return breakMassMentions(out);
}

/** For contexts that show text verbatim: nothing to escape, but mass mentions and invisibles go. */
export function plainText(text: string): string {
  return breakMassMentions(clean(text));
}

/**
 * Inside a code block only a closing fence matters; backticks become a look-alike. Mass mentions
 * are broken there too, so nothing depends on how a client treats mentions inside code.
 */
export function codeText(text: string): string {
  return breakMassMentions(clean(text).replace(/`/g, 'ˋ').replace(/\n/g, ' '));
}

/**
 * Cuts to `max` characters with a visible ellipsis. Cutting never leaves a dangling backslash,
 * which would escape the ellipsis's neighbour and change what follows.
 */
export function clip(text: string, max: number, marker = '…'): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - marker.length));
  // An odd run of trailing backslashes is an escape cut in half; a high surrogate is half a character.
  const trailing = /\\+$/.exec(cut)?.[0].length ?? 0;
  if (trailing % 2 === 1) cut = cut.slice(0, -1);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}${marker}`;
}
