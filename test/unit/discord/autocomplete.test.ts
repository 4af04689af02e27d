import { describe, expect, it } from 'vitest';
import { MAX_CHOICES, discordChoices } from '../../../adapters/discord/autocomplete.js';
import * as kit from '../../../commands/kit/choices.js';
import type { EntityKind, EntityRef } from '../../../src/api/domain.js';

// The kit's suggestions as Discord is sent them.
const entityChoices = (s: kit.Suggest, typed: string, kind?: EntityKind) => discordChoices(kit.entityChoices(s, typed, kind));
const listChoices = (s: kit.Suggest, typed: string) => discordChoices(kit.listChoices(s, typed));
const timeZoneChoices = (typed: string) => discordChoices(kit.timeZoneChoices(typed));

const refs: EntityRef[] = [
  ...Array.from({ length: 40 }, (_, i) => ({ kind: 'exchange' as const, slug: `exchange-${i}`, name: `Exchange ${i}` })),
  { kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' },
  { kind: 'project', slug: 'x'.repeat(120), name: 'Long slug' },
  { kind: 'project', slug: 'evil', name: '@everyone\u202E' },
];
const suggest = (_prefix: string, limit: number) => refs.slice(0, limit);

describe('autocomplete choices', () => {
  it('gives at most 25, each labelled with its kind, valued as an explicit reference', () => {
    const choices = entityChoices(suggest, 'e');
    expect(choices).toHaveLength(MAX_CHOICES);
    expect(choices[0]).toEqual({ name: 'Exchange 0 · exchange', value: 'exchange:exchange-0' });
  });

  it('narrows to projects without the exchanges crowding them out, and skips what Discord cannot carry', () => {
    const choices = entityChoices(suggest, 'b', 'project');
    expect(choices).toEqual([
      { name: 'Bitcoin (BTC) · project', value: 'project:bitcoin' },
      { name: '@\u200beveryone · project', value: 'project:evil' },
    ]);
  });

  it('matches an edited pick by its slug', () => {
    const seen: string[] = [];
    entityChoices((p, n) => {
      seen.push(p);
      return suggest(p, n);
    }, 'project:bitc');
    expect(seen).toEqual(['bitc']);
  });

  it('completes the last name of a comma-separated list', () => {
    const choices = listChoices((p, n) => (p === 'bit' ? refs.filter((r) => r.slug === 'bitcoin') : suggest(p, n)), 'ethereum, bit');
    expect(choices).toEqual([{ name: 'ethereum, Bitcoin (BTC) · project', value: 'ethereum, project:bitcoin' }]);
  });

  it('suggests IANA time zones', () => {
    expect(timeZoneChoices('berlin')).toEqual([{ name: 'Europe/Berlin', value: 'Europe/Berlin' }]);
    expect(timeZoneChoices('')[0]).toEqual({ name: 'UTC', value: 'UTC' });
    expect(timeZoneChoices('america/').length).toBe(MAX_CHOICES);
  });
});
