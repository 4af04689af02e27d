import { describe, expect, it } from 'vitest';
import type { CardReply } from '../../../src/reply/model.js';
import { polText } from '../../helpers/truth.js';
import { demoCore } from '../../helpers/core.js';

const TIMEOUT_MS = 700;

const timed = async <T>(work: Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
};

describe('the tool server connection after a stall', () => {
  it('abandons a handshake the tool server does not answer: REST answers meanwhile, and the tool server again once it is back', async () => {
    const core = await demoCore({ POL_SOURCE: 'mcp', POL_TIMEOUT_MS: String(TIMEOUT_MS), RATE_LIMIT_PER_USER: '0' });
    try {
      const sim = core.upstream.sim!;
      const { source } = core.upstream;
      expect((await core.run('project aave')).reply.kind).toBe('card');
      source.cache.clear();

      // A 503 makes the client drop its connection and reconnect; the tool server then takes 20 s
      // to answer the new handshake, far longer than any command waits.
      sim.faults.next('/mcp', { kind: 'status', status: 503 });
      sim.faults.next('/mcp', { kind: 'delay', ms: 20_000 });
      const during = await timed(core.run('project aave'));
      expect(during.value.reply).toMatchObject({ kind: 'card', headline: { value: polText(sim.store.project('aave')!.pol.at(-1)!) } });
      expect(during.ms).toBeLessThan(TIMEOUT_MS * 3);

      // Both scripted faults are used up: the tool server answers normally again.
      source.cache.clear();
      const after = await timed(core.run('project aave'));
      const card = after.value.reply as CardReply;
      expect(card.kind).toBe('card');
      expect(card.headline.value).toBe(polText(sim.store.project('aave')!.pol.at(-1)!));
      expect(card.footer.stale).toBeUndefined();
      expect(after.ms).toBeLessThan(TIMEOUT_MS * 2);
    } finally {
      await core.close();
    }
  });
});
