import fc from 'fast-check';
import type { APIEmbed } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHOOSE_ID,
  COLOURS,
  LIMITS,
  RUN_ID,
  fitEmbed,
  footerText,
  ratingColour,
  renderReply,
  type DiscordMessage,
} from '../../../adapters/discord/embeds.js';
import type { Core } from '../../../commands/core/core.js';
import { polText, scoreText } from '../../helpers/truth.js';
import type { SourceName } from '../../../src/api/domain.js';
import type { Action, CardReply, ChoiceReply, Column, CommandRef, Reply, Section, TableReply } from '../../../src/reply/model.js';
import { validateMessage } from '../../fakes/discord/validate.js';
import { demoCore } from '../../helpers/core.js';
import { last } from '../../helpers/discord.js';
import { action as toAction } from '../../helpers/actions.js';
import { CommandMentions } from '../../../adapters/discord/mentions.js';
import { COMMANDS } from '../../../commands/core/commands.js';

/** Everything Discord would reject about a message, as the fake (built from Discord's documented limits) sees it. */
function problems(m: DiscordMessage): string[] {
  const out: string[] = [];
  const files = m.files.map((f, i) => ({ field: `files[${i}]`, name: f.name, contentType: 'image/png', bytes: f.attachment }));
  const invalid = validateMessage({ content: m.content, embeds: m.embeds, components: m.components }, files, false);
  if (invalid) out.push(JSON.stringify(invalid));
  if (m.content.length > LIMITS.content) out.push('content');
  if (m.components.length > 5) out.push('rows');
  for (const row of m.components) {
    for (const c of row.components) {
      if (c.type === 3) {
        if (c.custom_id.length > 100) out.push('select custom_id');
        if (c.options.length > 25 || c.options.length === 0) out.push('select options');
        for (const o of c.options) {
          if (o.label.length > 100 || o.label.length === 0) out.push('option label');
          if (o.value.length > 100) out.push('option value');
          if ((o.description?.length ?? 0) > 100) out.push('option description');
        }
      } else if (c.type === 2 && 'custom_id' in c) {
        if (c.custom_id.length > 100) out.push('button custom_id');
        if ((c.label?.length ?? 0) > 80) out.push('button label');
      }
    }
  }
  return out;
}

let core: Core;
beforeAll(async () => {
  core = await demoCore();
});
afterAll(() => core.close());

const sim = () => core.upstream.sim!.store;

