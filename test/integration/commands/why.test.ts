import { describe, expect, it } from 'vitest';
import type { CardReply } from '../../../src/reply/model.js';
import { byMetric } from '../../../src/sim/views/entity.js';
import { ask, useRestAndToolsOnly } from '../../helpers/core.js';
import { polText, scoreText } from '../../helpers/truth.js';

/** "Why this PoL", checked against the simulator's own metric breakdown. */

const cores = useRestAndToolsOnly();

const last = <T>(a: readonly T[]) => a[a.length - 1]!;
const section = (r: CardReply, title: string) => r.sections.find((s) => s.title === title);

describe('why this PoL', () => {
  it.each([
    ['project', 'pepe'],
    ['exchange', 'binance'],
  ] as const)('%s %s: the heaviest poor metrics push PoL up, the heaviest good ones hold it down', async (kind, slug) => {
    const store = cores.rest.upstream.sim!.store;
    const entity = store.entity(kind, slug)!;
    const metrics = byMetric(store, entity).metrics;
    // The rule, stated independently: weight × (100 − score) pushes up; weight × score holds down, from a score of 50.
    const up = [...metrics].sort((a, b) => b.weight * (100 - b.score.score) - a.weight * (100 - a.score.score)).slice(0, 3);
    const down = metrics
      .filter((m) => !up.includes(m) && m.score.score >= 50)
      .sort((a, b) => b.weight * b.score.score - a.weight * a.score.score)
      .slice(0, 3);

    const r = (await ask(cores.rest, `why ${slug}`)) as CardReply;
    expect(r.kind).toBe('card');
    expect(r.headline).toMatchObject({ label: 'Probability of Loss', value: polText(last(entity.pol)), direction: 'lower is safer' });
    expect(section(r, 'Pushing PoL up')?.fields?.map((f) => [f.label, f.value])).toEqual(
      up.map((m) => [m.label, `${scoreText(m.score.score)} / 100`]),
    );
    const held = section(r, 'Holding PoL down')!;
    if (down.length)
      expect(held.fields?.map((f) => [f.label, f.value])).toEqual(down.map((m) => [m.label, `${scoreText(m.score.score)} / 100`]));
    else expect(held.empty).toBe('no metric scores 50 or more');
    expect(r.image?.kind).toBe('png');
  });

  it('every card offers "Why?" where the source has the breakdown, and not through the tool server alone', async () => {
    const card = (await ask(cores.rest, 'project pepe')) as CardReply;
    expect(card.actions?.find((a) => a.label === 'Why?')?.command).toBe('why project:pepe');
    const exchange = (await ask(cores.rest, 'exchange kraken')) as CardReply;
    expect(exchange.actions?.find((a) => a.label === 'Why?')?.command).toBe('why exchange:kraken');
    const toolsCard = (await ask(cores.tools, 'project pepe')) as CardReply;
    expect(toolsCard.actions?.some((a) => a.label === 'Why?')).toBe(false);
  });

  it('through the tool server alone, says plainly that it needs the REST service', async () => {
    const r = await ask(cores.tools, 'why pepe');
    expect(r).toMatchObject({
      kind: 'text',
      text: 'The metric breakdown behind a PoL needs the REST service; the tool server has no tool for it.',
    });
  });
});
