import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INTENTS } from '../../../src/intents/table.js';
import { closest, normalise, understand } from '../../../src/intents/understand.js';

/**
 * The intent table, one family at a time: each question below is what people ask, with the
 * command it must become, written out by hand (never derived from the table). A property test then
 * checks that whatever name is put into any family's question, the command carries that name as
 * typed and no other, so resolution downstream sees exactly what was named.
 */

const cases: Record<string, [string, unknown][]> = {
  card: [
    ['is binance safe?', { command: 'card', args: { name: 'binance' } }],
    ['Is Binance safe to use?', { command: 'card', args: { name: 'binance' } }],
    ['how risky is pepe', { command: 'card', args: { name: 'pepe' } }],
    ["what's the PoL of lido dao", { command: 'card', args: { name: 'lido dao' } }],
    ['What’s the rating for Kraken?', { command: 'card', args: { name: 'kraken' } }],
    ["what is uniswap's pol", { command: 'card', args: { name: 'uniswap' } }],
    ['@polbot hey, is gate-io legit?', { command: 'card', args: { name: 'gate-io' } }],
  ],
  compare: [
    ['compare binance and kraken', { command: 'compare', args: { names: ['binance', 'kraken'] } }],
    ['binance vs okx', { command: 'compare', args: { names: ['binance', 'okx'] } }],
    ['Binance vs. OKX?', { command: 'compare', args: { names: ['binance', 'okx'] } }],
    ['which is safer, aave or compound', { command: 'compare', args: { names: ['aave', 'compound'] } }],
    ['is kraken safer than coinbase', { command: 'compare', args: { names: ['kraken', 'coinbase'] } }],
  ],
  why: [
    ['why is pepe so risky', { command: 'why', args: { name: 'pepe' } }],
    ["why is binance's pol so high?", { command: 'why', args: { name: 'binance' } }],
    ['explain aave’s rating', { command: 'why', args: { name: 'aave' } }],
  ],
  reserves: [
    ["show me kraken's reserves", { command: 'section', args: { name: 'kraken', section: 'solvency' } }],
    ['what are okx’s reserves', { command: 'section', args: { name: 'okx', section: 'solvency' } }],
    ['is bybit solvent?', { command: 'section', args: { name: 'bybit', section: 'solvency' } }],
    ['proof of reserves for gate-io', { command: 'section', args: { name: 'gate-io', section: 'solvency' } }],
  ],
  flags: [
    ['any red flags on uniswap?', { command: 'flags', args: { name: 'uniswap' } }],
    ['are there red flags for pepe', { command: 'flags', args: { name: 'pepe' } }],
    ['does aave have any red flags?', { command: 'flags', args: { name: 'aave' } }],
  ],
  changed: [
    ['what changed for aave this month', { command: 'chart', args: { name: 'aave', range: '30d', kind: 'categories' } }],
    ["what's changed with binance this week?", { command: 'chart', args: { name: 'binance', range: '7d', kind: 'categories' } }],
    ['what changed for lido dao lately', { command: 'chart', args: { name: 'lido dao', range: '30d', kind: 'categories' } }],
    ['how has kraken moved over the last year', { command: 'chart', args: { name: 'kraken', range: '365d', kind: 'categories' } }],
  ],
  top: [
    ['top exchanges', { command: 'top', args: { list: 'exchanges' } }],
    ['what are the safest projects?', { command: 'top', args: { list: 'projects' } }],
    ['show me the best rated exchanges', { command: 'top', args: { list: 'exchanges' } }],
  ],
};

describe('plain questions as commands', () => {
  for (const [family, questions] of Object.entries(cases)) {
    it(`understands the ${family} family`, () => {
      for (const [question, command] of questions) expect(understand(question), question).toEqual({ family, command });
    });
  }

  it('covers every family of the table with a test above', () => {
    expect(INTENTS.map((i) => i.family).sort()).toEqual(Object.keys(cases).sort());
  });

  it('maps what it does not understand to nothing, never to a guess', () => {
    for (const question of [
      'hello',
      'what is the weather',
      'is',
      'is safe?',
      'compare',
      'compare and',
      'vs',
      'why is',
      'top',
      'thanks!',
      '',
    ]) {
      expect(understand(question), question).toBeNull();
    }
  });

  it('offers the three families closest to an unmatched question, with a name it mentioned', () => {
    expect(closest('tell me about reserves and solvency of kraken exchange', 'kraken')).toEqual([
      "show me kraken's reserves",
      'compare binance and kraken',
      'why is kraken so risky',
    ]);
    expect(closest('something else entirely')).toEqual([
      'compare binance and kraken',
      'why is binance so risky',
      "show me binance's reserves",
    ]);
  });

  it('normalises case, apostrophes, greetings and closing punctuation', () => {
    expect(normalise('  Hey polbot, PLEASE   is Binance safe?!  ')).toBe('is binance safe');
    expect(normalise('What’s up')).toBe("what's up");
  });

  it('never answers with a name that was not in the question: whatever is named is passed on as typed', () => {
    // Names as people type them: letters, digits, dots, dashes and inner spaces.
    const nameArb = fc
      .stringMatching(/^[a-z0-9][a-z0-9.\- ]{0,18}[a-z0-9]$/)
      .filter((n) => !/\s{2}/.test(n) && !/\b(?:and|vs|or|with|to|than|the|versus|against|this|last|lately|recently|so|s)\b/.test(n));
    const oneName = INTENTS.filter((i) => i.example.includes('{name}'));
    fc.assert(
      fc.property(fc.constantFrom(...oneName), nameArb, (intent, name) => {
        const understood = understand(intent.example.replace('{name}', name));
        const named = understood?.command.args?.name;
        expect(named === undefined || named === name.trim(), `${intent.family}: ${name} -> ${String(named)}`).toBe(true);
        if (understood) expect(understood.family).toBe(intent.family);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(nameArb, nameArb, (a, b) => {
        const understood = understand(`compare ${a} and ${b}`);
        expect(understood?.command.args?.names ?? [a.trim(), b.trim()]).toEqual([a.trim(), b.trim()]);
      }),
      { numRuns: 300 },
    );
  });
});