describe('Reply to Discord message', () => {
  it('renders a project card: colour by rating, PoL and scores with their directions, red flags, footer', async () => {
    const p = sim().project('pepe')!;
    const { reply } = await core.run('project:pepe');
    const m = renderReply(reply);
    expect(problems(m)).toEqual([]);
    expect(m.private).toBe(false);
    const embed = m.embeds[0]!;
    expect(embed.title).toBe(`${p.name} (${p.ticker})`);
    expect(embed.color).toBe(ratingColour((reply as CardReply).headline.rating));
    expect(embed.fields![0]!.name).toBe('Probability of Loss (lower is safer)');
    expect(embed.fields![0]!.value).toContain(`**${polText(last(p.pol))}**`);
    const scores = embed.fields!.find((f) => f.name === 'Category quality scores (higher is better)')!;
    expect(scores.value).toContain(`Regulatory: **${scoreText(last(p.categories.regulatory.scores))}**`);
    const flags = embed.fields!.find((f) => f.name === 'Red flags')!;
    for (const f of p.redFlags.mm === 'none_identified' ? [] : p.redFlags.mm) expect(flags.value).toContain(`• Market maker: ${f}`);
    expect(embed.footer?.text).toContain('SIMULATED DATA');
    expect(embed.image?.url).toBe(`attachment://${m.files[0]!.name}`);
    expect(m.components[0]!.components.map((c) => ('custom_id' in c ? c.custom_id : ''))).toContain(`${RUN_ID}:flags?name=project%3Apepe`);
  });

  it('colours green for A ratings, amber for B, red below', () => {
    for (const r of ['AAA', 'AA', 'A']) expect(ratingColour(r)).toBe(COLOURS.good);
    for (const r of ['BBB', 'BB', 'B']) expect(ratingColour(r)).toBe(COLOURS.fair);
    for (const r of ['CCC', 'CC', 'C', 'D']) expect(ratingColour(r)).toBe(COLOURS.poor);
    expect(ratingColour(undefined)).toBe(COLOURS.neutral);
  });

  it('says as of when, from where, how stale and that the data is simulated', () => {
    const asOf = Date.UTC(2026, 10, 22, 9, 0);
    expect(
      footerText({
        asOf,
        sources: ['rest', 'mcp'],
        stale: { ageMs: 12 * 60_000 },
        simulated: true,
        notes: ['2 slots skipped while offline'],
      }),
    ).toBe('as of 2026-11-22 09:00 UTC · source REST+MCP · stale (12 min old) · SIMULATED DATA · 2 slots skipped while offline');
    expect(footerText({ asOf, sources: ['rest'], simulated: false })).toBe('as of 2026-11-22 09:00 UTC · source REST');
  });

  it('renders a choice as an ephemeral select whose values are the commands to run', async () => {
    const { reply } = await core.run('chart lido 365d categories');
    const m = renderReply(reply);
    expect(m.private).toBe(true);
    expect(m.embeds).toEqual([]);
    const select = m.components[0]!.components[0]!;
    expect(select).toMatchObject({ type: 3, custom_id: CHOOSE_ID });
    expect(select.type === 3 && select.options.map((o) => o.value).sort()).toEqual([
      'chart?name=project%3Alido-dao&range=365d&kind=categories',
      'chart?name=project%3Alido-staked-ether&range=365d&kind=categories',
    ]);
  });

  it("keeps commands too long for a custom id on the adapter's side, under a short key", () => {
    const long = (n: number): Action =>
      toAction({ label: `Option ${n}`, command: `compare ${'very-long-project-name, '.repeat(4)}project:candidate-${n}` });
    const reply: ChoiceReply = { kind: 'choice', reason: 'ambiguous', query: 'x', prompt: 'Which one?', options: [long(1), long(2)] };
    const kept: string[] = [];
    const m = renderReply(reply, {
      encode: (ref) => {
        kept.push(ref.command);
        return `~k${kept.length}`;
      },
    });
    const select = m.components[0]!.components[0]!;
    expect(select).toMatchObject({ custom_id: CHOOSE_ID, options: [{ value: '~k1' }, { value: '~k2' }] });
    expect(kept).toEqual(['compare', 'compare']);
  });

  it('renders a table as a code block with the rows that fit and a count of the rest', () => {
    const rows = Array.from({ length: 400 }, (_, i) => ({ name: `Entity number ${i} with a long name`, pol: '1.23%', rating: 'BB' }));
    const table: TableReply = {
      kind: 'table',
      title: 'Many',
      columns: [
        { key: 'name', label: 'Name' },
        { key: 'pol', label: 'PoL', align: 'right' },
        { key: 'rating', label: 'Rating' },
      ],
      rows,
    };
    const m = renderReply(table);
    const description = m.embeds[0]!.description!;
    expect(description.startsWith('```\nName')).toBe(true);
    expect(description).toMatch(/\n… \d+ more rows$/);
    expect(description.length).toBeLessThanOrEqual(LIMITS.description);
    expect(problems(m)).toEqual([]);
  });

  it('renders errors as short ephemeral text', () => {
    const m = renderReply({ kind: 'error', message: 'The risk-data service is not responding.', hint: 'Try again in a minute.' });
    expect(m).toMatchObject({
      private: true,
      embeds: [],
      components: [],
      content: '⚠️ The risk-data service is not responding.\nTry again in a minute.',
    });
  });

  it('writes the commands a reply names as Discord has them: a mention of the registered command, with its options', async () => {
    const mentions = new CommandMentions(COMMANDS);
    const opts = { mention: (r: CommandRef) => mentions.ref(r) };
    // Before the ids are known the command is named in code; digests live under /pol-digest.
    const missing = renderReply(
      {
        kind: 'error',
        message: 'There is no digest #9 in this channel.',
        hint: ['See them with ', { ref: { command: 'digest-list' } }, '.'],
      },
      opts,
    );
    expect(missing.content).toBe('⚠️ There is no digest #9 in this channel.\nSee them with `/pol-digest list`.');
    mentions.setIds({ pol: '111111111111111111', 'pol-digest': '222222222222222222' });
    const choice = renderReply((await core.run('nonexistentcoin')).reply, opts);
    expect(choice.content).toContain('Try </pol search:111111111111111111> `text: nonexistentcoin`.');
    const error = renderReply(
      { kind: 'error', message: 'x', hint: ['Resume it with ', { ref: { command: 'digest-resume', args: { id: '3' } } }, '.'] },
      opts,
    );
    expect(error.content).toBe('⚠️ x\nResume it with </pol-digest resume:222222222222222222> `id: 3`.');
    // Upstream text that merely looks like a mention stays text.
    expect(renderReply({ kind: 'error', message: 'Try </pol search:1> now' }, opts).content).toBe('⚠️ Try \\</pol search:1> now');
  });

  it('cuts an oversized embed visibly and within every limit', () => {
    const fields = Array.from({ length: 40 }, (_, i) => ({ name: `F${i} ${'n'.repeat(300)}`, value: 'v'.repeat(2000) }));
    const e = fitEmbed({ title: 't'.repeat(400), description: 'd'.repeat(5000), fields, footer: { text: 'f'.repeat(3000) } });
    expect(e.title!.length).toBe(LIMITS.title);
    expect(e.title!.endsWith('…')).toBe(true);
    expect(e.fields!.length).toBeLessThanOrEqual(LIMITS.fields);
    expect(last(e.fields!).name).toBe('Not shown');
    expect(last(e.fields!).value).toMatch(/^… \d+ more fields/);
    const size = (x: APIEmbed) =>
      (x.title?.length ?? 0) +
      (x.description?.length ?? 0) +
      (x.footer?.text.length ?? 0) +
      (x.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(size(e)).toBeLessThanOrEqual(LIMITS.embedTotal);
  });

  it('holds every Discord limit for any reply', () => {
    const text = (max: number) =>
      fc.string({ maxLength: max, unit: fc.constantFrom('a', ' ', '\n', '*', '@everyone', '<@1>', '[x](y)', '\\', '😀', 'ü') });
    const section: fc.Arbitrary<Section> = fc.record(
      {
        title: text(300),
        direction: fc.constantFrom('lower is safer' as const, 'higher is better' as const),
        fields: fc.array(fc.record({ label: text(200), value: text(400), detail: text(200) }), { maxLength: 30 }),
        items: fc.array(text(600), { maxLength: 30 }),
        empty: text(50),
      },
      { requiredKeys: ['title'] },
    );
    const footer = fc.record({
      asOf: fc.integer({ min: 0, max: 4e12 }),
      sources: fc.constant<SourceName[]>(['rest']),
      simulated: fc.boolean(),
      notes: fc.array(text(500), { maxLength: 8 }),
    });
    const action = fc.record({ label: text(150), description: text(150), command: text(140) }).map(toAction);
    const card: fc.Arbitrary<Reply> = fc.record({
      kind: fc.constant('card' as const),
      entity: fc.constant({ kind: 'project' as const, slug: 'x', name: 'x' }),
      title: text(400),
      subtitle: text(300),
      headline: fc.record({ label: text(100), value: text(100), rating: text(5), direction: fc.constant('lower is safer' as const) }),
      sections: fc.array(section, { maxLength: 30 }),
      footer,
      actions: fc.array(action, { maxLength: 8 }),
    });
    const table: fc.Arbitrary<Reply> = fc.record({
      kind: fc.constant('table' as const),
      title: text(400),
      note: text(3000),
      columns: fc.constant<Column[]>([
        { key: 'a', label: 'A' },
        { key: 'b', label: 'B', align: 'right' },
      ]),
      rows: fc.array(fc.record({ a: text(60), b: text(60) }), { maxLength: 300 }),
      footer,
      actions: fc.array(action, { maxLength: 40 }),
    });
    const textReply: fc.Arbitrary<Reply> = fc.record({
      kind: fc.constant('text' as const),
      title: text(400),
      text: text(6000),
      sections: fc.array(section, { maxLength: 30 }),
      footer,
    });
    const choice: fc.Arbitrary<Reply> = fc.record({
      kind: fc.constant('choice' as const),
      reason: fc.constant('ambiguous' as const),
      query: text(50),
      prompt: text(2500),
      note: text(500),
      options: fc.array(action, { maxLength: 40 }),
    });
    const error: fc.Arbitrary<Reply> = fc.record({ kind: fc.constant('error' as const), message: text(2500), hint: text(500) });

    fc.assert(
      fc.property(fc.oneof(card, table, textReply, choice, error), fc.boolean(), (reply, stash) => {
        const m = renderReply(
          reply,
          stash
            ? {
                encode: (
                  (n) => () =>
                    `~k${++n}`
                )(0),
              }
            : {},
        );
        expect(problems(m)).toEqual([]);
        expect(m.allowedMentions).toEqual({ parse: [] });
      }),
      { numRuns: 200 },
    );
  });

  it('closes a code block that the description limit cuts, and gives up the footer before the answer', () => {
    const rows = Array.from({ length: 400 }, (_, i) => `row ${String(i).padStart(3, '0')}  ${'x'.repeat(20)}`).join('\n');
    const cut = fitEmbed({ title: 'Table', description: `Intro\n\n\`\`\`\n${rows}\n\`\`\``, footer: { text: 'f'.repeat(LIMITS.footer) } });
    const description = cut.description!;
    expect(description.length).toBeLessThanOrEqual(LIMITS.description);
    expect(description).toMatch(/\n```\n… \(truncated\)$/);
    expect((description.match(/```/g) ?? []).length % 2).toBe(0);
    // The footer shrank so the description keeps its room under the 6,000 total.
    expect(cut.footer!.text.length).toBeLessThan(LIMITS.footer);
    expect(description.length).toBeGreaterThan(LIMITS.description - 100);
  });
});
