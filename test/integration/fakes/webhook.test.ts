import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeWebhook, signWebhook, startFakeWebhook, WEBHOOK_EVENT_TYPES } from '../../fakes/webhook/index.js';
import { holdThenDrop } from '../../helpers/held.js';

/**
 * Each rule of the fake webhook receiver, shown refusing a forgery, a stale or replayed delivery
 * and accepting the genuine one, over real HTTP with the headers polbot will send.
 */

let hook: FakeWebhook;

beforeAll(async () => {
  hook = await startFakeWebhook();
});
afterAll(async () => {
  await hook.close();
});
beforeEach(() => {
  hook.clear();
  hook.clearFaults();
});

const event = (id: string, overrides: Record<string, unknown> = {}) => ({
  id,
  type: 'incident.opened',
  occurred_at: '2026-05-01T09:30:00.000Z',
  incident: { id: 12, name: 'Binance', value: '6.2%' },
  rule: { id: 3, condition: 'pol above 5%' },
  ...overrides,
});

interface Delivery {
  /** The body sent; by default the JSON of `body`. */
  raw?: string;
  /** The body signed, when it differs from the one sent (a tampered request). */
  signed?: string;
  secret?: string;
  timestampSec?: number;
  eventId?: string;
  headers?: Record<string, string | null>;
  signal?: AbortSignal;
}

async function deliver(body: { id: string } & Record<string, unknown>, d: Delivery = {}) {
  const raw = d.raw ?? JSON.stringify(body);
  const signed = signWebhook(d.secret ?? hook.secret, d.signed ?? raw, d.eventId ?? body.id, d.timestampSec);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...signed };
  for (const [name, value] of Object.entries(d.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  const res = await fetch(hook.url, { method: 'POST', headers, body: raw, ...(d.signal ? { signal: d.signal } : {}) });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined };
}

const nowSec = () => Math.floor(Date.now() / 1000);

describe('fake webhook receiver verifies the signature', () => {
  it('accepts a well-signed event with 200 and keeps it', async () => {
    expect(await deliver(event('evt_1'))).toEqual({ status: 200, retryAfter: null, body: { accepted: true, id: 'evt_1' } });
    expect(hook.events()).toMatchObject([
      {
        id: 'evt_1',
        type: 'incident.opened',
        deliveries: 1,
        event: { incident: { id: 12, name: 'Binance', value: '6.2%' }, rule: { id: 3 } },
      },
    ]);
  });

  it('refuses a tampered body with 401 and keeps nothing', async () => {
    const genuine = JSON.stringify(event('evt_2'));
    const tampered = genuine.replace('6.2%', '0.1%');
    expect(await deliver(event('evt_2'), { raw: tampered, signed: genuine })).toEqual({
      status: 401,
      retryAfter: null,
      body: { error: 'signature does not match' },
    });
    expect(hook.events()).toEqual([]);
    // The same bytes, signed as sent, are taken: it was the tampering that was refused.
    expect((await deliver(event('evt_2'), { raw: tampered })).status).toBe(200);
  });

  it('refuses a signature made with another secret, a malformed one and none at all', async () => {
    expect(await deliver(event('evt_3'), { secret: 'whsec_not-the-destination-secret' })).toMatchObject({
      status: 401,
      body: { error: 'signature does not match' },
    });
    expect(await deliver(event('evt_3'), { headers: { 'X-Polbot-Signature': 'v1=zz' } })).toMatchObject({
      status: 401,
      body: { error: 'signature does not match' },
    });
    const hex = signWebhook(hook.secret, JSON.stringify(event('evt_3')), 'evt_3')['X-Polbot-Signature'].slice(3);
    expect(await deliver(event('evt_3'), { headers: { 'X-Polbot-Signature': `v0=${hex}` } })).toMatchObject({ status: 401 });
    expect(await deliver(event('evt_3'), { headers: { 'X-Polbot-Signature': null } })).toMatchObject({
      status: 401,
      body: { error: 'missing X-Polbot-Signature' },
    });
    expect(hook.events()).toEqual([]);
  });

  it('refuses a timestamp more than 5 minutes from its clock, either way; 299 s passes', async () => {
    const stale = { status: 401, retryAfter: null, body: { error: "X-Polbot-Timestamp is more than 300 s from the receiver's clock" } };
    expect(await deliver(event('evt_old'), { timestampSec: nowSec() - 301 })).toEqual(stale);
    expect(await deliver(event('evt_future'), { timestampSec: nowSec() + 302 })).toEqual(stale);
    expect(await deliver(event('evt_none'), { headers: { 'X-Polbot-Timestamp': null } })).toMatchObject({
      status: 401,
      body: { error: 'missing or malformed X-Polbot-Timestamp' },
    });
    expect(hook.events()).toEqual([]);
    // A second of slack: the clock may tick between signing and checking.
    expect((await deliver(event('evt_edge'), { timestampSec: nowSec() - 299 })).status).toBe(200);
  });

  it('moves its clock on, so a delivery signed now is stale once the tolerance has passed', async () => {
    const late = await startFakeWebhook({ toleranceSec: 60 });
    try {
      const body = JSON.stringify(event('evt_late'));
      const post = () =>
        fetch(late.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signWebhook(late.secret, body, 'evt_late', timestampSec) },
          body,
        });
      const timestampSec = nowSec();
      late.advanceClock(62_000);
      expect((await post()).status).toBe(401);
      late.advanceClock(-62_000);
      expect((await post()).status).toBe(200);
    } finally {
      await late.close();
    }
  });
});

