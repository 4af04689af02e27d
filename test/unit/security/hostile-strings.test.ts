import { describe, expect, it } from 'vitest';
import { renderReply as renderDiscord, type DiscordMessage } from '../../../adapters/discord/embeds.js';
import { renderReply as renderSlack, type SlackMessage } from '../../../adapters/slack/blocks.js';
import { LIMITS as TELEGRAM_LIMITS } from '../../../adapters/telegram/html.js';
import { captionFits, renderReply as renderTelegram, type TelegramMessage } from '../../../adapters/telegram/render.js';
import { parseHtml } from '../../fakes/telegram/html.js';
import type { Action, CardReply, ChoiceReply, Footer, Reply, Section, TableReply } from '../../../src/reply/model.js';
import { messageTexts, validateMessage as blockKitProblems } from '../../helpers/slack/block-kit-limits.js';
import { BIG, HOSTILE_STRINGS, type HostileString, SHOWN_PREFIX } from '../../helpers/hostile-strings.js';
import { action as toAction } from '../../helpers/actions.js';

/**
 * Every hostile string goes where upstream text goes (entity names, red flags, field values, table
 * cells, choices, notes, errors) and through the real Slack and Discord renderers. What is checked
 * is what the platforms would do with the result, written down from their documentation rather
 * than from the escapers: no mention or link can come alive, no markup from the text takes
 * effect, nothing hides or reorders text, every platform limit holds, and the reader still sees
 * what the text said.
 */

// ---- where upstream text goes ------------------------------------------------------------------

const footer = (notes?: string[]): Footer => ({
  asOf: Date.UTC(2026, 0, 2, 3, 4),
  sources: ['rest'],
  simulated: false,
  ...(notes ? { notes } : {}),
});

/** Section titles whose fields carry our own markup: bold around each score, italics around "none". */
const SCORES = 'Scores';
const REVIEWS = 'Reviews';

function card(over: Partial<CardReply> = {}): CardReply {
  return {
    kind: 'card',
    entity: { kind: 'project', slug: 'x', name: 'X' },
    title: 'X (XT)',
    headline: { label: 'Probability of Loss', value: '1.33%', rating: 'A', direction: 'lower is safer' },
    sections: [{ title: 'Red flags', items: ['none'] }],
    footer: footer(),
    ...over,
  };
}

function table(over: Partial<TableReply> = {}): TableReply {
  return {
    kind: 'table',
    title: 'Top projects',
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'pol', label: 'PoL', align: 'right' },
    ],
    rows: [
      { name: 'First', pol: '1.00%' },
      { name: 'Second', pol: '2.00%' },
    ],
    footer: footer(),
    ...over,
  };
}

function choice(over: Partial<ChoiceReply> = {}): ChoiceReply {
  return {
    kind: 'choice',
    reason: 'ambiguous',
    query: 'x',
    prompt: 'Several match.',
    options: [
      toAction({ label: 'Alpha', description: 'project', command: 'card project:alpha' }),
      toAction({ label: 'Beta', description: 'exchange', command: 'card exchange:beta' }),
    ],
    ...over,
  };
}

const flags = (items: string[]): Section => ({ title: 'Red flags', items });
const scores = (s: string): Section => ({ title: SCORES, direction: 'higher is better', fields: [{ label: s, value: s, detail: s }] });
const act = (label: string): Action => toAction({ label, description: label, command: 'flags project:x' });

/**
 * Copies for the many-of-a-kind positions. Past the first, each is cut to 2,000 characters: that
 * still overflows every platform limit, and 300 table rows of 100 KB each would only slow the run.
 */
const repeat = (s: string, n: number): string[] => Array.from({ length: n }, () => s.slice(0, 2000));

interface Placement {
  name: string;
  reply: (s: string) => Reply;
}

