import { describe, expect, it } from 'vitest';
import { discordChoices, MAX_CHOICES } from '../../../adapters/discord/autocomplete.js';
import { completionOf, POL, POL_DIGEST } from '../../../adapters/discord/commands.js';
import { COMMANDS } from '../../../commands/core/index.js';

describe('Discord autocomplete, asked of the core', () => {
  it("names the registry's command and option, with the other options given as arguments", () => {
    // Compare's slots are its one list option; the other slots are the names already given.
    expect(completionOf(COMMANDS, { command: POL, subcommand: 'compare', options: { a: 'binance', b: 'kra' } }, 'b')).toEqual({
      command: 'compare',
      option: 'names',
      args: { names: ['binance'] },
    });
    expect(
      completionOf(COMMANDS, { command: POL, subcommand: 'ratings', options: { list: 'exchanges', filters: 'categories=De' } }, 'filters'),
    ).toEqual({ command: 'ratings', option: 'filters', args: { list: 'exchanges' } });
    expect(completionOf(COMMANDS, { command: POL_DIGEST, subcommand: 'add', options: { names: 'bitcoin, eth' } }, 'names')).toMatchObject({
      command: 'digest-add',
      option: 'names',
    });
    expect(completionOf(COMMANDS, { command: POL, subcommand: 'card', options: { z: 'x' } }, 'z')).toBeUndefined();
    expect(completionOf(COMMANDS, { command: POL, subcommand: 'nothing', options: { name: 'x' } }, 'name')).toBeUndefined();
  });

  it("fits the core's choices to Discord: at most 25, labels clipped and made plain, values too long left out", () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ label: `Choice ${i}`, value: `v${i}` }));
    expect(discordChoices(many)).toHaveLength(MAX_CHOICES);
    const shaped = discordChoices([
      { label: 'x'.repeat(150), value: 'long-label' },
      { label: 'Too long', value: 'v'.repeat(101) },
      { label: '@everyone', value: 'everyone' },
    ]);
    expect(shaped.map((c) => c.value)).toEqual(['long-label', 'everyone']);
    expect(shaped[0]!.name).toHaveLength(100);
    expect(shaped[0]!.name.endsWith('…')).toBe(true);
    expect(shaped[1]!.name).toBe('@\u200beveryone');
  });
});
