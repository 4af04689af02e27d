import { expect } from 'vitest';
import type { ReceiverControls } from '../fakes/http-receiver/server.js';

/**
 * Two sends a fake holds, the first asked to lose its answer and the second its request, whose
 * clients then die while held. Resolves once the fake has settled both, having checked that
 * nothing was done with either while they were held.
 */
export async function holdThenDrop(
  fake: ReceiverControls,
  send: (which: 'answer-lost' | 'never-arrived', signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  fake.holdNext({ lose: 'response' });
  fake.holdNext({ lose: 'request' });
  const clients = { 'answer-lost': new AbortController(), 'never-arrived': new AbortController() };
  const first = send('answer-lost', clients['answer-lost'].signal);
  await expect.poll(() => fake.held()).toBe(1);
  const second = send('never-arrived', clients['never-arrived'].signal);
  await expect.poll(() => fake.held()).toBe(2);
  // Held, nothing is done, however long the client waits.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(fake.calls()).toEqual([]);
  for (const client of Object.values(clients)) client.abort();
  await expect(first).rejects.toThrow(/abort/i);
  await expect(second).rejects.toThrow(/abort/i);
  await expect.poll(() => fake.calls().length).toBe(2);
  expect(fake.held()).toBe(0);
}
