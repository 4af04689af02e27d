import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ratingForPol } from '../../../src/sim/data/scales.js';
import { postToBolt } from '../../fakes/slack/index.js';
import { SIGNING_SECRET, quiesce, startHarness, type Harness } from '../../helpers/slack/harness.js';

/**
 * The Workflow Builder step "Get risk score", through the real Bolt app and the fake Slack, which
 * checks each completion against the step the product's manifest declares: a name completes with
 * the simulator's own PoL (a probability), rating, slug and kind; an ambiguous or unknown name
 * fails the step with the words a person gets, never with a guess.
 */

let h: Harness;
const WAIT = 10_000;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await quiesce(h);
  await h.close();
});

async function run(name: string) {
  const { body, executionId } = h.fake.functions.execute('get_risk_score', { name });
  await postToBolt(h.endpoint, body, SIGNING_SECRET, { contentType: 'application/json' });
  const deadline = Date.now() + WAIT;
  while (!h.fake.functions.outcome(executionId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return h.fake.functions.outcome(executionId);
}

describe('the Get risk score workflow step', () => {
  it('completes with the dataset’s PoL as a probability, the rating, a summary, the slug and the kind', async () => {
    const binance = h.sim.store.exchange('binance')!;
    const outcome = await run('Binance');
    expect(outcome).toEqual({
      ok: true,
      outputs: {
        pol: binance.pol.at(-1),
        // The simulator's own scale for the rating its REST service gives that PoL.
        rating: ratingForPol(binance.pol.at(-1)!),
        summary: expect.stringContaining('Binance: Probability of Loss'),
        slug: 'binance',
        kind: 'exchange',
      },
    });
  });

  it('fails with the candidates for a name that could be several, and says so for one it does not know', async () => {
    const lido = await run('lido');
    expect(lido).toMatchObject({ ok: false });
    expect(lido && !lido.ok && lido.error).toContain('Lido DAO');
    expect(lido && !lido.ok && lido.error).toContain('Lido Staked Ether');
    const unknown = await run('zzqxcoin');
    expect(unknown).toMatchObject({ ok: false, error: expect.stringContaining('zzqxcoin') });
  });

  it('is held to the outputs the step declares, as Slack holds it', async () => {
    const { executionId } = h.fake.functions.execute('get_risk_score', { name: 'binance' });
    const call = (outputs: unknown) =>
      fetch(`${h.fake.url}functions.completeSuccess`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.fake.botToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ function_execution_id: executionId, outputs }),
      }).then((r) => r.json() as Promise<{ ok: boolean; error?: string }>);
    expect(await call({ pol: 0.1, rating: 'A', summary: 's', slug: 'binance', kind: 'exchange', extra: 1 })).toEqual({
      ok: false,
      error: 'invalid_output_parameters',
    });
    expect(await call({ pol: '0.1', rating: 'A', summary: 's', slug: 'binance', kind: 'exchange' })).toEqual({
      ok: false,
      error: 'invalid_output_parameters',
    });
    expect(await call({ pol: 0.1, rating: 'A' })).toEqual({ ok: false, error: 'invalid_output_parameters' });
    expect(await call({ pol: 0.1, rating: 'A', summary: 's', slug: 'binance', kind: 'exchange' })).toEqual({ ok: true });
    expect(await call({ pol: 0.1, rating: 'A', summary: 's', slug: 'binance', kind: 'exchange' })).toEqual({
      ok: false,
      error: 'function_execution_already_completed',
    });
  });
});