const PLACEMENTS: Placement[] = [
  { name: 'card title', reply: (s) => card({ title: s, entity: { kind: 'project', slug: 'x', name: s } }) },
  { name: 'card subtitle', reply: (s) => card({ subtitle: s }) },
  {
    name: 'card rating',
    reply: (s) => card({ headline: { label: 'Probability of Loss', value: '1.33%', rating: s, direction: 'lower is safer' } }),
  },
  { name: 'red flag', reply: (s) => card({ sections: [flags([s, 'Team is anonymous'])] }) },
  { name: 'many red flags', reply: (s) => card({ sections: [flags([s, ...repeat(s, 39)])] }) },
  { name: 'score field', reply: (s) => card({ sections: [scores(s)] }) },
  { name: 'footer note', reply: (s) => card({ footer: footer([s]) }) },
  { name: 'action label', reply: (s) => card({ actions: [act(s)] }) },
  { name: 'table title', reply: (s) => table({ title: s }) },
  { name: 'table note', reply: (s) => table({ note: s }) },
  {
    name: 'table cell',
    reply: (s) =>
      table({
        rows: [
          { name: s, pol: '1.00%' },
          { name: 'Second', pol: s },
        ],
      }),
  },
  {
    name: 'table column',
    reply: (s) =>
      table({
        columns: [
          { key: 'name', label: s },
          { key: 'pol', label: 'PoL', align: 'right' },
        ],
      }),
  },
  {
    name: 'choice label',
    reply: (s) => choice({ options: [toAction({ label: s, description: 'project', command: 'card project:a' }), ...choice().options] }),
  },
  {
    name: 'choice description',
    reply: (s) => choice({ options: [toAction({ label: 'Alpha', description: s, command: 'card project:a' })] }),
  },
  { name: 'choice prompt and note', reply: (s) => choice({ query: s, prompt: `Several match “${s}”.`, note: s }) },
  { name: 'text', reply: (s) => ({ kind: 'text', title: s, text: s, footer: footer([s]) }) },
  { name: 'error', reply: (s) => ({ kind: 'error', message: s, hint: s }) },
  {
    name: 'card, everywhere at once',
    reply: (s) =>
      card({
        title: s,
        subtitle: s,
        entity: { kind: 'project', slug: 'x', name: s },
        headline: {
          label: 'Probability of Loss',
          value: '1.33%',
          rating: s,
          direction: 'lower is safer',
          change: { text: s, trend: 'worse' },
        },
        sections: [scores(s), flags([s, ...repeat(s, 29)]), { title: REVIEWS, items: [], empty: s }],
        footer: footer([s, ...repeat(s, 5)]),
        actions: [act(s), ...repeat(s, 5).map(act)],
      }),
  },
  {
    name: 'table, everywhere at once',
    reply: (s) =>
      table({
        title: s,
        note: s,
        columns: [
          { key: 'name', label: s },
          { key: 'pol', label: s, align: 'right' },
        ],
        rows: [{ name: s, pol: s }, ...repeat(s, 299).map((t) => ({ name: t, pol: t }))],
        sections: [flags([s])],
        footer: footer([s]),
        actions: [act(s), ...repeat(s, 29).map(act)],
      }),
  },
];

// ---- what a reader and a platform see ----------------------------------------------------------

/** Zero-width and bidirectional formatting characters: none of them may reach a person from upstream. */
const HIDING = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
/** Control characters other than tab and newline. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** Half of a surrogate pair: not text, and refused by strict JSON decoders on the other side. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const ZW = /[\u200b-\u200d\u2060\ufeff]/g;

/**
 * Both escapers break `@everyone` and friends with one zero-width space right after the `@`. That
 * one is allowed; any other zero-width or bidi character came from the input.
 */
const hidingChars = (text: string): boolean => HIDING.test(text.replace(/@\u200b/g, '@'));

function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) allStrings(v, out);
  else if (value && typeof value === 'object' && !Buffer.isBuffer(value)) for (const v of Object.values(value)) allStrings(v, out);
  return out;
}

