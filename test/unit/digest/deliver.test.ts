import { describe, expect, it } from 'vitest';
import { DeliveryError, postWithRetry, type Deliverer } from '../../../src/delivery/port.js';
import type { Reply } from '../../../src/reply/model.js';

/** The key travels in the message, as a digest's does in its footer. */
const reply: Reply = { kind: 'text', text: 'k1' };
const fast = { attempts: 4, backoffMs: 1, maxWaitMs: 5 };

function platform(behaviour: (attempt: number) => 'ok' | 'landed-then-timeout' | DeliveryError, searchable = true) {
  const messages: string[] = [];
  let attempts = 0;
  const d: Deliverer = {
    platform: 'slack',
    async post(_channel, posted) {
      const b = behaviour(++attempts);
      if (b instanceof DeliveryError) throw b;
      const key = posted.kind === 'text' && typeof posted.text === 'string' ? posted.text : '';
      messages.push(key);
      if (b === 'landed-then-timeout') throw new Error('socket hang up');
      return String(messages.length);
    },
    update: async () => undefined,
    followUp: async () => undefined,
    ...(searchable ? { find: async (_channel: string, key: string) => (messages.includes(key) ? key : null) } : {}),
  };
  return { d, messages, attempts: () => attempts };
}

describe('posting with retries', () => {
  it('retries transient errors, honouring Retry-After, and stops at the first success', async () => {
    const p = platform((n) => (n < 3 ? new DeliveryError('rate limited', { permanent: false, retryAfterMs: 2 }) : 'ok'));
    await postWithRetry(p.d, 'C1', reply, 'k1', fast);
    expect(p.attempts()).toBe(3);
    expect(p.messages).toEqual(['k1']);
  });

  it('never retries a permanent error', async () => {
    const p = platform(() => new DeliveryError('the channel is archived', { permanent: true }));
    await expect(postWithRetry(p.d, 'C1', reply, 'k1', fast)).rejects.toMatchObject({
      permanent: true,
      reason: 'the channel is archived',
      scope: 'channel',
    });
    expect(p.attempts()).toBe(1);
  });

  it('gives up after the attempt limit with the last reason, as a transient error', async () => {
    const p = platform(() => new DeliveryError('Slack is having trouble (internal_error)', { permanent: false }));
    await expect(postWithRetry(p.d, 'C1', reply, 'k1', fast)).rejects.toMatchObject({
      permanent: false,
      reason: 'Slack is having trouble (internal_error)',
    });
    expect(p.attempts()).toBe(4);
  });

  it('does not post again when a failed attempt landed after all', async () => {
    const p = platform((n) => (n === 1 ? 'landed-then-timeout' : 'ok'));
    await postWithRetry(p.d, 'C1', reply, 'k1', fast);
    expect(p.messages).toEqual(['k1']);
    expect(p.attempts()).toBe(1);
    // Without a way to search the channel, the retry posts again: the documented window.
    const blind = platform((n) => (n === 1 ? 'landed-then-timeout' : 'ok'), false);
    await postWithRetry(blind.d, 'C1', reply, 'k1', fast);
    expect(blind.messages).toEqual(['k1', 'k1']);
  });
});
