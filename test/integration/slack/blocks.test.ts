import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReply } from '../../../adapters/slack/blocks.js';
import type { Core } from '../../../commands/core/core.js';
import type { SourceName } from '../../../src/api/domain.js';
import type {
  Action,
  CardReply,
  ChoiceReply,
  Column,
  Field,
  Footer,
  Reply,
  Section,
  TableReply,
  TextReply,
} from '../../../src/reply/model.js';
import { demoCore } from '../../helpers/core.js';
import { messageTexts, validateMessage } from '../../helpers/slack/block-kit-limits.js';
import { action as toAction } from '../../helpers/actions.js';

const footer: Footer = { asOf: Date.UTC(2026, 10, 22, 9, 30), sources: ['rest'], simulated: true };
/** "Well under" Slack's ~12k: the budget the tests hold every message to. */
const STRICT = { maxVisibleText: 10_000 };

const card = (over: Partial<CardReply> = {}): CardReply => ({
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
  footer,
  actions: [toAction({ label: 'PoL, 1 year', command: 'chart exchange:kraken 365d pol' })],
  ...over,
});

const blocksOf = (reply: Reply) => renderReply(reply).blocks as unknown as Record<string, any>[];

describe('card', () => {
  it('reads as a card: header, PoL with rating and direction, scores with their direction, flags, footer', () => {
    const out = renderReply(card({ footer: { ...footer, stale: { ageMs: 12 * 60_000 }, notes: ['2 slots skipped while offline'] } }));
    const [header, subtitle, headline, divider, scores, flags, actions, foot] = out.blocks as any[];

    expect(header).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Kraken', emoji: true } });
    expect(subtitle.elements[0].text).toBe('Exchange');
    expect(headline.text.text).toBe(
      '*Probability of Loss:*  *1.33%*   :large_green_circle: *A*   _(lower is safer)_\n+0.04 pp over 30 days (worse)',
    );
    expect(divider.type).toBe('divider');
    expect(scores.text.text).toBe('*Category quality scores*  _(higher is better)_');
    expect(scores.fields).toEqual([{ type: 'mrkdwn', text: '*Security*\n91.2  _AAA · high confidence_' }]);
    expect(flags.text.text).toBe('*Red flags*\n_none identified_');
    expect(actions.elements[0]).toMatchObject({
      action_id: 'pol_action_0',
      value: 'chart exchange:kraken 365d pol',
      text: { text: 'PoL, 1 year' },
    });
    expect(foot.elements.map((e: { text: string }) => e.text)).toEqual([
      'as of 2026-11-22 09:30 UTC · source REST · :warning: stale (12 min old) · :test_tube: *SIMULATED DATA*',
      '2 slots skipped while offline',
    ]);
    expect(out.text).toBe('Kraken: Probability of Loss 1.33%, rated A (lower is safer) · SIMULATED DATA');
    expect(validateMessage(out, { ...STRICT, requireFallbackText: true })).toEqual([]);
  });

  it('badges ratings by grade and leaves unknown ones unbadged', () => {
    const text = (rating: string) => blocksOf(card({ headline: { ...card().headline, rating } }))[2]!.text.text as string;
    expect(text('AAA')).toContain(':large_green_circle: *AAA*');
    expect(text('BB')).toContain(':large_yellow_circle: *BB*');
    expect(text('CCC')).toContain(':red_circle: *CCC*');
    expect(text('NR')).toContain('   *NR*');
  });

  it('shows a hosted chart as an image block and leaves PNG charts to the upload', () => {
    const hosted = blocksOf(
      card({ image: { kind: 'url', url: 'https://quickchart.io/chart/render/abc', width: 800, height: 400, alt: 'PoL of Kraken' } }),
    );
    expect(hosted.find((b) => b.type === 'image')).toEqual({
      type: 'image',
      image_url: 'https://quickchart.io/chart/render/abc',
      alt_text: 'PoL of Kraken',
    });
    const png = blocksOf(card({ image: { kind: 'png', png: Buffer.from([1]), width: 800, height: 400, filename: 'k.png', alt: 'PoL' } }));
    expect(png.some((b) => b.type === 'image')).toBe(false);
    const sneaky = blocksOf(card({ image: { kind: 'url', url: 'javascript:alert(1)', width: 1, height: 1, alt: 'x' } }));
    expect(sneaky.some((b) => b.type === 'image')).toBe(false);
  });
});

