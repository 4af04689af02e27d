import { describe, expect, it } from 'vitest';
import { renderReply } from '../../../adapters/console/render.js';
import { sparkline } from '../../../src/reply/sparkline.js';
import type { CardReply, ChoiceReply, ErrorReply, TableReply, TextReply } from '../../../src/reply/model.js';
import { action } from '../../helpers/actions.js';

const footer = { asOf: Date.UTC(2026, 10, 22, 9, 30), sources: ['rest' as const], simulated: true };

const card: CardReply = {
  kind: 'card',
  entity: { kind: 'exchange', slug: 'kraken', name: 'Kraken' },
  title: 'Kraken',
  subtitle: 'Exchange',
  headline: {
    label: 'Probability of Loss',
    value: '1.33%',
    rating: 'A',
    direction: 'lower is safer',
    change: { text: '+0.04 pp over 30 days (worse)', trend: 'worse' },
  },
  sections: [
    {
      title: 'Category quality scores',
      direction: 'higher is better',
      fields: [{ label: 'Security', value: '91.2', detail: 'AAA · high confidence' }],
    },
    { title: 'Red flags', items: [], empty: 'none identified' },
  ],
  image: { kind: 'png', png: Buffer.from([1]), width: 800, height: 400, filename: 'kraken.png', alt: 'chart' },
  series: { label: 'PoL, 90 days', values: [0.01, 0.02, 0.015, 0.03], direction: 'lower is safer' },
  footer: { ...footer, stale: { ageMs: 12 * 60_000 } },
  actions: [action({ label: 'PoL, 1 year', command: 'chart exchange:kraken 365d pol' })],
};

describe('console rendering', () => {
  it('renders a card with directions, sparkline, chart path and footer markers', () => {
    const out = renderReply(card, { color: false, imagePath: '/tmp/kraken.png' });
    expect(out).toContain('Kraken  Exchange');
    expect(out).toContain('Probability of Loss: 1.33%  A  (lower is safer)');
    expect(out).toContain('+0.04 pp over 30 days (worse)');
    expect(out).toContain('Category quality scores (higher is better)');
    expect(out).toMatch(/Security\s+91\.2\s+AAA · high confidence/);
    expect(out).toContain('none identified');
    expect(out).toMatch(/PoL, 90 days\s+[▁▂▃▄▅▆▇█]{4}/);
    expect(out).toContain('chart: /tmp/kraken.png');
    expect(out).toContain('as of 2026-11-22 09:30 UTC');
    expect(out).toContain('source REST');
    expect(out).toContain('stale (12 min old)');
    expect(out).toContain('SIMULATED DATA');
    expect(out).toContain('/pol chart exchange:kraken 365d pol');
    expect(out).not.toContain('\u001b[');
  });

  it('uses colour only when asked (TTY)', () => {
    expect(renderReply(card, { color: true })).toContain('\u001b[1m');
  });

  it('numbers the options of a choice', () => {
    const choice: ChoiceReply = {
      kind: 'choice',
      reason: 'ambiguous',
      query: 'shiba',
      prompt: '“shiba” matches more than one project or exchange. Which one do you mean?',
      options: [
        action({ label: 'Shiba Inu', description: 'Shiba Inu (SHIB) · project', command: 'project:shiba-inu' }),
        action({ label: 'ShibaSwap', description: 'ShibaSwap (BONE) · project', command: 'project:shibaswap' }),
        action({ label: 'Shiba', description: 'a meme coin', command: 'project:shiba' }),
      ],
    };
    const out = renderReply(choice, { color: false });
    // A description that starts with the label stands for both; another one follows the label.
    expect(out).toContain('  1. Shiba Inu (SHIB) · project\n');
    expect(out).toContain('  2. ShibaSwap (BONE) · project\n');
    expect(out).toContain('  3. Shiba  a meme coin\n');
    expect(out).toContain('Answer with a number');
  });

  it('aligns tables and renders text and errors', () => {
    const table: TableReply = {
      kind: 'table',
      title: 'Top 2 exchanges',
      columns: [
        { key: 'rank', label: '#', align: 'right' },
        { key: 'name', label: 'Name' },
        { key: 'pol', label: 'PoL', align: 'right' },
      ],
      rows: [
        { rank: '1', name: 'Coinbase', pol: '0.093%' },
        { rank: '10', name: 'Gemini', pol: '0.28%' },
      ],
      footer,
    };
    const lines = renderReply(table, { color: false }).split('\n');
    expect(lines[1]).toBe(' #  Name         PoL');
    expect(lines[2]).toBe(' 1  Coinbase  0.093%');
    expect(lines[3]).toBe('10  Gemini     0.28%');
    // Pages and export are spelled out; a row's card is its name typed, so rows add nothing.
    const paged = renderReply(
      {
        ...table,
        actions: [action({ label: 'Next', command: 'browse exchanges page 2' }), action({ label: 'Gemini', command: 'exchange:gemini' })],
      },
      { color: false },
    );
    expect(paged).toContain('more: /pol browse exchanges page 2\n');
    expect(paged).not.toContain('/pol exchange:gemini');
    const text: TextReply = {
      kind: 'text',
      title: 'Index',
      sections: [{ title: 'Average PoL', direction: 'lower is safer', fields: [{ label: 'Projects', value: '9.1%' }] }],
    };
    expect(renderReply(text, { color: false })).toContain('Average PoL (lower is safer)');
    const error: ErrorReply = { kind: 'error', message: 'Nope.', hint: 'Usage: /pol chart <name>' };
    expect(renderReply(error, { color: false })).toBe('Nope.\nUsage: /pol chart <name>');
  });

  it('never lets upstream text drive the terminal', () => {
    const hostile: TextReply = { kind: 'text', title: 'Evil\u001b[2J\u001b]0;pwned\u0007 name\u202E', text: 'ok' };
    const out = renderReply(hostile, { color: false });
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
    expect(out).not.toContain('\u202E');
  });

  it('draws sparklines from series, bucketing long ones', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([5, 5, 5])).toBe('▄▄▄');
    expect(
      sparkline(
        Array.from({ length: 365 }, (_, i) => i),
        40,
      ).length,
    ).toBeLessThanOrEqual(40);
    expect(sparkline([])).toBe('');
  });
});