describe('fake webhook receiver refuses replays', () => {
  it('acknowledges a retry of the same id and body as a duplicate, counted once', async () => {
    const body = event('evt_r');
    expect((await deliver(body)).status).toBe(200);
    // A retry is signed afresh, a second later, with the very same bytes.
    expect(await deliver(body, { timestampSec: nowSec() + 1 })).toEqual({
      status: 200,
      retryAfter: null,
      body: { duplicate: true, id: 'evt_r' },
    });
    expect(hook.events()).toHaveLength(1);
    expect(hook.events()[0]).toMatchObject({ id: 'evt_r', deliveries: 2 });
  });

  it('refuses another body under an id already accepted with 409', async () => {
    expect((await deliver(event('evt_c'))).status).toBe(200);
    expect(await deliver(event('evt_c', { type: 'incident.resolved' }))).toEqual({
      status: 409,
      retryAfter: null,
      body: { error: 'event id already accepted with a different body', id: 'evt_c' },
    });
    // Same fields, other bytes (another key order) is another body too: a retry resends the bytes first sent.
    const { rule, ...rest } = event('evt_c');
    expect((await deliver(event('evt_c'), { raw: JSON.stringify({ rule, ...rest }) })).status).toBe(409);
    expect(hook.events()).toMatchObject([{ id: 'evt_c', type: 'incident.opened', deliveries: 1 }]);
  });

  it('keeps accepted events in the order accepted', async () => {
    const types = WEBHOOK_EVENT_TYPES;
    for (const [n, type] of types.entries()) expect((await deliver(event(`evt_o${n}`, { type }))).status).toBe(200);
    expect(hook.events().map((e) => [e.id, e.type])).toEqual(types.map((type, n) => [`evt_o${n}`, type]));
  });
});

