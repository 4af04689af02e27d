import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import type { ChoiceReply, TextReply } from '../../../src/reply/model.js';
import { ask, demoCore } from '../../helpers/core.js';

/** Any date range for a history, checked against the simulator's daily series. */

let core: Core;
beforeAll(async () => {
  core = await demoCore();
});
afterAll(() => core.close());

const DAY = 86_400;
const at = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;

/** The dataset's values for the days from `from` to the end of `to`. */
function between(values: readonly number[], from: string, to: string): number[] {
  const days = core.upstream.sim!.store.data.days;
  return values.filter((_, i) => days[i]! >= at(from) && days[i]! < at(to) + DAY);
}

describe('chart over a date range', () => {
  it('from a date to a date: exactly the PoL of those days', async () => {
    const r = (await ask(core, 'chart bitcoin from 2026-03-01 to 2026-06-30')) as TextReply;
    expect(r.kind).toBe('text');
    expect(r.title).toBe('Bitcoin: Probability of Loss (lower is safer), 2026-03-01 to 2026-06-30');
    const expected = between(core.upstream.sim!.store.project('bitcoin')!.pol, '2026-03-01', '2026-06-30');
    expect(expected.length).toBe(122);
    expect(r.series?.values).toEqual(expected);
    expect(r.image?.kind).toBe('png');
  });

  it('a series without dated routes is cut to the window: Proof of Voice', async () => {
    const r = (await ask(core, 'chart aave from 2026-09-01 to 2026-10-15 voice')) as TextReply;
    expect(r.series?.values).toEqual(between(core.upstream.sim!.store.project('aave')!.voiceScores, '2026-09-01', '2026-10-15'));
  });

  it('since a date, and the last so many days, for categories and metrics', async () => {
    const since = (await ask(core, 'chart bitcoin since 2026-10-01 categories')) as TextReply;
    expect(since.title).toBe('Bitcoin: category quality scores (higher is better), since 2026-10-01');
    expect(since.image?.kind).toBe('png');
    const last = (await ask(core, 'chart pepe last 45d metrics')) as TextReply;
    expect(last.title).toBe('Pepe: metric quality scores (higher is better), last 45 days');
    expect(last.image?.kind).toBe('png');
  });

  it('the project index over a window of dates, and over a range', async () => {
    const index = core.upstream.sim!.store.indexPol('project');
    const r = (await ask(core, 'index from 2026-03-01 to 2026-06-30')) as TextReply;
    expect(r.series?.values).toEqual(between(index, '2026-03-01', '2026-06-30'));
    expect(r.image?.kind).toBe('png');
    const year = (await ask(core, 'index 365d')) as TextReply;
    // A year back from today, the bounds included: the last 365 or 366 days of the dataset.
    const shown = year.series?.values ?? [];
    expect([365, 366]).toContain(shown.length);
    expect(shown).toEqual(index.slice(-shown.length));
    expect(await ask(core, 'index from 2026-06-30 to 2026-03-01')).toMatchObject({
      kind: 'error',
      message: 'The dates run backwards: 2026-06-30 comes after 2026-03-01. Try from 2026-03-01 to 2026-06-30.',
    });
  });

  it('keeps the dates through a choice between names', async () => {
    const r = (await ask(core, 'chart shiba from 2026-03-01 to 2026-06-30')) as ChoiceReply;
    expect(r.kind).toBe('choice');
    for (const o of r.options) expect(o.command).toMatch(/^chart project:shiba[a-z-]* from 2026-03-01 to 2026-06-30$/);
  });

  it.each([
    [
      'chart bitcoin from 2026-06-30 to 2026-03-01',
      'The dates run backwards: 2026-06-30 comes after 2026-03-01. Try from 2026-03-01 to 2026-06-30.',
    ],
    ['chart bitcoin from 2026-02-30', "'2026-02-30' is not a start date: use YYYY-MM-DD."],
    ['chart bitcoin from 03/01/2026', "'03/01/2026' is not a start date: use YYYY-MM-DD."],
    ['chart bitcoin to 2026-01-01', "'to 2026-01-01' needs a start: add 'from YYYY-MM-DD'."],
    ['chart bitcoin 365d from 2026-01-01', 'Give either a range (365d) or dates, not both.'],
    ['chart bitcoin last 0d', "'0d' is not a length: use a number and d, w, m or y, like 45d."],
    ['chart bitcoin last 45d from 2026-01-01', "Give either 'last' or dates, not both."],
    ['chart bitcoin from', "'from' needs a value after it, e.g. 'from YYYY-MM-DD'."],
  ])('%s: a short correction, never a guess', async (text, message) => {
    const r = await ask(core, text);
    expect(r).toMatchObject({ kind: 'error', message });
  });

  it('a window in the future is refused, naming today', async () => {
    const today = new Date(Date.now()).toISOString().slice(0, 10);
    const r = await ask(core, 'chart bitcoin from 2099-01-01');
    expect(r).toMatchObject({ kind: 'error', message: `2099-01-01 is in the future: the history ends today, ${today}.` });
  });
});
