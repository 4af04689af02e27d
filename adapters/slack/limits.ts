/**
 * Block Kit's published limits, and the adapter's own budget under them. Slack rejects a whole
 * message (`invalid_blocks`, `msg_too_long`) when one element is over, so the renderer truncates
 * visibly instead of letting a long red-flag list cost the person the entire card.
 */
export const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  contextText: 3000,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  selectOptions: 100,
  optionText: 75,
  optionValue: 150,
  placeholderText: 150,
  blockId: 255,
  /** Options one external-select lookup may answer with. */
  lookupOptions: 100,
  imageUrl: 3000,
  imageAlt: 2000,
} as const;

/**
 * Slack's `table` block (docs.slack.dev/reference/block-kit/blocks/table-block): at most 100 rows
 * (the header row among them) of at most 20 cells, `column_settings` at most 20 items, one table a
 * message. The reference states no limit for a cell's text; polbot keeps cells to what a column of a
 * table can show, and a table with a longer cell falls back to the monospaced rendering. Slack's
 * Block Kit guidance caps a table's cell text at 10,000 characters in all.
 */
export const TABLE_LIMITS = { rows: 100, columns: 20, cellText: 500, totalText: 10_000 } as const;

/**
 * Slack truncates messages past roughly 12,000 characters of visible text; the adapter stays well
 * under so a card never arrives cut off mid-section.
 */
export const MESSAGE_TEXT_BUDGET = 9_000;

/** The notification fallback (`text`) is a summary, not a copy of the blocks. */
export const FALLBACK_TEXT_MAX = 300;

const ELLIPSIS = '…';

/**
 * Shortens already-escaped mrkdwn to `max` characters. A cut never leaves half an entity
 * (`&am`) or half a surrogate pair, either of which Slack would show as garbage.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - ELLIPSIS.length));
  cut = cut.replace(/&[a-z]{0,4}$/i, '');
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}${ELLIPSIS}`;
}

export const andMore = (n: number, what = 'more'): string => `…and ${n} ${what}`;

/**
 * Joins as many lines as fit in `max` characters (after `head`), ending with "…and N more" when
 * some do not. Each line is assumed escaped already; a single overlong line is clipped.
 */
export function fitLines(head: string, lines: readonly string[], max: number, what = 'more'): string {
  let out = head;
  for (let i = 0; i < lines.length; i++) {
    const rest = lines.length - i - 1;
    const tail = rest > 0 ? `\n${andMore(rest, what)}` : '';
    const line = `${out ? '\n' : ''}${lines[i]}`;
    if (out.length + line.length + tail.length <= max) {
      out += line;
      continue;
    }
    const sep = out ? '\n' : '';
    // An overlong first item is clipped into place, so the person sees something of the list
    // rather than only a count.
    if (i === 0) {
      const room = max - out.length - sep.length - tail.length;
      if (room > 20) return `${out}${sep}${clip(lines[0]!, room)}${tail}`;
    }
    return clip(`${out}${sep}${andMore(lines.length - i, what)}`, max);
  }
  return out;
}
