import type { Column } from './model.js';

/** Widest a column gets, so a long name cannot push the numbers off a phone's screen. */
export const MAX_COLUMN_WIDTH = 32;

export interface TableLayout {
  header: string;
  /** The rule under the header, as wide as it. */
  rule: (char: string) => string;
  rows: string[];
}

/**
 * A table as lines of aligned text, laid out the same on every surface: numbers right-aligned,
 * two spaces between columns, a cell too wide cut with `…`. `text` makes a cell safe for the
 * surface (before padding, so the widths count what is shown).
 */
export function layoutTable(columns: readonly Column[], rows: readonly Record<string, string>[], text: (s: string) => string): TableLayout {
  const cells = rows.map((row) => columns.map((c) => text(row[c.key] ?? '')));
  const labels = columns.map((c) => text(c.label));
  const widths = columns.map((_, i) => Math.min(MAX_COLUMN_WIDTH, Math.max(labels[i]!.length, ...cells.map((r) => r[i]!.length))));
  const line = (values: string[]) =>
    values
      .map((v, i) => {
        const w = widths[i]!;
        // A cut never splits an emoji: half of a surrogate pair is not text.
        const t = v.length > w ? `${v.slice(0, w - 1).replace(/[\ud800-\udbff]$/, '')}…` : v;
        return columns[i]!.align === 'right' ? t.padStart(w) : t.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  return {
    header: line(labels),
    rule: (char) => widths.map((w) => char.repeat(w)).join('  '),
    rows: cells.map(line),
  };
}
