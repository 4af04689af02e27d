import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeInvocation, encodeInvocation } from '../../../adapters/discord/custom-id.js';
import { commandDefinitions, placeOf, toInvocation } from '../../../adapters/discord/commands.js';
import { COMMANDS } from '../../../commands/core/commands.js';
import { Registry } from '../../../commands/core/registry.js';
import type { CommandRef } from '../../../src/reply/model.js';

const registry = new Registry(COMMANDS);
const parse = (text: string) => {
  const r = registry.grammar.parse(text);
  if (!r.ok) throw new Error(`${text}: ${r.message}`);
  return r.invocation;
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('the command registry', () => {
  it('reads every example in help as its own command, and writes it back the same', () => {
    for (const spec of COMMANDS) {
      expect(spec.examples.length, spec.name).toBeGreaterThan(0);
      for (const example of spec.examples) {
        const invocation = parse(example);
        expect(invocation.command, example).toBe(spec.name);
        expect(parse(registry.text(invocation as CommandRef)), example).toEqual(invocation);
      }
    }
  });

  it('reads the typed grammar into typed arguments', () => {
    expect(parse('binance')).toEqual({ command: 'card', args: { name: 'binance' } });
    expect(parse('project lido dao')).toEqual({ command: 'project', args: { name: 'lido dao' } });
    expect(parse('chart bitcoin 1y categories')).toEqual({
      command: 'chart',
      args: { name: 'bitcoin', range: '365d', kind: 'categories' },
    });
    // No range typed: the handler's default (90 days) applies, and dates may stand in its place.
    expect(parse('chart bitcoin')).toEqual({ command: 'chart', args: { name: 'bitcoin' } });
    expect(parse('chart lido dao from 2026-03-01 to 2026-06-30 pol')).toEqual({
      command: 'chart',
      args: { name: 'lido dao', kind: 'pol', from: '2026-03-01', to: '2026-06-30' },
    });
    expect(parse('chart bitcoin since 2026-01-01')).toEqual({ command: 'chart', args: { name: 'bitcoin', from: '2026-01-01' } });
    expect(parse('browse exchanges page 2')).toEqual({ command: 'browse', args: { kind: 'exchanges', page: '2' } });
    expect(parse('compare lido dao, binance vs okx')).toEqual({ command: 'compare', args: { names: ['lido dao', 'binance', 'okx'] } });
    expect(parse('top')).toEqual({ command: 'top', args: { list: 'exchanges' } });
    expect(parse('digest rm #12')).toEqual({ command: 'digest-remove', args: { id: 12 } });
    expect(parse('digest add bitcoin, lido dao weekly friday at 16:00 tz Europe/Berlin')).toEqual({
      command: 'digest-add',
      args: { names: ['bitcoin', 'lido dao'], schedule: 'weekly', day: 'friday', at: '16:00', tz: 'Europe/Berlin' },
    });
  });

  it('quotes a name the grammar would read differently, so it round-trips whole', () => {
    const cases: CommandRef[] = [
      { command: 'card', args: { name: 'index coop' } },
      { command: 'card', args: { name: 'top projects' } },
      { command: 'chart', args: { name: 'bitcoin all', range: '30d' } },
      { command: 'chart', args: { name: 'pol', range: '90d', kind: 'voice' } },
      { command: 'flags', args: { name: 'help' } },
      // A name that is also a section word: quoted, it is the name, not a misspelt section.
      { command: 'card', args: { name: 'voice' } },
      { command: 'card', args: { name: 'security' } },
      // A quoted name whose last word is a section: the closing quote keeps it one name.
      { command: 'card', args: { name: 'chart voice' } },
      { command: 'card', args: { name: 'bitcoin security' } },
    ];
    for (const ref of cases) {
      const text = registry.text(ref);
      expect(parse(text).args, text).toMatchObject(ref.args!);
    }
    expect(registry.text(cases[0]!)).toBe('"index coop"');
  });

  it('refuses what it cannot read with a short sentence, never a guess', () => {
    const refusal = (text: string) => {
      const r = registry.grammar.parse(text);
      expect(r.ok, text).toBe(false);
      return r.ok ? '' : r.message;
    };
    expect(refusal('chart bitcoin 5y')).toBe("Unknown range '5y': use one of 7d, 30d, 90d, 180d, 365d, all.");
    expect(refusal('chrat bitcoin')).toBe("Unknown command 'chrat'. Did you mean 'chart'?");
    expect(refusal('compare bitcoin')).toBe('Name at least two projects or exchanges to compare.');
    expect(refusal('top coins')).toBe("Unknown list 'coins': use exchanges or projects.");
    expect(refusal('digest remove twelve')).toBe("'twelve' is not a digest number.");
    expect(refusal('digest frobnicate')).toMatch(/^Unknown digest command 'frobnicate'/);
  });

  it('holds no command text of any platform: commands name each other as references', () => {
    const root = join(import.meta.dirname, '../../../commands');
    const offenders = files(root).filter(
      (f) => f.endsWith('.ts') && /\/pol\b/.test(readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')),
    );
    expect(offenders).toEqual([]);
  });
});

describe('Discord from the registry', () => {
  const definitions = commandDefinitions(COMMANDS);
  const sub = (command: string, name: string) =>
    (definitions.find((d) => d.name === command) as { options?: { name: string }[] } | undefined)?.options?.find((o) => o.name === name) as
      | { options?: { name: string; required?: boolean; autocomplete?: boolean }[] }
      | undefined;

  it('registers every command as a subcommand, digests under /pol-digest, with options from the declarations', () => {
    const listed = COMMANDS.filter((c) => placeOf(c)).map((c) => placeOf(c)!);
    for (const place of listed) expect(sub(place.command, place.subcommand), `${place.command} ${place.subcommand}`).toBeDefined();
    expect(definitions.map((d) => d.name)).toEqual(['pol', 'pol-digest', 'pol-alert', 'Check with polbot']);
    expect(definitions[1]!.default_member_permissions).toBe('32');
    expect(sub('pol', 'exchange')?.options).toEqual([
      expect.objectContaining({ name: 'name', required: true, autocomplete: true }),
      expect.objectContaining({
        name: 'section',
        required: false,
        choices: [
          { name: 'Transparency', value: 'transparency' },
          { name: 'Security', value: 'security' },
          { name: 'Solvency', value: 'solvency' },
          { name: 'Dashboard', value: 'dashboard' },
          { name: 'Listed assets', value: 'assets' },
        ],
      }),
    ]);
    expect(sub('pol', 'compare')?.options?.map((o) => [o.name, o.required])).toEqual([
      ['a', true],
      ['b', true],
      ['c', false],
      ['d', false],
      ['e', false],
    ]);
  });

  it('turns options into the invocation directly, whatever words the names hold', () => {
    expect(toInvocation(COMMANDS, { command: 'pol', subcommand: 'chart', options: { name: 'bitcoin all', range: '30d' } })).toEqual({
      command: 'chart',
      args: { name: 'bitcoin all', range: '30d' },
    });
    expect(toInvocation(COMMANDS, { command: 'pol', subcommand: 'card', options: { name: 'index coop' } })).toEqual({
      command: 'card',
      args: { name: 'index coop' },
    });
    expect(toInvocation(COMMANDS, { command: 'pol', subcommand: 'compare', options: { a: 'binance', b: 'lido, dao', c: 'okx' } })).toEqual({
      command: 'compare',
      args: { names: ['binance', 'lido, dao', 'okx'] },
    });
    expect(
      toInvocation(COMMANDS, { command: 'pol-digest', subcommand: 'add', options: { names: 'aave, kraken', schedule: 'weekdays' } }),
    ).toEqual({
      command: 'digest-add',
      args: { names: ['aave', 'kraken'], schedule: 'weekdays' },
    });
    expect(toInvocation(COMMANDS, { command: 'pol-digest', subcommand: 'remove', options: { id: 12 } })).toEqual({
      command: 'digest-remove',
      args: { id: 12 },
    });
    expect(toInvocation(COMMANDS, { command: 'pol', subcommand: 'gone', options: {} })).toBeUndefined();
  });

  it("carries a button's command as the invocation itself, and reads it back the same", () => {
    const refs: CommandRef[] = [
      { command: 'chart', args: { name: 'project:bitcoin', range: '365d', kind: 'pol' } },
      { command: 'compare', args: { names: ['a&b=c', 'x?y'] } },
      { command: 'digest-preview', args: { id: '7' } },
      { command: 'trending' },
    ];
    for (const ref of refs) expect(decodeInvocation(encodeInvocation(ref))).toEqual({ command: ref.command, args: ref.args ?? {} });
    expect(decodeInvocation('chart project:bitcoin 365d')).toBeUndefined();
  });
});
