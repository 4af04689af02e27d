import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreText } from '../../helpers/truth.js';
import type { CardReply, ChoiceReply } from '../../../src/reply/model.js';
import { SimStore } from '../../../src/sim/data/store.js';
import { ask, demoCore } from '../../helpers/core.js';
import { slackText } from '../../helpers/core.js';
import { TEST_AS_OF } from '../../helpers/sim.js';

const BIN = join(import.meta.dirname, '../../../bin/polbot.js');

describe('the core on each source', () => {
  it('answers through the MCP tool server with REST filling the gaps', async () => {
    const core = await demoCore({ POL_SOURCE: 'mcp' });
    try {
      const store = core.upstream.sim!.store;
      const card = (await ask(core, 'aave')) as CardReply;
      expect(card.kind).toBe('card');
      expect(card.footer.sources).toEqual(['mcp', 'rest']);
      const security = card.sections.find((s) => s.title === 'Category quality scores')!.fields!.find((f) => f.label === 'Security')!;
      expect(security.value).toBe(scoreText(store.project('aave')!.categories.security.scores.at(-1)!));
      expect(core.upstream.sim!.counter.tool('get_project_security_score')).toBeGreaterThan(0);
      expect(((await ask(core, 'shiba')) as ChoiceReply).kind).toBe('choice');
    } finally {
      await core.close();
    }
  });

  it('works with the tool server alone: category scores, no overall PoL, exchanges by slug only', async () => {
    // A generous deadline: the first call also starts the tool server as a child process.
    const core = await demoCore({
      POL_TIMEOUT_MS: '20000',
      POL_SOURCE: 'mcp',
      POL_MCP_COMMAND: `node ${BIN} sim --mcp-stdio --as-of 2026-11-22`,
    });
    try {
      expect(core.upstream.sim).toBeNull();
      const store = new SimStore({ seed: 42, asOf: TEST_AS_OF });
      const card = (await ask(core, 'aave')) as CardReply;
      expect(card.kind).toBe('card');
      expect(card.headline.value).toBe('unavailable');
      expect(card.headline.change?.text).toMatch(/not available through the tool server/);
      const scores = card.sections.find((s) => s.title === 'Category quality scores')!;
      expect(scores.fields!.find((f) => f.label === 'Financial')!.value).toBe(
        scoreText(store.project('aave')!.categories.financial.scores.at(-1)!),
      );
      expect(card.footer).toMatchObject({ sources: ['mcp'], simulated: true });
      const byName = (await ask(core, 'binance')) as ChoiceReply;
      expect(byName).toMatchObject({ kind: 'choice', reason: 'not_found' });
      expect(slackText(byName.note)).toMatch(/\/pol exchange <slug>/);
      const bySlug = (await ask(core, 'exchange binance')) as CardReply;
      expect(bySlug.kind).toBe('card');
      expect(bySlug.entity).toMatchObject({ kind: 'exchange', slug: 'binance' });
      expect((await ask(core, 'top exchanges')).kind).toBe('error');
    } finally {
      await core.close();
    }
  }, 60_000);

  it('marks a card stale, with its age, when the upstream fails after a good answer', async () => {
    const core = await demoCore(
      {},
      { cache: { ttl: { polCurrent: 1, polChart: 1, byCategory: 1, record: 1, liabilitiesReservesChart: 1, indexPol: 1 } } },
    );
    try {
      const fresh = (await ask(core, 'kraken')) as CardReply;
      expect(fresh.footer.stale).toBeUndefined();
      await new Promise((r) => setTimeout(r, 30));
      core.upstream.sim!.faults.set({ errorRate: 1 });
      const stale = (await ask(core, 'kraken')) as CardReply;
      expect(stale.kind).toBe('card');
      expect(stale.headline.value).toBe(fresh.headline.value);
      expect(stale.footer.stale?.ageMs).toBeGreaterThanOrEqual(20);
      core.upstream.sim!.faults.reset();
    } finally {
      await core.close();
    }
  });
});
