import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Handover } from '../../../adapters/slack/ingress/handover.js';

/** Polls until `done` holds, so a slow machine waits longer instead of failing. */
async function until(done: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('handing acknowledged events to the main thread', () => {
  it('hands over a command that arrives alone at once', () => {
    const delivered: string[] = [];
    const handover = new Handover<string>((item) => delivered.push(item), { quietMs: 50, maxHoldMs: 1_000 });
    handover.offer('alone');
    expect(delivered).toEqual(['alone']);
    handover.close();
  });

  it('holds the rest of a burst until arrivals pause, then hands all of it over in order', async () => {
    const delivered: string[] = [];
    const handover = new Handover<string>((item) => delivered.push(item), { quietMs: 50, maxHoldMs: 10_000 });
    for (const item of ['a', 'b', 'c', 'd']) handover.offer(item);
    expect(delivered).toEqual(['a']);
    await until(() => delivered.length === 4, 'the held commands');
    expect(delivered).toEqual(['a', 'b', 'c', 'd']);
    handover.close();
  });

  it('hands a steady flood over once the oldest held command has waited its longest', async () => {
    const delivered: string[] = [];
    // Arrivals never pause for 10 s here: only the longest hold can release them.
    const handover = new Handover<string>((item) => delivered.push(item), { quietMs: 10_000, maxHoldMs: 30 });
    handover.offer('a');
    handover.offer('b');
    expect(delivered).toEqual(['a']);
    await sleep(40);
    handover.offer('c');
    expect(delivered).toEqual(['a', 'b', 'c']);
    handover.offer('d');
    expect(delivered).toEqual(['a', 'b', 'c']);
    handover.close();
    expect(delivered).toEqual(['a', 'b', 'c', 'd']);
  });

  it('loses nothing it holds when closed, and holds nothing after', () => {
    const delivered: string[] = [];
    const handover = new Handover<string>((item) => delivered.push(item), { quietMs: 10_000, maxHoldMs: 10_000 });
    handover.offer('a');
    handover.offer('b');
    handover.offer('c');
    handover.close();
    expect(delivered).toEqual(['a', 'b', 'c']);
    handover.offer('late');
    handover.offer('later');
    expect(delivered).toEqual(['a', 'b', 'c', 'late', 'later']);
  });
});