describe('fake webhook receiver checks the event', () => {
  it('refuses a body that is not an event, and an Event-Id header that differs from the body', async () => {
    expect(await deliver(event('evt_s', { type: 'incident.exploded', occurred_at: 'yesterday', rule: null }))).toEqual({
      status: 400,
      retryAfter: null,
      body: {
        error: 'invalid event',
        errors: [
          'type must be one of incident.opened, incident.escalated, incident.acknowledged, incident.snoozed, incident.resolved, incident.cleared',
          'occurred_at must be an ISO 8601 date-time',
          'rule must be an object',
        ],
      },
    });
    expect(await deliver(event('evt_s'), { eventId: 'evt_other' })).toMatchObject({
      status: 400,
      body: { error: 'X-Polbot-Event-Id differs from the body id' },
    });
    expect(await deliver(event('evt_s'), { raw: 'not json' })).toMatchObject({ status: 400, body: { error: 'body is not JSON' } });
    expect(await deliver(event('evt_s'), { headers: { 'content-type': 'text/plain' } })).toMatchObject({ status: 415 });
    expect(hook.events()).toEqual([]);
  });

  it('answers other paths with 404 and other methods with 405', async () => {
    expect((await fetch(new URL('/elsewhere', hook.url), { method: 'POST' })).status).toBe(404);
    expect((await fetch(hook.url)).status).toBe(405);
  });
});

describe('fake webhook receiver fails when a test asks it to', () => {
  it('answers 429 for the next N, with Retry-After when asked, before any check, then takes the retry', async () => {
    hook.rateLimitNext({ times: 2, retryAfterSec: 5 });
    expect(await deliver(event('evt_t'))).toEqual({ status: 429, retryAfter: '5', body: { error: 'too many requests' } });
    expect((await deliver(event('evt_t'), { secret: 'whsec_not-the-destination-secret' })).status).toBe(429);
    expect(hook.events()).toEqual([]);
    expect(await deliver(event('evt_t'))).toMatchObject({ status: 200, body: { accepted: true } });
    expect(hook.calls().map((c) => [c.status, c.fault])).toEqual([
      [429, 'rate-limit'],
      [429, 'rate-limit'],
      [200, undefined],
    ]);
  });

  it('answers 500 and 503 in the order asked, then takes the event once', async () => {
    hook.failNext({ status: 500 });
    hook.failNext({ status: 503, times: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await deliver(event('evt_f'))).status);
    expect(statuses).toEqual([500, 503, 503, 200]);
    expect(hook.events()).toMatchObject([{ id: 'evt_f', deliveries: 1 }]);
  });

  it('holds requests open until their client dies: losing the answer accepts the event, losing the request does not', async () => {
    await holdThenDrop(hook, (id, signal) => deliver(event(id), { signal }));
    expect(
      hook
        .calls()
        .map((c) => [c.headers['x-polbot-event-id'], c.status, c.fault, c.abandoned])
        .sort(),
    ).toEqual([
      ['answer-lost', 200, 'hold', true],
      ['never-arrived', 0, 'hold', true],
    ]);
    expect(hook.events().map((e) => e.id)).toEqual(['answer-lost']);
    // Sent again: the one that landed is a duplicate, the one that never arrived is new.
    expect(await deliver(event('answer-lost'))).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(await deliver(event('never-arrived'))).toMatchObject({ status: 200, body: { accepted: true } });
    expect(hook.events()).toMatchObject([
      { id: 'answer-lost', deliveries: 2 },
      { id: 'never-arrived', deliveries: 1 },
    ]);
  });

  it('lets a held request through when released, answered as usual', async () => {
    hook.holdNext({ lose: 'request' });
    const answer = deliver(event('evt_released'));
    await expect.poll(() => hook.held()).toBe(1);
    hook.releaseHeld();
    expect(await answer).toMatchObject({ status: 200, body: { accepted: true, id: 'evt_released' } });
    expect(hook.calls().map((c) => [c.status, c.fault, c.abandoned])).toEqual([[200, 'hold', false]]);
  });

  it('holds a request; a client that gave up finds its retry answered as a duplicate', async () => {
    hook.hangNext({ ms: 400 });
    await expect(deliver(event('evt_h'), { signal: AbortSignal.timeout(100) })).rejects.toThrow(/timeout|aborted/i);
    expect(await hook.waitFor((c) => c.fault === 'hang', 2_000)).toMatchObject({ status: 200, abandoned: true });
    expect(await deliver(event('evt_h'))).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(hook.events()).toMatchObject([{ id: 'evt_h', deliveries: 2 }]);
  });
});
