import { describe, expect, it } from 'vitest';
import { onePerTurn } from '../../../adapters/slack/one-per-turn.js';

describe('onePerTurn', () => {
  it('lets waiters go in order, one per turn of the event loop, however many wait at once', async () => {
    // Counts turns of the event loop: every check phase moves it on by one.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);

    const myTurn = onePerTurn();
    const released: { who: number; turn: number }[] = [];
    await Promise.all(Array.from({ length: 5 }, (_, who) => myTurn().then(() => void released.push({ who, turn: turns }))));
    ticking = false;

    expect(released.map((r) => r.who)).toEqual([0, 1, 2, 3, 4]);
    for (let i = 1; i < released.length; i++) expect(released[i]!.turn).toBeGreaterThan(released[i - 1]!.turn);
    // And a later waiter, after the queue ran dry, is let go too.
    await expect(myTurn()).resolves.toBeUndefined();
  });
});
