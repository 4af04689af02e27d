import { describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../../commands/core/commands.js';
import { createAutocomplete, type AtHand } from '../../../commands/core/complete.js';
import { Registry } from '../../../commands/core/registry.js';
import { defineCommand, str, type Args, type Choice } from '../../../commands/kit/spec.js';
import type { CompletionContext } from '../../../commands/kit/context.js';
import type { EntityKind, EntityRef, RatingParameters } from '../../../src/api/domain.js';
import type { Logger } from '../../../src/log.js';

const refs: EntityRef[] = [
  { kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' },
  { kind: 'exchange', slug: 'bitstamp', name: 'Bitstamp' },
  { kind: 'project', slug: 'bittensor', name: 'Bittensor', ticker: 'TAO' },
];

/** The upstream as completions see it: lists at hand, a cache to peek into, nothing that answers over a network. */
function fakeUpstream(o: { exchangeList?: boolean; cached?: Record<string, unknown> } = {}) {
  const list = vi.fn(async (_kind: EntityKind) => ({ data: [] }));
  const fetched = vi.fn(async () => ({ data: undefined }));
  const source = {
    supports: (method: string, kind?: EntityKind) => method !== 'list' || kind !== 'exchange' || o.exchangeList !== false,
    list,
    ratingParameters: fetched,
    ratingTokens: fetched,
    cache: { peek: (method: string, ...args: unknown[]) => o.cached?.[[method, ...args].join(':')] },
  };
  const resolver = { suggest: (prefix: string, limit: number) => refs.filter((r) => r.slug.startsWith(prefix)).slice(0, limit) };
  return { upstream: { source, resolver } as unknown as AtHand, list, fetched };
}

const silent = () => ({ warn: vi.fn() }) as unknown as Logger & { warn: ReturnType<typeof vi.fn> };

describe('suggestions through the core', () => {
  it("gives a text option's own choices, with the other options already given", async () => {
    const seen: { typed: string; args: Args; ctx: CompletionContext }[] = [];
    const pick = defineCommand({
      name: 'pick',
      order: 99,
      words: ['pick'],
      summary: 'A command that suggests colours by mood',
      examples: ['pick calm c'],
      options: [
        { type: 'choice', name: 'mood', description: 'Mood', choices: [{ value: 'calm' }, { value: 'loud' }] },
        {
          type: 'text',
          name: 'colour',
          description: 'Colour',
          maxLength: 20,
          complete: (ctx, typed, args) => {
            seen.push({ typed, args, ctx });
            const colours = str(args, 'mood') === 'loud' ? ['crimson', 'cyan'] : ['cream', 'celadon'];
            return colours.filter((c) => c.startsWith(typed)).map((c): Choice => ({ label: `${c} (${str(args, 'mood')})`, value: c }));
          },
        },
      ],
      handler: () => ({ kind: 'text', title: 'picked', text: '' }),
    });
    const autocomplete = createAutocomplete(new Registry([...COMMANDS, pick]), fakeUpstream().upstream);

    expect(await autocomplete('pick', 'colour', 'c', { mood: 'loud' })).toEqual([
      { label: 'crimson (loud)', value: 'crimson' },
      { label: 'cyan (loud)', value: 'cyan' },
    ]);
    expect(await autocomplete('pick', 'colour', 'ce', { mood: 'calm' })).toEqual([{ label: 'celadon (calm)', value: 'celadon' }]);
    expect(seen.map((s) => [s.typed, s.args])).toEqual([
      ['c', { mood: 'loud' }],
      ['ce', { mood: 'calm' }],
    ]);
    // An option without suggestions, or one that is not there, offers none.
    expect(await autocomplete('pick', 'mood', 'c', {})).toEqual([]);
    expect(await autocomplete('pick', 'shade', 'c', {})).toEqual([]);
    expect(await autocomplete('nothing', 'colour', 'c', {})).toEqual([]);
  });

  it('answers a failing completion with no choices, and says so in the log', async () => {
    const broken = defineCommand({
      name: 'broken',
      order: 99,
      words: ['broken'],
      summary: 'A command whose suggestions fail',
      examples: ['broken x'],
      options: [
        {
          type: 'text',
          name: 'what',
          description: 'What',
          maxLength: 20,
          complete: () => {
            throw new Error('no');
          },
        },
      ],
      handler: () => ({ kind: 'text', title: 'broken', text: '' }),
    });
    const log = silent();
    expect(await createAutocomplete(new Registry([...COMMANDS, broken]), fakeUpstream().upstream, log)('broken', 'what', 'x', {})).toEqual(
      [],
    );
    expect(log.warn).toHaveBeenCalledOnce();
  });

  it('completes an entity option by its type, narrowed to its kind, and reloads the lists behind the answer at most once a minute', async () => {
    const { upstream, list } = fakeUpstream();
    const autocomplete = createAutocomplete(new Registry(COMMANDS), upstream);
    expect(await autocomplete('card', 'name', 'bit', {})).toEqual([
      { label: 'Bitcoin (BTC) · project', value: 'project:bitcoin' },
      { label: 'Bitstamp · exchange', value: 'exchange:bitstamp' },
      { label: 'Bittensor (TAO) · project', value: 'project:bittensor' },
    ]);
    // Flags are about projects; an edited pick is matched by its slug.
    expect((await autocomplete('flags', 'name', 'project:bit', {})).map((c) => c.value)).toEqual(['project:bitcoin', 'project:bittensor']);
    expect(list.mock.calls.map(([kind]) => kind).sort()).toEqual(['exchange', 'project']);
  });

  it('offers a typed slug as an exchange where the source lists none, and completes the last name of a joined list', async () => {
    const autocomplete = createAutocomplete(new Registry(COMMANDS), fakeUpstream({ exchangeList: false }).upstream);
    expect((await autocomplete('exchange', 'name', 'Kraken', {}))[0]).toEqual({
      label: 'Exchange with the slug “kraken”',
      value: 'exchange:kraken',
    });
    expect((await autocomplete('flags', 'name', 'kraken', {})).some((c) => c.value.startsWith('exchange:'))).toBe(false);
    expect(await autocomplete('digest-add', 'names', 'ethereum, bitc', {})).toEqual([
      { label: 'ethereum, Bitcoin (BTC) · project', value: 'ethereum, project:bitcoin' },
    ]);
  });

  it("completes ratings filters for the list the command's own option names, fetching the filters in the background when none are cached", async () => {
    const params: RatingParameters = {
      sortBy: ['pol', 'rank'],
      filters: [{ name: 'categories', type: 'select', values: ['DeFi', 'Lending'] }],
    };
    const { upstream, fetched } = fakeUpstream({ cached: { 'ratingParameters:exchange': { data: params } } });
    const autocomplete = createAutocomplete(new Registry(COMMANDS), upstream);
    expect(await autocomplete('ratings', 'filters', 'categories=De', { list: 'exchanges' })).toEqual([
      { label: 'categories=DeFi', value: 'categories=DeFi' },
    ]);
    expect(fetched).toHaveBeenCalledTimes(1);
    expect(await autocomplete('ratings', 'filters', 'categories=De', {})).toEqual([]);
    expect(fetched).toHaveBeenCalledTimes(2);
  });
});
