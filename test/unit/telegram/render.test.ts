import { describe, expect, it } from 'vitest';
import { escapeHtml, LIMITS, packLines, plain, visibleLength } from '../../../adapters/telegram/html.js';
import { captionFits, renderReply } from '../../../adapters/telegram/render.js';
import { decodeData } from '../../../adapters/telegram/buttons.js';
import { parseAddress, parseRef, refOf } from '../../../adapters/telegram/send.js';
import type { CardReply, TableReply } from '../../../src/reply/model.js';
import { parseHtml } from '../../fakes/telegram/html.js';

/**
 * The Telegram renderer on its own: what fits a caption, what a message holds, how a long table is
 * paged, and what a button carries. Lengths are checked with the Bot API's own parsing (the fake's).
 */

const footer = { asOf: Date.UTC(2026, 10, 27, 3, 0), sources: ['rest' as const], simulated: true };

function card(over: Partial<CardReply> = {}): CardReply {
  return {
    kind: 'card',
    entity: { kind: 'exchange', slug: 'kraken', name: 'Kraken' },
    title: 'Kraken',
    subtitle: 'Exchange',
    headline: { label: 'Probability of Loss', value: '1.33%', rating: 'A', direction: 'lower is safer' },
    sections: [{ title: 'Category quality scores', direction: 'higher is better', fields: [{ label: 'Security', value: '74.3' }] }],
    image: { kind: 'png', png: Buffer.from('png'), width: 800, height: 400, filename: 'kraken.png', alt: 'PoL of Kraken' },
    footer,
    actions: [{ label: 'Why?', run: { command: 'why', text: 'why exchange:kraken' } }],
    ...over,
  };
}

function table(rows: number): TableReply {
  return {
    kind: 'table',
    title: 'Ratings',
    columns: [
      { key: 'n', label: '#', align: 'right' },
      { key: 'name', label: 'Name' },
      { key: 'pol', label: 'PoL', align: 'right' },
    ],
    rows: Array.from({ length: rows }, (_, i) => ({ n: String(i + 1), name: `Project number ${i + 1} & co`, pol: `${i}.00%` })),
    footer,
  };
}

const visible = (html: string) => parseHtml(html).text;

describe('a card', () => {
  it('rides on its chart as the caption when it fits, with both directions, the source and the simulated mark', () => {
    const m = renderReply(card());
    expect(captionFits(m)).toBe(true);
    const text = visible(m.texts[0]!);
    expect(text).toContain('Probability of Loss: 1.33%  🟢 A  (lower is safer)');
    expect(text).toContain('Category quality scores (higher is better)');
    expect(text).toContain('as of 2026-11-27 03:00 UTC · source REST · SIMULATED DATA');
    expect(m.keyboard).toEqual([[{ label: 'Why?', run: 'why exchange:kraken' }]]);
  });

  it('goes after its chart as text when it is longer than a caption, each message within 4,096', () => {
    const long = card({ sections: [{ title: 'Red flags', items: Array.from({ length: 120 }, (_, i) => `Flag ${i}: ${'x'.repeat(60)}`) }] });
    const m = renderReply(long);
    expect(captionFits(m)).toBe(false);
    expect(m.texts.length).toBeGreaterThan(1);
    for (const t of m.texts) expect(visible(t).length).toBeLessThanOrEqual(LIMITS.text);
    expect(m.texts.map(visible).join('\n')).toContain('Flag 119:');
  });
});

describe('a table', () => {
  it('is one monospaced block when it fits', () => {
    const m = renderReply(table(10), { source: 'ratings projects' });
    expect(m.texts).toHaveLength(1);
    expect(parseHtml(m.texts[0]!).entities.some((e) => e.type === 'pre')).toBe(true);
    expect(visible(m.texts[0]!)).toContain('Project number 10 & co');
    expect(m.keyboard).toEqual([]);
  });

  it('is paged with buttons that run its command again for the next page, each page within 4,096', () => {
    const first = renderReply(table(400), { source: 'ratings projects' });
    const text = visible(first.texts[0]!);
    expect(text.length).toBeLessThanOrEqual(LIMITS.text);
    const pages = Number(/page 1 of (\d+) \(400 rows\)/.exec(text)?.[1]);
    expect(pages).toBeGreaterThan(1);
    expect(first.keyboard[0]).toEqual([{ label: 'Next ▶', run: 'ratings projects', replace: true, page: 2 }]);

    const shown: string[] = [];
    for (let page = 1; page <= pages; page++) {
      const m = renderReply(table(400), { source: 'ratings projects', page });
      const t = visible(m.texts[0]!);
      expect(t.length).toBeLessThanOrEqual(LIMITS.text);
      shown.push(...[...t.matchAll(/Project number (\d+) /g)].map((x) => x[1]!));
      const labels = m.keyboard[0]!.map((b) => b.label);
      expect(labels).toEqual([...(page > 1 ? ['◀ Previous'] : []), ...(page < pages ? ['Next ▶'] : [])]);
    }
    // Every row once, in order, over the pages.
    expect(shown).toEqual(Array.from({ length: 400 }, (_, i) => String(i + 1)));
  });

  it('says how many rows it shows when nothing can page it (a digest posted unasked)', () => {
    const m = renderReply(table(400));
    expect(visible(m.texts[0]!)).toMatch(/the first \d+ of 400 rows/);
    expect(m.keyboard).toEqual([]);
  });
});

describe('text for HTML parse mode', () => {
  it('escapes what HTML would read and neutralises an @mention', () => {
    expect(escapeHtml('<b>Kraken</b> & @support_team')).toBe('&lt;b&gt;Kraken&lt;/b&gt; &amp; @\u200bsupport_team');
    expect(plain('a\u202eb\n\tc\u0000d', 40)).toBe('ab cd');
  });

  it('packs lines into messages without splitting one, and cuts a line too long as plain text', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `<b>line ${i}</b> ${'y'.repeat(40)}`);
    const parts = packLines(lines, LIMITS.text);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(visibleLength(p)).toBeLessThanOrEqual(LIMITS.text);
    expect(parts.join('\n')).toBe(lines.join('\n'));
    const [cut] = packLines([`<i>${'z'.repeat(5000)}</i>`], LIMITS.text);
    expect(visible(cut!).length).toBe(LIMITS.text);
    expect(visible(cut!).endsWith('…')).toBe(true);
  });
});

describe('what a button carries', () => {
  it('reads the mode, page and command or key back', () => {
    expect(decodeData('c=why exchange:kraken')).toEqual({ replace: false, command: 'why exchange:kraken' });
    expect(decodeData('e3=ratings projects')).toEqual({ replace: true, page: 3, command: 'ratings projects' });
    expect(decodeData('c#Ab12_-')).toEqual({ replace: false, key: 'Ab12_-' });
    expect(decodeData('x=anything')).toBeUndefined();
    expect(decodeData('c=')).toBeUndefined();
  });

  it('writes a chat, a forum topic and a message reference so they read back the same', () => {
    expect(parseAddress('-1001234567890/17')).toEqual({ chatId: -1001234567890, threadId: 17 });
    expect(parseAddress('42')).toEqual({ chatId: 42 });
    expect(parseAddress('C123')).toBeUndefined();
    for (const sent of [
      { photo: 12, captioned: true, texts: [] },
      { photo: 12, captioned: false, texts: [13, 14] },
      { captioned: false, texts: [15] },
    ]) {
      expect(parseRef(refOf(sent))).toEqual(sent);
    }
    expect(parseRef('1700000000.123')).toBeUndefined();
  });
});
