/**
 * Upstream text (names, red flags, reviews) and whatever a person typed reach Slack only through
 * these functions. Slack parses `<...>` in mrkdwn as mentions, channel broadcasts and links, so a
 * red flag reading `<!channel>` would page a whole channel if it went out verbatim.
 */

/**
 * Characters that change how text is shown rather than what it says: C0/C1 controls (newline and
 * tab aside), zero-width characters, bidirectional overrides, isolates and marks (which can make
 * "evil.com/moc.knab" read as something else), the byte-order mark, and the fillers that draw as
 * blank space (combining grapheme joiner U+034F, Hangul fillers U+115F, U+1160, U+3164, U+FFA0,
 * Khmer and Mongolian marks), which can hide a word or pad a name to look like another.
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is meant alone; combining marks among them are what is stripped.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0]/g;

/**
 * Half of a surrogate pair, from upstream or from a cut in the middle of an emoji. It is not text:
 * JSON carries it only as an escape that strict decoders refuse, and clients draw it as garbage.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Plain `@channel` is not a broadcast when posted through the API without `link_names`, but a
 * client or a later edit may still link it. A zero-width space after the `@` keeps it inert
 * while it reads the same.
 */
const BROADCAST_WORDS = /@(channel|here|everyone)\b/gi;
const ZWSP = '\u200b';

export function stripInvisible(text: string): string {
  // Invisibles first: taking one out from between two halves makes a whole character again.
  return text.replace(INVISIBLE, '').replace(LONE_SURROGATE, '');
}

function neutraliseBroadcasts(text: string): string {
  return text.replace(BROADCAST_WORDS, (_m, word: string) => `@${ZWSP}${word}`);
}

/**
 * For any mrkdwn text object: Slack's three control characters become entities, as it documents.
 * mrkdwn has no escape for backticks, and a fence in one red flag would turn the rest of the
 * section into a code block, so they are swapped for a look-alike.
 */
export function mrkdwn(text: string): string {
  const escaped = stripInvisible(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/`/g, '\u02cb');
  return neutraliseBroadcasts(escaped);
}

/**
 * For plain_text objects (headers, button labels). Slack shows them verbatim, so entities would
 * appear literally; angle brackets are swapped for look-alikes instead, so nothing that looks like
 * `<!channel>` leaves the adapter whatever a client does with plain text.
 */
export function plain(text: string): string {
  return neutraliseBroadcasts(stripInvisible(text).replace(/</g, '\u2039').replace(/>/g, '\u203a'));
}

/**
 * Text inside a ``` code block: mrkdwn escaping applies there too (Slack parses entities inside
 * code blocks), and its backtick swap keeps upstream text from closing the block early.
 */
export function code(text: string): string {
  return mrkdwn(text);
}

/** Flattens whitespace for one-line contexts (labels, headers, button text). */
export function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
