import { describe, expect, it } from 'vitest';
import { renderReply } from '../../../adapters/slack/blocks.js';
import type { TableReply } from '../../../src/reply/model.js';
import { blockErrors } from '../../fakes/slack/rules.js';

/** A table reply in Slack: Slack's own table block when it fits, the monospaced text when it does not. */
const table = (rows: number, columns = 2, cell = (r: number, c: number) => `r${r}c${c}`): TableReply => ({
  kind: 'table',
  title: 'Ratings',
  columns: Array.from({ length: columns }, (_, c) => ({
    key: `k${c}`,
    label: `Col ${c}`,
    ...(c === 1 ? { align: 'right' as const } : {}),
  })),
  rows: Array.from({ length: rows }, (_, r) => Object.fromEntries(Array.from({ length: columns }, (_, c) => [`k${c}`, cell(r, c)]))),
});
const blocksOf = (r: TableReply) => renderReply(r).blocks as { type: string; rows?: { text: string }[][]; text?: { text: string } }[];

describe('Slack tables', () => {
  it('renders a table that fits as a table block, header first, numbers right-aligned', () => {
    const blocks = blocksOf(table(2, 2));
    const t = blocks.find((b) => b.type === 'table') as unknown as { rows: { type: string; text: string }[][]; column_settings: unknown[] };
    expect(t.rows).toEqual([
      [
        { type: 'raw_text', text: 'Col 0' },
        { type: 'raw_text', text: 'Col 1' },
      ],
      [
        { type: 'raw_text', text: 'r0c0' },
        { type: 'raw_text', text: 'r0c1' },
      ],
      [
        { type: 'raw_text', text: 'r1c0' },
        { type: 'raw_text', text: 'r1c1' },
      ],
    ]);
    expect(t.column_settings).toEqual([{ is_wrapped: true }, { align: 'right' }]);
    expect(blockErrors(blocks)).toEqual([]);
  });

  it('falls back to monospaced text past a limit: 100 rows with the header, 21 columns, a long cell, 10,000 characters', () => {
    expect(blocksOf(table(99)).some((b) => b.type === 'table')).toBe(true);
    for (const over of [table(100), table(2, 21), table(2, 2, () => 'x'.repeat(501)), table(40, 2, () => 'y'.repeat(200))]) {
      const blocks = blocksOf(over);
      expect(blocks.some((b) => b.type === 'table')).toBe(false);
      expect(blocks.some((b) => b.type === 'section' && (b.text?.text ?? '').startsWith('```'))).toBe(true);
      expect(blockErrors(blocks)).toEqual([]);
    }
  });

  it('shows an empty cell as a dash, since Slack refuses an empty one', () => {
    const t = blocksOf(table(1, 2, (_r, c) => (c === 0 ? '' : 'v'))).find((b) => b.type === 'table')!;
    expect(t.rows![1]!.map((c) => c.text)).toEqual(['—', 'v']);
    expect(blockErrors([{ type: 'table', rows: [[{ type: 'raw_text', text: '' }]] }])).toEqual([
      '[ERROR] must be a raw_text cell with text, or a rich_text cell [json-pointer:/blocks/0/rows/0/0]',
    ]);
    expect(
      blockErrors([
        { type: 'table', rows: [[{ type: 'raw_text', text: 'a' }]] },
        { type: 'table', rows: [[{ type: 'raw_text', text: 'b' }]] },
      ]),
    ).toEqual(['[ERROR] only one table block is allowed per message [json-pointer:/blocks]']);
  });
});
