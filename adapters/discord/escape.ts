import { escapeMarkdown } from 'discord.js';

/**
 * Upstream text (names, red flags, reviews) reaches Discord through here. Two contexts exist:
 * places that render markdown and mentions (content, embed title/description/fields) and places
 * that show text as typed (select labels, embed author and footer, autocomplete choices), where a
 * backslash would be shown literally.
 */

// Zero-width, bidi overrides and similar: they let text pretend to be something else
// (a reversed URL, a name that looks identical to another) and carry nothing a reader needs.
const INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0]/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Inserted by us, after the input's own invisible characters are gone: it breaks a token
// without changing what a person reads.
const ZWSP = '\u200b';

/** Strips invisible and control characters; tabs become spaces, newlines stay. */
export function clean(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ').replace(CONTROL, '').replace(INVISIBLE, '');
}

/** Breaks `@everyone` and `@here` so they stay words even where allowed_mentions is not consulted. */
function breakMassMentions(text: string): string {
  return text.replace(/@(everyone|here)\b/gi, `@${ZWSP}$1`);
}

/**
 * For contexts that render markdown: every markdown construct, user/role/channel/command mentions,
 * custom emoji, timestamps and masked links become literal text.
 */
export function escapeText(text: string): string {
  let out = escapeMarkdown(clean(text), { heading: true, maskedLink: true });
  out = out
    // Lists need a space after the marker; discord.js's own list escaping would also turn
    // every "1.33%" into "1\.33%", which renders the same but reads badly in the payload.
    .replace(/^(\s*)([*-]) /gm, '$1\\$2 ')
    .replace(/^(\s*\d+)\. /gm, '$1\\. ')
    // `<@id>`, `<@!id>`, `<@&id>`, `<#id>`, `</cmd:id>`, `<:emoji:id>`, `<a:..>`, `<t:..>`, `<id:..>`.
    .replace(/<(?=[@#/:]|a:|t:|id:)/g, '\\<')
    // `[label](url)` anywhere on a line, including `[label](<url>)`; escapeMarkdown only
    // catches the whole-construct case on one regex, this catches the joint itself.
    .replace(/\]\(/g, ']\\(')
    .replace(/^(\s*)>/gm, '$1\\>')
    .replace(/^(\s*)-#/gm, '$1\\-#');
  return breakMassMentions(out);
}

/** For contexts that show text verbatim: nothing to escape, but mass mentions and invisibles go. */
export function plainText(text: string): string {
  return breakMassMentions(clean(text));
}

/** Inside a code block only a closing fence matters; backticks become a look-alike. */
export function codeText(text: string): string {
  return clean(text).replace(/`/g, 'ˋ').replace(/\n/g, ' ');
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
