import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toCommandText, type SlashInput } from '../../adapters/discord/translate.js';
import { CHART_KINDS, RANGES } from '../../commands/grammar.js';
import { parse } from '../../commands/parse.js';

const pol = (subcommand: string, options: SlashInput['options'] = {}): SlashInput => ({ command: 'pol', subcommand, options });
const digest = (subcommand: string, options: SlashInput['options'] = {}): SlashInput => ({ command: 'pol-digest', subcommand, options });

function textOf(input: SlashInput): string {
  const t = toCommandText(input);
  if (!t.ok) throw new Error(`refused: ${t.message}`);
  return t.text;
}

function commandOf(input: SlashInput) {
  const r = parse(textOf(input));
  if (!r.ok) throw new Error(`does not parse: ${r.message}`);
  return r.command;
}

describe('slash options to command text', () => {
  it('mirrors every /pol subcommand in the grammar', () => {
    expect(textOf(pol('card', { name: 'binance' }))).toBe('binance');
    expect(commandOf(pol('card', { name: 'project:lido-dao' }))).toEqual({ name: 'card', target: { text: 'project:lido-dao', explicit: { kind: 'project', slug: 'lido-dao' } } });
    expect(commandOf(pol('flags', { name: 'pepe' }))).toMatchObject({ name: 'flags', target: { text: 'pepe', kind: 'project' } });
    expect(commandOf(pol('chart', { name: 'bitcoin' }))).toMatchObject({ name: 'chart', target: { text: 'bitcoin' }, range: '90d', chart: null });
    expect(commandOf(pol('chart', { name: 'exchange:kraken', range: '365d', kind: 'reserves' }))).toMatchObject({
      name: 'chart',
      target: { explicit: { kind: 'exchange', slug: 'kraken' } },
      range: '365d',
      chart: 'reserves',
    });
    expect(commandOf(pol('compare', { a: 'binance', b: 'lido dao', c: 'exchange:okx' }))).toMatchObject({
      name: 'compare',
      targets: [{ text: 'binance' }, { text: 'lido dao' }, { text: 'exchange:okx' }],
    });
    expect(commandOf(pol('top'))).toEqual({ name: 'top', kind: 'exchange' });
    expect(commandOf(pol('top', { list: 'projects' }))).toEqual({ name: 'top', kind: 'project' });
    expect(commandOf(pol('search', { text: 'swap' }))).toEqual({ name: 'search', text: 'swap' });
    for (const name of ['trending', 'index', 'health', 'help'] as const) expect(commandOf(pol(name))).toEqual({ name });
  });

  it('never lets a typed name turn into another command', () => {
    // "top projects" or "index coop" would read as commands; a search offers the match to choose.
    expect(textOf(pol('card', { name: 'top projects' }))).toBe('search top projects');
    expect(textOf(pol('card', { name: 'Index Coop' }))).toBe('search Index Coop');
    expect(textOf(pol('card', { name: 'digest add bitcoin' }))).toBe('search digest add bitcoin');
    // The grammar's own "project <name>" still narrows the kind.
    expect(commandOf(pol('card', { name: 'project lido dao' }))).toMatchObject({ name: 'card', target: { text: 'lido dao', kind: 'project' } });
  });

  it('refuses what the grammar cannot say instead of saying something else', () => {
    // The range would be read from the name, not from the option the person chose.
    const chart = toCommandText(pol('chart', { name: 'bitcoin all', range: '30d' }));
    expect(chart).toMatchObject({ ok: false, hint: expect.stringContaining('suggestions') });
    const vs = toCommandText(pol('compare', { a: 'bitcoin vs ethereum', b: 'kraken' }));
    expect(vs.ok).toBe(false);
    expect(toCommandText(pol('card', { name: '   ' })).ok).toBe(false);
    expect(toCommandText(pol('compare', { a: 'bitcoin', b: ' ' })).ok).toBe(false);
    expect(toCommandText({ command: 'other', subcommand: null, options: {} }).ok).toBe(false);
  });

  it('keeps commas inside a compare name from splitting it, and strips invisible characters', () => {
    expect(commandOf(pol('compare', { a: 'Foo, Inc', b: 'kraken' }))).toMatchObject({ targets: [{ text: 'Foo Inc' }, { text: 'kraken' }] });
    expect(textOf(pol('card', { name: 'bit\u200bcoin\n' }))).toBe('bit coin');
  });

  it('maps /pol-digest to the digest grammar', () => {
    expect(textOf(digest('add', { names: 'bitcoin, ethereum', schedule: 'daily', at: '09:00', tz: 'Europe/Berlin' }))).toBe(
      'digest add bitcoin, ethereum daily at 09:00 tz Europe/Berlin',
    );
    expect(textOf(digest('add', { names: 'bitcoin', schedule: 'daily', cron: '0 9 * * "1-5"' }))).toBe('digest add bitcoin "0 9 * * 1-5"');
    expect(textOf(digest('list'))).toBe('digest list');
    for (const sub of ['remove', 'pause', 'resume', 'preview']) expect(textOf(digest(sub, { id: 'd42' }))).toBe(`digest ${sub} d42`);
    expect(toCommandText(digest('remove', { id: '1 2' })).ok).toBe(false);
    expect(commandOf(digest('add', { names: 'bitcoin' }))).toEqual({ name: 'digest', args: 'add bitcoin' });
  });

  it('round-trips every pick from autocomplete, with any range and kind', () => {
    const ref = fc.tuple(fc.constantFrom('project', 'exchange'), fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,40}$/)).map(([k, s]) => `${k}:${s}`);
    fc.assert(
      fc.property(ref, fc.constantFrom('', ...RANGES), fc.constantFrom('', ...CHART_KINDS), (name, range, kind) => {
        const c = commandOf(pol('chart', { name, ...(range ? { range } : {}), ...(kind ? { kind } : {}) }));
        expect(c).toMatchObject({ name: 'chart', target: { text: name }, range: range || '90d', chart: kind || null });
        expect(commandOf(pol('card', { name }))).toMatchObject({ name: 'card', target: { text: name } });
      }),
    );
  });

  it('either says exactly what was typed or refuses, for any typed name', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.constantFrom(...RANGES), (name, range) => {
        const t = toCommandText(pol('chart', { name, range }));
        if (!t.ok) return;
        const r = parse(t.text);
        expect(r.ok && r.command.name === 'chart' && r.command.range === range).toBe(true);
      }),
    );
  });
});