/** What the upstream text looks like to a reader: no format or control characters, no broken UTF-16. */
function readerView(text: string): string {
  return text
    .replace(/[\p{Cf}]/gu, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
    .replace(new RegExp(LONE_SURROGATE.source, 'g'), '')
    .replace(/\s+/g, ' ')
    .trim();
}

function problemsOfPayload(m: object, problems: string[]): void {
  for (const s of allStrings(m)) {
    if (LONE_SURROGATE.test(s)) problems.push(`lone surrogate in ${JSON.stringify(s.slice(0, 60))}`);
  }
  const json = JSON.stringify(m);
  if (JSON.stringify(JSON.parse(json)) !== json) problems.push('payload does not survive a JSON round trip');
  if (Buffer.from(json, 'utf8').toString('utf8') !== json) problems.push('payload does not survive UTF-8 encoding');
}

// Slack ------------------------------------------------------------------------------------------

/**
 * Slack mrkdwn: `<...>` is a mention, broadcast, user group, date or link, and `&` starts an
 * entity. Our renderer writes no angle brackets of its own, so any `<` `>` is upstream text going
 * live, and any `&` that does not start `&amp;` `&lt;` `&gt;` is upstream text read as an entity.
 * Backticks: the only ones we write are the fences around a table.
 */
function slackProblems(reply: Reply, m: SlackMessage): string[] {
  const problems = blockKitProblems(m, { requireFallbackText: true });
  const { mrkdwn, plain } = messageTexts(m);
  let backticks = 0;
  for (const text of mrkdwn) {
    const bare = text.replace(ZW, '');
    if (/[<>]/.test(bare)) problems.push(`unescaped angle bracket in mrkdwn ${JSON.stringify(text.slice(0, 80))}`);
    if (/&(?!(amp|lt|gt);)/.test(text)) problems.push(`unescaped & in mrkdwn ${JSON.stringify(text.slice(0, 80))}`);
    backticks += (text.match(/`/g) ?? []).length;
    if (text.startsWith('```') && !/^```\n[^`]*\n```(\n[^`]*)?$/.test(text))
      problems.push(`code block opened by the text ${JSON.stringify(text.slice(0, 80))}`);
  }
  // A table Slack's table block carries has no fences; one that falls back to text has its two.
  const native = ((m.blocks ?? []) as { type?: string }[]).some((b) => b.type === 'table');
  const fences = reply.kind === 'table' && !native ? 6 : 0;
  if (backticks !== fences) problems.push(`${backticks} backticks in mrkdwn, ours are ${fences}`);
  for (const text of plain) {
    if (/[<>]/.test(text.replace(ZW, ''))) problems.push(`angle bracket in plain text ${JSON.stringify(text.slice(0, 80))}`);
  }
  for (const text of [...mrkdwn, ...plain]) {
    if (/@(channel|here|everyone)(?![0-9A-Za-z_])/i.test(text))
      problems.push(`live broadcast word in ${JSON.stringify(text.slice(0, 80))}`);
    if (hidingChars(text)) problems.push(`zero-width or bidi character in ${JSON.stringify(text.slice(0, 80))}`);
    if (CONTROL.test(text)) problems.push(`control character in ${JSON.stringify(text.slice(0, 80))}`);
  }
  problemsOfPayload(m, problems);
  return problems;
}

function slackVisible(m: SlackMessage): string {
  const { mrkdwn, plain } = messageTexts(m);
  const fromMrkdwn = mrkdwn.map((t) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
  const fromPlain = plain.map((t) => t.replace(/\u2039/g, '<').replace(/\u203a/g, '>'));
  return [...fromMrkdwn, ...fromPlain]
    .join('\n')
    .replace(/\u200b/g, '')
    .replace(/\u02cb/g, '`');
}

// Discord ----------------------------------------------------------------------------------------

/** Markdown a Discord client renders: a backslash makes the next punctuation character literal. */
const ESCAPED = /\\[^0-9A-Za-z\s]/g;
const live = (md: string): string => md.replace(ESCAPED, '\uffff');
const unescapeDiscord = (md: string): string => md.replace(/\\([^0-9A-Za-z\s])/g, '$1');

interface DiscordTexts {
  /** Rendered as markdown with mentions: content, embed titles, descriptions and fields. */
  markdown: { where: string; text: string; ownMarkup: boolean }[];
  /** Shown as typed: footers, authors, select options, buttons. */
  plain: string[];
}

function discordTexts(m: DiscordMessage): DiscordTexts {
  const markdown: DiscordTexts['markdown'] = [];
  const plain: string[] = [];
  if (m.content) markdown.push({ where: 'content', text: m.content, ownMarkup: false });
  m.embeds.forEach((e, i) => {
    if (e.title !== undefined) markdown.push({ where: `embed ${i} title`, text: e.title, ownMarkup: false });
    if (e.description !== undefined) markdown.push({ where: `embed ${i} description`, text: e.description, ownMarkup: false });
    (e.fields ?? []).forEach((f, j) => {
      markdown.push({ where: `embed ${i} field ${j} name`, text: f.name, ownMarkup: false });
      // The headline and score fields wrap values in our own **bold**, an empty section its text in _italics_.
      const own =
        (m.embeds[0] === e && j === 0 && f.name.includes('(lower is safer)')) || f.name.startsWith(SCORES) || f.name.startsWith(REVIEWS);
      markdown.push({ where: `embed ${i} field ${j} value`, text: f.value, ownMarkup: own });
    });
    if (e.footer) plain.push(e.footer.text);
    if (e.author) plain.push(e.author.name);
  });
  for (const row of m.components) {
    for (const c of row.components) {
      if ('label' in c && typeof c.label === 'string') plain.push(c.label);
      if ('placeholder' in c && typeof c.placeholder === 'string') plain.push(c.placeholder);
      if ('options' in c) for (const o of c.options) plain.push(o.label, ...(o.description ? [o.description] : []));
    }
  }
  for (const f of m.files) if (f.description) plain.push(f.description);
  return { markdown, plain };
}

/** Discord's documented message, embed and component limits. */
function discordLimitProblems(m: DiscordMessage): string[] {
  const p: string[] = [];
  const over = (what: string, value: string | undefined, max: number, min = 0) => {
    if (value === undefined) return;
    if (value.length > max) p.push(`${what} is ${value.length} characters, limit ${max}`);
    if (value.length < min) p.push(`${what} is empty`);
  };
  over('content', m.content, 2000);
  if (!m.content && m.embeds.length === 0 && m.components.length === 0 && m.files.length === 0) p.push('empty message');
  if (m.embeds.length > 10) p.push(`${m.embeds.length} embeds`);
  m.embeds.forEach((e, i) => {
    over(`embed ${i} title`, e.title, 256);
    over(`embed ${i} description`, e.description, 4096);
    over(`embed ${i} footer`, e.footer?.text, 2048);
    over(`embed ${i} author`, e.author?.name, 256);
    const fields = e.fields ?? [];
    if (fields.length > 25) p.push(`embed ${i} has ${fields.length} fields`);
    fields.forEach((f, j) => {
      over(`embed ${i} field ${j} name`, f.name, 256, 1);
      over(`embed ${i} field ${j} value`, f.value, 1024, 1);
    });
    const total =
      (e.title?.length ?? 0) +
      (e.description?.length ?? 0) +
      (e.footer?.text.length ?? 0) +
      (e.author?.name.length ?? 0) +
      fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
    if (total > 6000) p.push(`embed ${i} is ${total} characters, limit 6000`);
  });
  if (m.components.length > 5) p.push(`${m.components.length} component rows`);
  for (const row of m.components) {
    if (row.components.length > 5) p.push(`${row.components.length} components in a row`);
    for (const c of row.components) {
      if ('custom_id' in c) over('custom_id', c.custom_id, 100, 1);
      if ('label' in c && typeof c.label === 'string') over('button label', c.label, 80, 1);
      if ('placeholder' in c) over('placeholder', c.placeholder, 150);
      if ('options' in c) {
        if (c.options.length < 1 || c.options.length > 25) p.push(`${c.options.length} select options`);
        for (const o of c.options) {
          over('option label', o.label, 100, 1);
          over('option value', o.value, 100, 1);
          over('option description', o.description, 100);
        }
      }
    }
  }
  return p;
}

/** Our table: a fenced block at the start of a line; the code inside takes no markdown at all. */
const TABLE_BLOCK = /(^|\n)```\n([\s\S]*?)\n```(?=\n|$)/;

function discordProblems(reply: Reply, m: DiscordMessage): string[] {
  const problems = discordLimitProblems(m);
  if (JSON.stringify(m.allowedMentions) !== JSON.stringify({ parse: [] }))
    problems.push(`allowed_mentions ${JSON.stringify(m.allowedMentions)} lets mentions through`);
  const { markdown, plain } = discordTexts(m);
  for (const { where, text, ownMarkup } of markdown) {
    const show = `${where} ${JSON.stringify(text.slice(0, 80))}`;
    let md = text;
    if (reply.kind === 'table' && where.endsWith('description')) {
      const block = TABLE_BLOCK.exec(md);
      // However long the other texts, the table is there, its code block closed.
      if (!block) problems.push(`table code block missing or broken in ${show}`);
      if (block) {
        if (block[2]!.includes('`')) problems.push(`backtick inside the table code block in ${show}`);
        md = md.replace(block[0], '\n');
      }
    }
    // Zero-width characters are taken out first: hiding a mention behind one must not work.
    const l = live(md.replace(ZW, ''));
    if (/<(@|#|\/|a?:|t:|id:)/.test(l)) problems.push(`live mention, emoji or timestamp in ${show}`);
    if (/\]\(/.test(l)) problems.push(`live masked link in ${show}`);
    if (l.includes('`')) problems.push(`live backtick in ${show}`);
    if (/~~|\|\|/.test(l)) problems.push(`live strikethrough or spoiler in ${show}`);
    if (!ownMarkup && /[*_]/.test(l)) problems.push(`live emphasis in ${show}`);
    if (/^[^\S\n]*(#{1,3} |>|-# |[-*] |\d+\. )/m.test(l)) problems.push(`live heading, quote, subtext or list in ${show}`);
  }
  for (const text of [...markdown.map((x) => x.text), ...plain]) {
    if (/@(everyone|here)/i.test(text)) problems.push(`live mass mention in ${JSON.stringify(text.slice(0, 80))}`);
    if (hidingChars(text)) problems.push(`zero-width or bidi character in ${JSON.stringify(text.slice(0, 80))}`);
    if (CONTROL.test(text)) problems.push(`control character in ${JSON.stringify(text.slice(0, 80))}`);
  }
  problemsOfPayload(m, problems);
  return problems;
}

function discordVisible(m: DiscordMessage): string {
  const { markdown, plain } = discordTexts(m);
  // Backslashes inside a code block are shown as they are.
  const shown = (md: string): string => {
    const block = TABLE_BLOCK.exec(md);
    if (!block) return unescapeDiscord(md);
    const at = md.indexOf(block[0]);
    return `${unescapeDiscord(md.slice(0, at))}${block[0]}${unescapeDiscord(md.slice(at + block[0].length))}`;
  };
  return [...markdown.map((x) => shown(x.text)), ...plain]
    .join('\n')
    .replace(/\u200b/g, '')
    .replace(/\u02cb/g, '`');
}

// ---- the checks --------------------------------------------------------------------------------

/** What the reader must still see of `entry`, wherever it was placed. */
function meaningProblems(entry: HostileString, visible: string): string[] {
  const problems = (entry.shows ?? []).filter((w) => !visible.includes(w)).map((w) => `"${w}" is no longer shown`);
  if (entry.text.length >= BIG && entry.shows?.length && !visible.includes('…')) problems.push('100 KB text shown without a visible cut');
  return problems;
}

function check(entry: HostileString, render: (r: Reply) => { problems: string[]; visible: string }): string[] {
  return PLACEMENTS.flatMap((p) => {
    const reply = p.reply(entry.text);
    let out: { problems: string[]; visible: string };
    try {
      out = render(reply);
    } catch (err) {
      return [`${p.name}: renderer threw ${String(err)}`];
    }
    return [...out.problems, ...meaningProblems(entry, out.visible)].map((problem) => `${p.name}: ${problem}`);
  });
}

describe('the hostile-string corpus', () => {
  it('covers every kind of hostile text the renderers must neutralise', () => {
    const texts = HOSTILE_STRINGS.map((h) => h.text);
    const has = (needle: string) => texts.some((t) => t.includes(needle));
    const required = [
      '<!channel>',
      '<!here>',
      '<!everyone>',
      '<@U123>',
      '<#C123>',
      '<!subteam^S1>',
      '<https://evil.example|click>',
      '<javascript:alert(1)|x>',
      '@everyone',
      '@here',
      '<@123456789012345678>',
      '<@&123456789012345678>',
      '<#123456789012345678>',
      '[click](https://evil.example)',
      'https://evil.example',
      '<https://',
      '```',
      '`code`',
      '*bold*',
      '_it_',
      '~strike~',
      '||spoiler||',
      '> quote',
      '# heading',
      '-# subtext',
      '- item',
      '1. item',
      '&lt;',
      '&amp;',
      '<',
      '>',
      '&',
      '@\u200beveryone',
      '<\u200b!channel>',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u202e',
      '\u202d',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200f',
      '\u0338',
      '😀',
      '\ud800b',
      '\udc00',
      '\u0000',
      '\u0007',
      '\r',
      '\n',
      '\t',
    ];
    expect(required.filter((r) => !has(r))).toEqual([]);
    expect(texts).toContain('');
    expect(texts.some((t) => t.length > 0 && t.trim() === '')).toBe(true);
    expect(HOSTILE_STRINGS.filter((h) => h.text.length >= BIG).map((h) => h.name)).toEqual(
      expect.arrayContaining(['100 KB of <!channel>', '100 KB of backticks']),
    );
    expect(new Set(HOSTILE_STRINGS.map((h) => h.name)).size).toBe(HOSTILE_STRINGS.length);
  });

  it('names only words a reader sees near the start, so every placement keeps them', () => {
    const far = HOSTILE_STRINGS.flatMap((h) =>
      (h.shows ?? []).filter((w) => !readerView(h.text).slice(0, SHOWN_PREFIX).includes(w)).map((w) => `${h.name}: ${w}`),
    );
    expect(far).toEqual([]);
  });
});

describe('the checks themselves', () => {
  // Each check must fail on what a renderer that forgot to escape would send.
  const raw = '<!channel> <@1> & `x` @everyone [x](https://e.example) **b** ||s|| \u202e\ud800\u0007\n# h\n> q';

  it('catch unescaped Slack text', () => {
    const m = {
      text: 'x',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: `<!here> ${'h'.repeat(150)}` } },
        { type: 'section', text: { type: 'mrkdwn', text: raw } },
      ],
    } as SlackMessage;
    const found = slackProblems(card(), m).join('\n');
    for (const kind of [
      'limit 150',
      'unescaped angle bracket in mrkdwn',
      'unescaped & in mrkdwn',
      'backticks in mrkdwn',
      'angle bracket in plain text',
      'live broadcast word',
      'zero-width or bidi',
      'control character',
      'lone surrogate',
    ]) {
      expect(found).toContain(kind);
    }
  });

  it('catch unescaped Discord text and open mentions', () => {
    const m: DiscordMessage = {
      content: raw,
      embeds: [{ title: 't'.repeat(300), description: '```\n`\n```' }],
      components: [],
      files: [],
      allowedMentions: { parse: ['everyone'] } as unknown as DiscordMessage['allowedMentions'],
      private: false,
    };
    const found = discordProblems(table(), m).join('\n');
    for (const kind of [
      'title is 300 characters',
      'allowed_mentions',
      'live mention',
      'live masked link',
      'live backtick',
      'live strikethrough or spoiler',
      'live emphasis',
      'live heading, quote',
      'live mass mention',
      'zero-width or bidi',
      'control character',
      'lone surrogate',
      'backtick inside the table code block',
    ]) {
      expect(found).toContain(kind);
    }
  });

  it('notice text that is no longer shown, and a 100 KB text shown whole', () => {
    expect(meaningProblems({ name: 'x', text: 'gone', shows: ['gone'] }, 'something else')).toEqual(['"gone" is no longer shown']);
    expect(meaningProblems({ name: 'x', text: 'a'.repeat(BIG), shows: ['aaa'] }, 'aaa')).toEqual([
      '100 KB text shown without a visible cut',
    ]);
  });
});

describe('Slack: hostile upstream text through the Block Kit renderer', () => {
  it.each(HOSTILE_STRINGS.map((h) => [h.name, h] as const))('%s', (_name, entry) => {
    const problems = check(entry, (reply) => {
      const m = renderSlack(reply);
      return { problems: slackProblems(reply, m), visible: slackVisible(m) };
    });
    expect(problems).toEqual([]);
  });
});

/** Every command kept under a key of its own, as the adapter keeps long ones. */
function stashEach(): (ref: unknown) => string {
  let n = 0;
  return () => `~k${++n}`;
}

describe('Discord: hostile upstream text through the embed renderer', () => {
  it.each(HOSTILE_STRINGS.map((h) => [h.name, h] as const))('%s', (_name, entry) => {
    const problems = check(entry, (reply) => {
      const m = renderDiscord(reply, { encode: stashEach() });
      return { problems: discordProblems(reply, m), visible: discordVisible(m) };
    });
    expect(problems).toEqual([]);
  });
});

// Telegram ---------------------------------------------------------------------------------------

/** Entities our renderer writes itself; anything else in the parsed text came alive from upstream. */
const TELEGRAM_OWN = new Set(['bold', 'italic', 'code', 'pre']);

/**
 * Telegram's HTML parse mode, read the way the Bot API server reads it (the fake's parser): every
 * text must parse, its tags must be ours alone, the visible text must fit the message (or the
 * caption it rides on), and a button must carry what Telegram accepts.
 */
function telegramProblems(m: TelegramMessage): { problems: string[]; visible: string } {
  const problems: string[] = [];
  const visible: string[] = [];
  m.texts.forEach((html, i) => {
    let parsed: { text: string; entities: { type: string }[] };
    try {
      parsed = parseHtml(html);
    } catch (err) {
      problems.push(`text ${i} does not parse: ${String((err as Error).message).slice(0, 120)}`);
      return;
    }
    const max = i === 0 && captionFits(m) ? TELEGRAM_LIMITS.caption : TELEGRAM_LIMITS.text;
    if (parsed.text.length > max) problems.push(`text ${i} is ${parsed.text.length} characters, limit ${max}`);
    if (parsed.text.trim() === '') problems.push(`text ${i} is empty`);
    for (const e of parsed.entities) if (!TELEGRAM_OWN.has(e.type)) problems.push(`live ${e.type} entity in text ${i}`);
    if (hidingChars(parsed.text)) problems.push(`zero-width or bidi character in ${JSON.stringify(parsed.text.slice(0, 80))}`);
    if (CONTROL.test(parsed.text)) problems.push(`control character in ${JSON.stringify(parsed.text.slice(0, 80))}`);
    if (/(^|[^\w])@[A-Za-z0-9_]{5,}/.test(parsed.text)) problems.push(`live @mention in ${JSON.stringify(parsed.text.slice(0, 80))}`);
    visible.push(parsed.text);
  });
  const buttons = m.keyboard.flat();
  if (buttons.length > TELEGRAM_LIMITS.buttons) problems.push(`${buttons.length} buttons`);
  for (const row of m.keyboard) if (row.length > TELEGRAM_LIMITS.buttonsPerRow) problems.push(`${row.length} buttons in a row`);
  for (const b of buttons) {
    if (b.label.length === 0 || b.label.length > TELEGRAM_LIMITS.buttonLabel) problems.push(`button label of ${b.label.length} characters`);
    if (hidingChars(b.label) || CONTROL.test(b.label)) problems.push(`hidden or control character in button ${JSON.stringify(b.label)}`);
    visible.push(b.label);
  }
  problemsOfPayload(m, problems);
  return { problems, visible: visible.join('\n').replace(/\u200b/g, '') };
}

describe('Telegram: hostile upstream text through the HTML renderer', () => {
  it.each(HOSTILE_STRINGS.map((h) => [h.name, h] as const))('%s', (_name, entry) => {
    const problems = check(entry, (reply) => telegramProblems(renderTelegram(reply)));
    expect(problems).toEqual([]);
  });

  it('catches what an unescaped Telegram renderer would send', () => {
    const m: TelegramMessage = {
      texts: ['<a href="https://evil.example">click</a> <b>x', `@some_admin ${'x'.repeat(5000)}`],
      keyboard: [[{ label: '', run: 'x' }]],
      private: false,
      summary: '',
    };
    const found = telegramProblems(m).problems.join('\n');
    for (const kind of ['text 0 does not parse', 'limit 4096', 'live @mention', 'button label of 0']) expect(found).toContain(kind);
    expect(telegramProblems({ ...m, texts: ['<a href="https://e.example">x</a>'] }).problems.join('\n')).toContain('live text_link');
  });
});