describe('limits', () => {
  const long = (n: number, c = 'x') => c.repeat(n);

  it('truncates a huge card visibly and stays within every Block Kit limit', () => {
    const flags: Section = {
      title: 'Red flags',
      items: Array.from({ length: 400 }, (_, i) => `Flag ${i}: ${long(300)}`),
      empty: 'none identified',
    };
    const fields: Section = {
      title: 'Signals',
      fields: Array.from({ length: 45 }, (_, i): Field => ({ label: `Signal ${i} ${long(200)}`, value: long(2500), detail: long(300) })),
    };
    const many: Section[] = Array.from({ length: 80 }, (_, i) => ({ title: `Section ${i}`, items: [`item ${i}`] }));
    const reply = card({
      title: long(400, 'T'),
      subtitle: long(5000),
      headline: {
        label: long(500),
        value: long(500),
        rating: 'A',
        direction: 'lower is safer',
        change: { text: long(4000), trend: 'worse' },
      },
      sections: [flags, fields, ...many],
      actions: Array.from(
        { length: 40 },
        (_, i): Action => toAction({ label: `Action ${i} ${long(200)}`, command: `chart project:p${i} 365d pol` }),
      ),
      footer: { ...footer, notes: Array.from({ length: 30 }, () => long(4000)) },
    });

    const out = renderReply(reply);
    expect(validateMessage(out, { ...STRICT, requireFallbackText: true })).toEqual([]);
    const text = JSON.stringify(out);
    expect(text).toMatch(/…and \d+ more/);
    expect(text).toMatch(/…and \d+ more not shown here/);
    expect(out.blocks[0]).toMatchObject({ type: 'header' });
    const foot = out.blocks.at(-1) as { type: string; elements: { text: string }[] };
    expect(foot.type).toBe('context');
    expect(foot.elements[0]?.text).toContain('SIMULATED DATA');
    expect(foot.elements.at(-1)?.text).toBe('…and 26 more notes');
    expect(out.text.length).toBeLessThanOrEqual(300);
  });

  it('counts the red flags it could not show', () => {
    const items = Array.from({ length: 60 }, (_, i) => `Investor: flag number ${i} ${'z'.repeat(80)}`);
    const block = blocksOf(card({ sections: [{ title: 'Red flags', items, empty: 'none identified' }] })).find((b) =>
      b.text?.text?.startsWith('*Red flags*'),
    )!;
    const shown = (block.text.text.match(/^• /gm) ?? []).length;
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(60);
    expect(block.text.text).toMatch(new RegExp(`…and ${60 - shown} more$`));
  });

  it('never cuts a command to fit a button: an oversized one is left out', () => {
    const out = blocksOf(
      card({
        actions: [
          toAction({ label: 'Huge', command: `compare ${'a, '.repeat(1_000)}` }),
          toAction({ label: 'Fine', command: 'flags project:pepe' }),
        ],
      }),
    );
    const values = out.filter((b) => b.type === 'actions').flatMap((b) => b.elements.map((e: { value: string }) => e.value));
    expect(values).toEqual(['flags project:pepe']);
  });

  it('fits a long table in one code block with a row count of what is left out', () => {
    const table: TableReply = {
      kind: 'table',
      title: 'Search results',
      note: 'PoL: lower is safer.',
      columns: [
        { key: 'name', label: 'Name' },
        { key: 'pol', label: 'PoL', align: 'right' },
      ],
      rows: Array.from({ length: 500 }, (_, i) => ({ name: `Entity ${i} & <co>`, pol: `${i}.00%` })),
      footer,
      actions: Array.from({ length: 30 }, (_, i) => toAction({ label: `Entity ${i}`, command: `project:e${i}` })),
    };
    const out = renderReply(table);
    expect(validateMessage(out, STRICT)).toEqual([]);
    const code = (out.blocks as any[]).find((b) => b.text?.text?.startsWith('```')).text.text as string;
    expect(code).toMatch(/```\n…and \d+ more rows$/);
    expect(code).toContain('Entity 0 &amp; &lt;co&gt;');
    expect(code).not.toContain('<co>');
    // Padding is done on the raw text, so the escaped rows still line up once Slack decodes them.
    const rows = code
      .split('\n')
      .slice(1, 5)
      .map((l) => l.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
    expect(new Set(rows.slice(2).map((r) => r.length)).size).toBe(1);
    expect(JSON.stringify(out)).toContain('…and 5 more');
  });

  it('lays out help (13 commands) over two field sections', () => {
    const help: TextReply = {
      kind: 'text',
      title: 'polbot',
      text: 'PoL: lower is safer.',
      sections: [
        {
          title: 'Commands',
          fields: Array.from({ length: 13 }, (_, i) => ({
            label: `/pol cmd${i} <name>`,
            value: 'does a thing',
            detail: `e.g. /pol cmd${i} x`,
          })),
        },
      ],
    };
    const sections = blocksOf(help).filter((b) => b.fields);
    expect(sections.map((b) => b.fields.length)).toEqual([10, 3]);
    expect(sections[0]!.fields[0].text).toBe('*/pol cmd0 &lt;name&gt;*\ndoes a thing  _e.g. /pol cmd0 x_');
  });
});

describe('choices and errors', () => {
  const choice: ChoiceReply = {
    kind: 'choice',
    reason: 'ambiguous',
    query: 'dydx',
    prompt: '“dydx” matches more than one project or exchange. Which one do you mean?',
    options: [
      toAction({ label: 'dYdX', description: 'dYdX · exchange', command: 'exchange:dydx' }),
      toAction({ label: 'dYdX', description: 'dYdX (DYDX) · project', command: 'project:dydx' }),
    ],
    note: 'Pick one to see its card.',
  };

  it('offers one button per candidate, each with a unique action id and the command as its value', () => {
    const out = renderReply(choice);
    expect(validateMessage(out)).toEqual([]);
    const options = (out.blocks as any[]).filter((b) => b.accessory);
    expect(options.map((b) => [b.text.text, b.accessory.action_id, b.accessory.value])).toEqual([
      ['*dYdX*\ndYdX · exchange', 'pol_choice_0', 'exchange:dydx'],
      ['*dYdX*\ndYdX (DYDX) · project', 'pol_choice_1', 'project:dydx'],
    ]);
    expect(JSON.stringify(out)).toContain('Pick one to see its card.');
  });

  it('caps a long candidate list with a count', () => {
    const many = { ...choice, options: Array.from({ length: 60 }, (_, i) => toAction({ label: `C${i}`, command: `project:c${i}` })) };
    const out = renderReply(many);
    expect(validateMessage(out, STRICT)).toEqual([]);
    expect(JSON.stringify(out)).toContain('…and 40 more: try a more specific name');
  });

  it('renders errors as one short warning section', () => {
    const out = renderReply({ kind: 'error', message: 'The risk-data service did not answer in time.', hint: 'Try again in a minute.' });
    expect(out.blocks).toEqual([
      {
        type: 'section',
        text: { type: 'mrkdwn', text: ':warning: The risk-data service did not answer in time.\nTry again in a minute.' },
      },
    ]);
  });
});

describe('every reply the core gives', () => {
  let core: Core;
  beforeAll(async () => {
    core = await demoCore({ RATE_LIMIT_PER_USER: '0' });
  });
  afterAll(async () => {
    await core.close();
  });

  it('passes the limits validator for each command', async () => {
    const commands = [
      'binance',
      'pepe',
      'bitcoin',
      'shiba',
      'dydx',
      'etherium',
      'qqqzzzxxx',
      'flags pepe',
      'flags monero',
      'chart bitcoin 365d',
      'chart lido 365d categories',
      'chart kraken 30d categories',
      'chart gemini 30d reserves',
      'compare binance, kraken, okx, bybit, gemini',
      'top',
      'top projects',
      'top exchanges',
      'search swap',
      'search a',
      'trending',
      'index',
      'health',
      'help',
      'digest list',
      'compare',
      'chart',
    ];
    for (const text of commands) {
      const { reply } = await core.run(text);
      expect(validateMessage(renderReply(reply), { ...STRICT, requireFallbackText: true }), text).toEqual([]);
    }
  });
});

describe('properties', () => {
  const hostile = fc.oneof(
    fc.string({ maxLength: 120 }),
    fc.string({ unit: 'grapheme', maxLength: 60 }),
    fc.constantFrom(
      '<!channel>',
      '<!here|here>',
      '<@U123>',
      '<#C123>',
      '<https://evil.example|click>',
      '&amp;',
      '@everyone',
      '```',
      '\u202e',
      '\u200b',
      'x'.repeat(5000),
    ),
  );
  const field = fc.record({ label: hostile, value: hostile, detail: fc.option(hostile, { nil: undefined }) });
  const section = fc.record({
    title: hostile,
    direction: fc.option(fc.constantFrom('lower is safer' as const, 'higher is better' as const), { nil: undefined }),
    fields: fc.option(fc.array(field, { maxLength: 35 }), { nil: undefined }),
    items: fc.option(fc.array(hostile, { maxLength: 40 }), { nil: undefined }),
    empty: fc.option(hostile, { nil: undefined }),
  });
  const action = fc.record({ label: hostile, command: hostile }).map(toAction);
  const foot = fc.record({
    asOf: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    sources: fc.constantFrom<SourceName[]>(['rest'], ['mcp'], ['mcp', 'rest']),
    simulated: fc.boolean(),
    notes: fc.option(fc.array(hostile, { maxLength: 12 }), { nil: undefined }),
  });
  const reply: fc.Arbitrary<Reply> = fc.oneof(
    fc.record({
      kind: fc.constant('card' as const),
      entity: fc.constant({ kind: 'project' as const, slug: 'x', name: 'x' }),
      title: hostile,
      subtitle: fc.option(hostile, { nil: undefined }),
      headline: fc.record({
        label: hostile,
        value: hostile,
        rating: fc.option(hostile, { nil: undefined }),
        direction: fc.constant('lower is safer' as const),
      }),
      sections: fc.array(section, { maxLength: 60 }),
      footer: foot,
      actions: fc.option(fc.array(action, { maxLength: 40 }), { nil: undefined }),
    }),
    fc.record({
      kind: fc.constant('choice' as const),
      reason: fc.constantFrom('ambiguous' as const, 'not_found' as const),
      query: hostile,
      prompt: hostile,
      options: fc.array(
        fc.record({ label: hostile, description: fc.option(hostile, { nil: undefined }), command: hostile }).map(toAction),
        { maxLength: 60 },
      ),
      note: fc.option(hostile, { nil: undefined }),
    }),
    fc.record({
      kind: fc.constant('table' as const),
      title: hostile,
      note: fc.option(hostile, { nil: undefined }),
      columns: fc.constant<Column[]>([
        { key: 'a', label: 'A' },
        { key: 'b', label: 'B', align: 'right' },
      ]),
      rows: fc.array(fc.record({ a: hostile, b: hostile }), { maxLength: 200 }),
      footer: fc.option(foot, { nil: undefined }),
      actions: fc.option(fc.array(action, { maxLength: 40 }), { nil: undefined }),
    }),
    fc.record({
      kind: fc.constant('text' as const),
      title: fc.option(hostile, { nil: undefined }),
      text: fc.option(hostile, { nil: undefined }),
      sections: fc.option(fc.array(section, { maxLength: 30 }), { nil: undefined }),
      footer: fc.option(foot, { nil: undefined }),
    }),
    fc.record({ kind: fc.constant('error' as const), message: hostile, hint: fc.option(hostile, { nil: undefined }) }),
  );

  it('any reply renders within every Block Kit limit', () => {
    fc.assert(
      fc.property(reply, (r) => {
        const out = renderReply(r);
        expect(validateMessage(out, STRICT)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('no text from a reply can produce a mention, broadcast, link or direction override', () => {
    fc.assert(
      fc.property(reply, (r) => {
        const { mrkdwn, plain } = messageTexts(renderReply(r));
        for (const text of [...mrkdwn, ...plain]) {
          expect(text).not.toMatch(/[<>\u202a-\u202e\u2066-\u2069]/);
          expect(text).not.toMatch(/@(channel|here|everyone)\b/i);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('button values are the commands, whole', () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 30 }), (actions) => {
        const out = blocksOf(card({ actions }));
        const values = out.filter((b) => b.type === 'actions').flatMap((b) => b.elements.map((e: { value: string }) => e.value));
        const offered = actions.map((a) => a.command!).filter((c) => c.trim() !== '' && c.length <= 2000);
        expect(values).toEqual(offered.slice(0, 25));
      }),
      { numRuns: 200 },
    );
  });
});
