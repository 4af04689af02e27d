import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakePagerDuty, MAX_EVENT_BYTES, startFakePagerDuty } from '../../fakes/pagerduty/index.js';
import { holdThenDrop } from '../../helpers/held.js';
import { secretWatch } from '../../helpers/secret-watch.js';

/**
 * Each rule of the fake PagerDuty Events API v2, shown failing with what PagerDuty refuses and
 * passing right at the limit, over real HTTP as the product will send it.
 */

const ROUTING_KEY = randomBytes(16).toString('hex');
const OTHER_ROUTING_KEY = randomBytes(16).toString('hex');

let pagerduty: FakePagerDuty;

beforeAll(async () => {
  pagerduty = await startFakePagerDuty();
});
afterAll(async () => {
  await pagerduty.close();
});
beforeEach(() => {
  pagerduty.clear();
  pagerduty.clearFaults();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  body: any;
}

async function send(event: unknown, init: { contentType?: string; raw?: string; signal?: AbortSignal } = {}): Promise<Answer> {
  const res = await fetch(pagerduty.eventsUrl, {
    method: 'POST',
    headers: { 'content-type': init.contentType ?? 'application/json' },
    body: init.raw ?? JSON.stringify(event),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined };
}

const trigger = (dedupKey: string | undefined, payload: Record<string, unknown> = {}, routingKey = ROUTING_KEY) => ({
  routing_key: routingKey,
  event_action: 'trigger',
  ...(dedupKey === undefined ? {} : { dedup_key: dedupKey }),
  payload: { summary: 'Binance PoL above 5%: 6.2%', source: 'polbot', severity: 'error', ...payload },
});
const follow = (action: string, dedupKey: string, routingKey = ROUTING_KEY) => ({
  routing_key: routingKey,
  event_action: action,
  dedup_key: dedupKey,
});
const invalid = (error: string) => ({
  status: 400,
  retryAfter: null,
  body: { status: 'invalid event', message: 'Event object is invalid', errors: [error] },
});

describe('fake PagerDuty refuses what PagerDuty refuses', () => {
  it('takes a routing key of exactly 32 characters: 31 and 33 are 400 with the error PagerDuty sends', async () => {
    const lengthError = invalid("Length of 'routing_key' is incorrect (should be 32 characters)");
    expect(await send(trigger('k-31', {}, ROUTING_KEY.slice(1)))).toEqual(lengthError);
    expect(await send(trigger('k-33', {}, `${ROUTING_KEY}0`))).toEqual(lengthError);
    expect(await send({ ...trigger('k-none'), routing_key: undefined })).toEqual(invalid("'routing_key' is missing or blank"));
    expect(await send(trigger('k-32'))).toEqual({
      status: 202,
      retryAfter: null,
      body: { status: 'success', message: 'Event processed', dedup_key: 'k-32' },
    });
    expect(pagerduty.events().map((e) => e.dedupKey)).toEqual(['k-32']);
  });

  it('takes trigger, acknowledge and resolve only', async () => {
    expect(await send({ ...trigger('d1'), event_action: 'escalate' })).toEqual(
      invalid("'event_action' is invalid (must be one of: trigger, acknowledge, resolve)"),
    );
    expect(await send({ ...trigger('d1'), event_action: 'TRIGGER' })).toMatchObject({ status: 400 });
    expect(await send({ ...trigger('d1'), event_action: undefined })).toEqual(invalid("'event_action' is missing or blank"));
    for (const action of ['trigger', 'acknowledge', 'resolve']) {
      expect((await send({ ...trigger('d1'), event_action: action })).status).toBe(202);
    }
    expect(pagerduty.events().map((e) => e.event.event_action)).toEqual(['trigger', 'acknowledge', 'resolve']);
  });

  it('takes a dedup_key of up to 255 characters: 256 is 400', async () => {
    expect(await send(trigger('d'.repeat(256)))).toEqual(invalid("Length of 'dedup_key' must be less than or equal to 255 characters"));
    expect(await send(follow('resolve', 'd'.repeat(256)))).toEqual(
      invalid("Length of 'dedup_key' must be less than or equal to 255 characters"),
    );
    expect((await send(trigger('d'.repeat(255)))).status).toBe(202);
    // Characters, not UTF-16 units: 255 emoji are 510 units and still one key PagerDuty takes.
    expect((await send(trigger('🚨'.repeat(255)))).status).toBe(202);
    expect(pagerduty.incidents().map((i) => i.dedupKey.length)).toEqual([255, 510]);
  });

  it('requires a dedup_key on acknowledge and resolve, not on trigger, where it generates one', async () => {
    expect(await send({ routing_key: ROUTING_KEY, event_action: 'acknowledge' })).toEqual(
      invalid("'dedup_key' is required for acknowledge events"),
    );
    expect(await send({ routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: '' })).toEqual(
      invalid("'dedup_key' is required for resolve events"),
    );
    const answer = await send(trigger(undefined));
    expect(answer.status).toBe(202);
    expect(answer.body.dedup_key).toMatch(/^[0-9a-f]{32}$/);
    expect(pagerduty.incidents()).toMatchObject([{ dedupKey: answer.body.dedup_key, status: 'triggered' }]);
  });

  it('takes a summary of up to 1,024 characters: 1,025 is 400, and so is none', async () => {
    expect(await send(trigger('s', { summary: 'x'.repeat(1025) }))).toEqual(
      invalid("Length of 'payload.summary' must be less than or equal to 1024 characters"),
    );
    expect(await send(trigger('s', { summary: '  ' }))).toEqual(invalid("'payload.summary' is missing or blank"));
    expect(await send({ routing_key: ROUTING_KEY, event_action: 'trigger', dedup_key: 's' })).toEqual(
      invalid("'payload' is missing or not an object"),
    );
    expect((await send(trigger('s', { summary: 'x'.repeat(1024) }))).status).toBe(202);
    expect(pagerduty.incidents()[0]!.payload.summary).toHaveLength(1024);
  });

  it('requires a source and one of the four severities, and checks the optional fields', async () => {
    expect(await send(trigger('p', { source: undefined }))).toEqual(invalid("'payload.source' is missing or blank"));
    expect(await send(trigger('p', { severity: 'high' }))).toEqual(
      invalid("'payload.severity' is invalid (must be one of: critical, error, warning, info)"),
    );
    expect(await send(trigger('p', { severity: undefined }))).toEqual(invalid("'payload.severity' is missing or blank"));
    expect(await send(trigger('p', { timestamp: '2026-02-30T10:00:00Z' }))).toEqual(
      invalid("'payload.timestamp' is not an ISO 8601 date-time"),
    );
    expect(await send(trigger('p', { timestamp: 'yesterday' }))).toEqual(invalid("'payload.timestamp' is not an ISO 8601 date-time"));
    expect(await send(trigger('p', { custom_details: 'text' }))).toEqual(invalid("'payload.custom_details' must be an object"));
    expect(await send(trigger('p', { component: 7 }))).toEqual(invalid("'payload.component' must be a string"));
    // Every error at once, as PagerDuty lists them.
    expect((await send({ routing_key: 'short', event_action: 'trigger', payload: { severity: 'high' } })).body.errors).toEqual([
      "Length of 'routing_key' is incorrect (should be 32 characters)",
      "'payload.summary' is missing or blank",
      "'payload.source' is missing or blank",
      "'payload.severity' is invalid (must be one of: critical, error, warning, info)",
    ]);
    for (const severity of ['critical', 'error', 'warning', 'info']) {
      const answer = await send(
        trigger(`p-${severity}`, {
          severity,
          // PagerDuty's own example form, with an offset without a colon.
          timestamp: '2015-07-17T08:42:58.315+0000',
          component: 'pol',
          group: 'exchanges',
          class: 'threshold',
          custom_details: { before: '4.8%', now: '6.2%' },
        }),
      );
      expect(answer.status).toBe(202);
    }
    expect((await send(trigger('p-z', { timestamp: '2026-05-01T09:30:00.000Z' }))).status).toBe(202);
    expect(pagerduty.incidents().map((i) => i.payload.severity)).toEqual(['critical', 'error', 'warning', 'info', 'error']);
  });

  it('takes JSON only: another body or media type is an unrecognized object', async () => {
    const unrecognized = (error: string) => ({
      status: 400,
      retryAfter: null,
      body: { status: 'Unrecognized object', message: 'Event object format is unrecognized', errors: [error] },
    });
    expect(await send(undefined, { raw: '{"routing_key":' })).toEqual(unrecognized('JSON parse error'));
    expect(await send(undefined, { raw: '[]' })).toEqual(unrecognized('JSON parse error'));
    expect(await send(trigger('j'), { contentType: 'application/x-www-form-urlencoded' })).toEqual(
      unrecognized('Content-Type must be application/json'),
    );
    expect((await send(trigger('j'), { contentType: 'application/json; charset=utf-8' })).status).toBe(202);
  });

  it('takes up to 512 KB: one byte more is 413 and changes nothing', async () => {
    const padded = (bytes: number) => {
      const base = JSON.stringify(trigger('big', { custom_details: { pad: '' } }));
      return JSON.stringify(trigger('big', { custom_details: { pad: 'x'.repeat(bytes - Buffer.byteLength(base)) } }));
    };
    expect(Buffer.byteLength(padded(MAX_EVENT_BYTES))).toBe(524_288);
    const over = await send(undefined, { raw: padded(MAX_EVENT_BYTES + 1) });
    expect(over.status).toBe(413);
    expect(pagerduty.incidents()).toEqual([]);
    expect((await send(undefined, { raw: padded(MAX_EVENT_BYTES) })).status).toBe(202);
    expect(pagerduty.calls().map((c) => [c.status, c.bytes])).toEqual([
      [413, 524_289],
      [202, 524_288],
    ]);
  });

  it('shows the secret check every request with the routing key registered and masked in its field only', async () => {
    await send(trigger('watched', { custom_details: { note: 'routing key lives in routing_key only' } }));
    expect(secretWatch.secrets()).toContainEqual({ value: ROUTING_KEY, label: 'PagerDuty routing key sent to the fake' });
    const seen = secretWatch.sightings('payload').filter((s) => s.where === 'fake PagerDuty POST /v2/enqueue');
    expect(seen.at(-1)!.text).toContain('"routing_key":"(credential)","event_action":"trigger","dedup_key":"watched"');
    expect(seen.at(-1)!.text).toContain('routing key lives in routing_key only');
    expect(seen.map((s) => s.text).join('\n')).not.toContain(ROUTING_KEY);
  });

  it('answers other paths with 404 and other methods with 405', async () => {
    expect((await fetch(`${pagerduty.url}/v1/enqueue`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(pagerduty.eventsUrl)).status).toBe(405);
  });
});

describe("fake PagerDuty keeps PagerDuty's incidents", () => {
  it('trigger, trigger again, acknowledge, resolve: one incident, acknowledged then resolved', async () => {
    for (const event of [
      trigger('incident-12'),
      trigger('incident-12', { summary: 'worse: 7.0%' }),
      follow('acknowledge', 'incident-12'),
      follow('resolve', 'incident-12'),
    ]) {
      expect((await send(event)).status).toBe(202);
    }
    const incidents = pagerduty.incidents();
    expect(incidents).toHaveLength(1);
    const [incident] = incidents;
    expect(incident).toMatchObject({
      number: 1,
      routingKey: ROUTING_KEY,
      dedupKey: 'incident-12',
      status: 'resolved',
      payload: { summary: 'Binance PoL above 5%: 6.2%', source: 'polbot', severity: 'error' },
    });
    expect(incident!.log.map((l) => `${l.action}:${l.outcome}`)).toEqual([
      'trigger:opened',
      'trigger:deduplicated',
      'acknowledge:acknowledged',
      'resolve:resolved',
    ]);
    expect(incident!.acknowledgedAt!.getTime()).toBeLessThanOrEqual(incident!.resolvedAt!.getTime());
    expect(pagerduty.events().map((e) => [e.outcome, e.incident])).toEqual([
      ['opened', 1],
      ['deduplicated', 1],
      ['acknowledged', 1],
      ['resolved', 1],
    ]);
  });

  it('drops acknowledge and resolve with no open incident, and opens a new incident after a resolve', async () => {
    expect(await send(follow('acknowledge', 'never-opened'))).toMatchObject({
      status: 202,
      body: { status: 'success', dedup_key: 'never-opened' },
    });
    await send(trigger('again'));
    await send(follow('resolve', 'again'));
    await send(follow('resolve', 'again'));
    await send(follow('acknowledge', 'again'));
    await send(trigger('again'));
    expect(pagerduty.events().map((e) => e.outcome)).toEqual(['dropped', 'opened', 'resolved', 'dropped', 'dropped', 'opened']);
    expect(pagerduty.incidents({ dedupKey: 'again' }).map((i) => [i.number, i.status])).toEqual([
      [1, 'resolved'],
      [2, 'triggered'],
    ]);
  });

  it('keeps an acknowledged incident acknowledged when it triggers again', async () => {
    await send(trigger('acked'));
    await send(follow('acknowledge', 'acked'));
    await send(trigger('acked'));
    expect(pagerduty.incidents()).toMatchObject([{ status: 'acknowledged' }]);
  });

  it('keeps routing keys apart: the same dedup_key under another key is another incident, and cannot resolve this one', async () => {
    await send(trigger('shared'));
    await send(trigger('shared', {}, OTHER_ROUTING_KEY));
    await send(follow('resolve', 'shared', OTHER_ROUTING_KEY));
    expect(pagerduty.incidents({ routingKey: ROUTING_KEY })).toMatchObject([{ dedupKey: 'shared', status: 'triggered' }]);
    expect(pagerduty.incidents({ routingKey: OTHER_ROUTING_KEY })).toMatchObject([{ dedupKey: 'shared', status: 'resolved' }]);
  });
});

describe('fake PagerDuty fails when a test asks it to', () => {
  it('answers 429 without Retry-After for the next N, as PagerDuty does, then takes the retry', async () => {
    pagerduty.rateLimitNext({ times: 2 });
    const throttled = { status: 429, retryAfter: null, body: { status: 'throttle event', message: 'Request Limit Exceeded' } };
    expect(await send(trigger('busy'))).toEqual(throttled);
    expect(await send(trigger('busy'))).toEqual(throttled);
    expect(pagerduty.incidents()).toEqual([]);
    expect((await send(trigger('busy'))).status).toBe(202);
    expect(pagerduty.calls().map((c) => [c.status, c.fault])).toEqual([
      [429, 'rate-limit'],
      [429, 'rate-limit'],
      [202, undefined],
    ]);
    expect(pagerduty.incidents()).toMatchObject([{ dedupKey: 'busy', status: 'triggered', log: [{ outcome: 'opened' }] }]);
  });

  it('answers 429 with a Retry-After when asked for one', async () => {
    pagerduty.rateLimitNext({ retryAfterSec: 30 });
    expect(await send(trigger('wait'))).toMatchObject({ status: 429, retryAfter: '30' });
    expect((await send(trigger('wait'))).status).toBe(202);
  });

  it('answers 500 then 503 in the order asked, then takes the event; a throttle before validation too', async () => {
    pagerduty.failNext({ status: 500 });
    pagerduty.failNext({ status: 503 });
    pagerduty.rateLimitNext();
    expect(await send(trigger('down'))).toEqual({
      status: 500,
      retryAfter: null,
      body: { status: 'error', message: 'Internal Server Error' },
    });
    expect((await send(trigger('down'))).status).toBe(503);
    expect((await send({ routing_key: 'short' })).status).toBe(429);
    expect((await send(trigger('down'))).status).toBe(202);
    expect(pagerduty.events()).toHaveLength(1);
    expect(() => pagerduty.failNext({ status: 404 })).toThrow(/5xx/);
  });

  it('holds a request for the time asked, then answers it', async () => {
    pagerduty.hangNext({ ms: 300 });
    const started = performance.now();
    expect((await send(trigger('slow'))).status).toBe(202);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('processes a hung event the client gave up on, so the retry with the same dedup_key de-duplicates onto it', async () => {
    pagerduty.hangNext({ ms: 400 });
    await expect(send(trigger('timed-out'), { signal: AbortSignal.timeout(100) })).rejects.toThrow(/timeout|aborted/i);
    const hung = await pagerduty.waitFor((c) => c.fault === 'hang', 2_000);
    expect(hung).toMatchObject({ status: 202, abandoned: true });
    expect((await send(trigger('timed-out'))).status).toBe(202);
    expect(pagerduty.incidents()).toMatchObject([{ dedupKey: 'timed-out', log: [{ outcome: 'opened' }, { outcome: 'deduplicated' }] }]);
  });

  it('holds requests open until their client dies: the one asked to lose its answer is processed, the one asked to lose the request is not', async () => {
    await holdThenDrop(pagerduty, (key, signal) => send(trigger(key), { signal }));
    const byKey = (c: { json: unknown }) => (c.json as { dedup_key: string }).dedup_key;
    expect(
      pagerduty
        .calls()
        .map((c) => [byKey(c), c.status, c.fault, c.abandoned])
        .sort(),
    ).toEqual([
      ['answer-lost', 202, 'hold', true],
      ['never-arrived', 0, 'hold', true],
    ]);
    expect(pagerduty.incidents().map((i) => i.dedupKey)).toEqual(['answer-lost']);
    // Sent again, the first de-duplicates onto the incident it opened; the second opens its own.
    expect((await send(trigger('answer-lost'))).status).toBe(202);
    expect((await send(trigger('never-arrived'))).status).toBe(202);
    expect(pagerduty.incidents()).toMatchObject([
      { dedupKey: 'answer-lost', log: [{ outcome: 'opened' }, { outcome: 'deduplicated' }] },
      { dedupKey: 'never-arrived', log: [{ outcome: 'opened' }] },
    ]);
  });

  it('lets held requests through when released, answered as usual', async () => {
    pagerduty.holdNext({ lose: 'request', times: 2 });
    const answers = Promise.all([send(trigger('held-1')), send(trigger('held-2'))]);
    await expect.poll(() => pagerduty.held()).toBe(2);
    pagerduty.releaseHeld();
    expect((await answers).map((a) => a.status)).toEqual([202, 202]);
    expect(pagerduty.calls().map((c) => [c.status, c.fault, c.abandoned])).toEqual([
      [202, 'hold', false],
      [202, 'hold', false],
    ]);
    expect(pagerduty.held()).toBe(0);
    expect(() => pagerduty.holdNext({ lose: 'both' as 'request' })).toThrow(/lose/);
  });

  it('closes at once with a request still hung', async () => {
    const other = await startFakePagerDuty();
    other.hangNext({ ms: 60_000 });
    other.holdNext({ lose: 'response' });
    const post = () =>
      fetch(other.eventsUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(trigger('x')),
      });
    const pending = [post(), post()];
    await expect.poll(() => other.held()).toBe(1);
    const started = performance.now();
    await other.close();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((await Promise.allSettled(pending)).map((p) => p.status)).toEqual(['rejected', 'rejected']);
  });
});
