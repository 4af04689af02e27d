import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { slackText } from '../../helpers/core.js';
import { deliveryKey } from '../../../src/digest/content.js';
import { DeliveryError, type Deliverer } from '../../../src/delivery/port.js';
import { MISSED_REASON, SUPERSEDED_REASON, LATE_REASON, type Run } from '../../../src/digest/store.js';
import type { TableReply, TextReply } from '../../../src/reply/model.js';
import { createHarness, slackCaller, type Harness } from '../../helpers/digest/harness.js';
import { ENGINES, HOUR, MemoryDeliverer, MINUTE } from '../../helpers/digest/helpers.js';

const at = Date.parse;
const statuses = (runs: Run[]) => runs.map((r) => `${new Date(r.slot).toISOString()} ${r.status}`);

describe.each(ENGINES)('digest scheduler on %s', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // Charts from a QuickChart address where nothing listens: drawing hundreds of PNGs is the
    // content tests' job, and a digest whose chart cannot be had goes out without it.
    h = await createHarness(engine, { env: { CHART_RENDERER: 'quickchart', QUICKCHART_URL: 'http://127.0.0.1:9' } });
  });
  afterEach(() => h.reset());
  afterAll(() => h.close());

  it('two scheduler instances on one database deliver each of 100 slots exactly once', async () => {
    h.clock.set('2026-06-01T00:30:00Z');
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await h.add(`digest add bitcoin, binance, ethereum "0 * * * *"`, slackCaller(`C-ONCE-${i}`)));
    const platform = new MemoryDeliverer('slack');
    // Deliveries take a little real time, so the two instances' work interleaves.
    platform.delay = () => Math.floor(Math.random() * 4);
    const a = h.scheduler([platform], { instanceId: 'replica-a', batch: 7, concurrency: 3 });
    const b = h.scheduler([platform], { instanceId: 'replica-b', batch: 7, concurrency: 3 });
    const delivered = { a: 0, b: 0 };
    for (let hour = 1; hour <= 5; hour++) {
      const now = h.clock.set(`2026-06-01T0${hour}:00:00Z`);
      // Ticks every few seconds within the hour, both replicas at once.
      for (let round = 0; round < 12; round++) {
        const [ra, rb] = await Promise.all([a.tick(now + round * 5_000), b.tick(now + round * 5_000)]);
        delivered.a += ra.delivered;
        delivered.b += rb.delivered;
        if (ra.claimed + rb.claimed === 0 && round > 0) break;
      }
    }
    const keys = platform.keys();
    expect(keys).toHaveLength(100);
    expect(new Set(keys).size).toBe(100);
    expect(delivered.a + delivered.b).toBe(100);
    for (const id of ids) {
      const runs = await h.store.runs(id);
      expect(statuses(runs)).toEqual([1, 2, 3, 4, 5].map((n) => `2026-06-01T0${n}:00:00.000Z delivered`));
      for (const r of runs) expect(keys.filter((k) => k === deliveryKey({ id, timezone: 'UTC' }, r.slot))).toHaveLength(1);
    }
  }, 90_000);

  it('fires a daily 09:00 Europe/Berlin digest at the right UTC instant on both sides of the March and October changes', async () => {
    const platform = new MemoryDeliverer('slack');
    const s = h.scheduler([platform]);
    for (const [start, expected] of [
      ['2026-03-26T12:00:00Z', ['2026-03-27T08:00:00Z', '2026-03-28T08:00:00Z', '2026-03-29T07:00:00Z', '2026-03-30T07:00:00Z']],
      ['2026-10-23T12:00:00Z', ['2026-10-24T07:00:00Z', '2026-10-25T08:00:00Z', '2026-10-26T08:00:00Z']],
    ] as const) {
      h.clock.set(start);
      const id = await h.add('digest add bitcoin daily at 09:00 tz Europe/Berlin', slackCaller(`C-DST-${start.slice(5, 7)}`));
      for (const slot of expected) {
        // A second early: nothing. On the instant: exactly this slot.
        expect((await s.tick(at(slot) - 1_000)).delivered).toBe(0);
        expect((await s.tick(at(slot))).delivered).toBe(1);
        const last = platform.posted[platform.posted.length - 1]!;
        expect(last.key).toMatch(/^digest #\d+ · \d{4}-\d\d-\d\d 09:00 Europe\/Berlin \(GMT\+[12]\)$/);
        expect(last.key).toBe(deliveryKey({ id, timezone: 'Europe/Berlin' }, at(slot)));
      }
      expect(statuses(await h.store.runs(id))).toEqual(expected.map((slot) => `${new Date(slot).toISOString()} delivered`));
      await h.reset();
    }
  });

  it('after downtime sends a slot missed by less than the grace window once, skips older ones and says so', async () => {
    const platform = new MemoryDeliverer('slack');
    const s = h.scheduler([platform]);
    h.clock.set('2026-05-01T08:00:00Z');
    const id = await h.add('digest add bitcoin, binance daily at 09:00', slackCaller('C-CATCHUP'));
    expect((await s.tick(at('2026-05-01T09:00:00Z'))).delivered).toBe(1);

    // Down from 09:01 on the 1st until 12:00 on the 3rd: the 2nd is 27 h late, the 3rd 3 h late.
    const back = await s.tick(at('2026-05-03T12:00:00Z'));
    expect(back).toMatchObject({ delivered: 1, skipped: 1 });
    expect((await s.tick(at('2026-05-03T12:05:00Z'))).claimed).toBe(0);
    const third = platform.posted[platform.posted.length - 1]!;
    expect(third.key).toBe(deliveryKey({ id, timezone: 'UTC' }, at('2026-05-03T09:00:00Z')));
    expect(third.reply.kind === 'table' && third.reply.footer?.notes).toContain(
      '1 earlier scheduled digest was not sent (polbot was offline or delivery failed); changes are since the last digest sent.',
    );
    expect((third.reply as TableReply).note).toContain('since the previous digest of 2026-05-01 09:00 UTC');

    // Down again until 16:00 on the 5th: the 4th and the 5th (7 h late) are both past the window.
    expect(await s.tick(at('2026-05-05T16:00:00Z'))).toMatchObject({ delivered: 0, skipped: 2 });
    expect((await s.tick(at('2026-05-06T09:00:00Z'))).delivered).toBe(1);
    const sixth = platform.posted[platform.posted.length - 1]!.reply as TableReply;
    expect(sixth.footer?.notes?.join('\n')).toContain('2 earlier scheduled digests were not sent');

    const runs = await h.store.runs(id);
    expect(statuses(runs)).toEqual([
      '2026-05-01T09:00:00.000Z delivered',
      '2026-05-02T09:00:00.000Z skipped',
      '2026-05-03T09:00:00.000Z delivered',
      '2026-05-04T09:00:00.000Z skipped',
      '2026-05-05T09:00:00.000Z skipped',
      '2026-05-06T09:00:00.000Z delivered',
    ]);
    expect(runs.filter((r) => r.status === 'skipped').map((r) => r.reason)).toEqual([MISSED_REASON, MISSED_REASON, MISSED_REASON]);
    expect(platform.keys('C-CATCHUP')).toHaveLength(3);
  });

  it('after downtime sends only the latest of several slots inside the window', async () => {
    const platform = new MemoryDeliverer('slack');
    const s = h.scheduler([platform]);
    h.clock.set('2026-05-10T07:59:00Z');
    const id = await h.add('digest add bitcoin "0 * * * *"', slackCaller('C-HOURLY'));
    await s.tick(at('2026-05-10T08:00:00Z'));
    expect(await s.tick(at('2026-05-10T11:30:00Z'))).toMatchObject({ delivered: 1, skipped: 2 });
    expect(statuses(await h.store.runs(id))).toEqual([
      '2026-05-10T08:00:00.000Z delivered',
      '2026-05-10T09:00:00.000Z skipped',
      '2026-05-10T10:00:00.000Z skipped',
      '2026-05-10T11:00:00.000Z delivered',
    ]);
    expect((await h.store.runs(id)).filter((r) => r.status === 'skipped').every((r) => r.reason === SUPERSEDED_REASON)).toBe(true);
    expect(platform.keys('C-HOURLY')).toHaveLength(2);
  });

  it('leaves the digests of a platform it cannot deliver to for a replica that can', async () => {
    const slackSide = new MemoryDeliverer('slack');
    const discordSide = new MemoryDeliverer('discord');
    h.clock.set('2026-05-11T08:00:00Z');
    const id = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-SLACK-ONLY'));
    const slot = at('2026-05-11T09:00:00Z');
    expect(await h.scheduler([discordSide]).tick(slot)).toMatchObject({ materialized: 0, claimed: 0 });
    expect(await h.store.runs(id)).toEqual([]);
    expect(await h.scheduler([slackSide]).tick(slot + 10 * MINUTE)).toMatchObject({ materialized: 1, delivered: 1 });
    expect(slackSide.keys('C-SLACK-ONLY')).toHaveLength(1);
    expect(discordSide.posted).toHaveLength(0);
  });

  it('skips a due run that nobody could claim within the grace window instead of sending it late', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-12T08:00:00Z');
    const id = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-LATE'));
    // The slot was recorded as due, then every replica went away for seven hours.
    await h.store.materialize(at('2026-05-12T09:00:00Z'), 6 * HOUR);
    expect(await h.scheduler([platform]).tick(at('2026-05-12T16:00:00Z'))).toMatchObject({ claimed: 1, delivered: 0, skipped: 1 });
    expect((await h.store.runs(id)).map((r) => [r.status, r.reason])).toEqual([['skipped', LATE_REASON]]);
    expect(platform.posted).toHaveLength(0);
  });

  it('takes over a run whose holder died, posting it once: not again when the post had reached the channel', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-14T08:00:00Z');
    const posted = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-DIED-AFTER'));
    const unposted = await h.add('digest add binance daily at 09:00', slackCaller('C-DIED-BEFORE'));
    const slot = at('2026-05-14T09:00:00Z');
    const lease = 5 * MINUTE;

    // A replica claims both runs and stores their content; one post reaches Slack, then it stalls
    // (as good as dead) before the database hears of it; the other post never leaves.
    let hang: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => {
      hang = resolve;
    });
    const ghost: Deliverer = {
      platform: 'slack',
      update: () => platform.update(),
      followUp: () => platform.followUp(),
      async post(channelId, reply) {
        if (channelId === 'C-DIED-AFTER') await platform.post(channelId, reply);
        await stuck;
        throw new Error('process killed');
      },
    };
    const dying = h
      .scheduler([ghost], { instanceId: 'dead-replica', leaseMs: lease, retry: { attempts: 1, backoffMs: 1, maxWaitMs: 1 } })
      .tick(slot);
    await expect.poll(() => platform.keys('C-DIED-AFTER').length, { timeout: 5_000 }).toBe(1);
    await expect.poll(async () => (await h.store.run(unposted, slot))?.content !== null, { timeout: 5_000 }).toBe(true);
    expect((await h.store.run(posted, slot))?.status).toBe('claimed');

    const heir = h.scheduler([platform], { instanceId: 'heir', leaseMs: lease });
    // While the lease holds, nobody else touches the runs.
    expect((await heir.tick(slot + lease - 1_000)).claimed).toBe(0);
    const report = await heir.tick(slot + lease + 1_000);
    expect(report).toMatchObject({ claimed: 2, confirmed: 1, delivered: 1 });
    expect(platform.keys('C-DIED-AFTER')).toEqual([deliveryKey({ id: posted, timezone: 'UTC' }, slot)]);
    expect(platform.keys('C-DIED-BEFORE')).toEqual([deliveryKey({ id: unposted, timezone: 'UTC' }, slot)]);
    for (const id of [posted, unposted])
      expect(await h.store.run(id, slot)).toMatchObject({ status: 'delivered', claimedBy: 'heir', attempts: 2 });

    // The stalled holder wakes up: every write it tries is fenced off.
    hang();
    await dying;
    expect(await h.store.delivered(posted, slot, 'dead-replica', slot + lease + 2_000)).toBe(false);
    expect(await h.store.renew(posted, slot, 'dead-replica', slot + 2 * lease)).toBe(false);
    expect(platform.posted).toHaveLength(2);
  });

  it('does not guess when it cannot check an earlier post: the recovered run waits, the channel is not marked failing', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-15T08:00:00Z');
    const id = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-UNSURE'));
    const slot = at('2026-05-15T09:00:00Z');
    await h.store.materialize(slot, 6 * HOUR);
    const [claimed] = await h.store.claim({ now: slot, instance: 'vanished', leaseMs: MINUTE, platforms: ['slack'], limit: 10 });
    expect(claimed?.digest.id).toBe(id);
    await h.store.saveContent(
      id,
      slot,
      'vanished',
      { snapshot: { takenAt: slot, entities: [] }, parts: [{ kind: 'text', text: 'x' }], chart: null },
      slot + MINUTE,
    );
    const unsure: Deliverer = {
      platform: 'slack',
      post: (c, r) => platform.post(c, r),
      update: () => platform.update(),
      followUp: () => platform.followUp(),
      find: async () => {
        throw new DeliveryError('Slack: the app lacks the permission to read history', { permanent: true });
      },
    };
    expect(await h.scheduler([unsure]).tick(slot + 2 * MINUTE)).toMatchObject({ claimed: 1, released: 1, failed: 0 });
    expect(await h.store.get(id)).toMatchObject({ state: 'active' });
    expect(await h.store.run(id, slot)).toMatchObject({
      status: 'pending',
      reason: 'could not check for an earlier post (Slack: the app lacks the permission to read history)',
    });
    expect(platform.posted).toHaveLength(0);
  });

  it('runs on its own timer and stops cleanly, leaving no claim behind', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-17T08:00:00Z');
    const id = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-TIMER'));
    h.clock.set('2026-05-17T09:00:00Z');
    const s = h.scheduler([platform], { tickMs: 10 });
    s.start();
    await expect.poll(() => platform.keys('C-TIMER').length, { timeout: 10_000 }).toBe(1);
    await s.stop();
    const attempts = platform.attempts;
    h.clock.set('2026-05-18T09:00:00Z');
    await new Promise((r) => setTimeout(r, 100));
    expect(platform.attempts).toBe(attempts);
    expect(statuses(await h.store.runs(id))).toEqual(['2026-05-17T09:00:00.000Z delivered']);
  });

  it('retries transient errors with backoff, then gives the run up after the attempt limit', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-16T08:00:00Z');
    const flaky = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-FLAKY'));
    const down = await h.add('digest add binance daily at 09:00', slackCaller('C-DOWN'));
    platform.fail = (channelId, _key, attempt) => {
      if (channelId === 'C-DOWN') return new DeliveryError('Slack is unavailable (503)', { permanent: false });
      return attempt <= 2 ? new DeliveryError('rate limited', { permanent: false, retryAfterMs: 1 }) : undefined;
    };
    const s = h.scheduler([platform], { maxAttempts: 3, releaseBackoffMs: MINUTE, concurrency: 1 });
    const slot = at('2026-05-16T09:00:00Z');
    expect(await s.tick(slot)).toMatchObject({ delivered: 1, released: 1 });
    expect(platform.keys('C-FLAKY')).toHaveLength(1);
    expect(await h.store.run(down, slot)).toMatchObject({
      status: 'pending',
      attempts: 1,
      notBefore: slot + MINUTE,
      reason: 'Slack is unavailable (503)',
    });
    // Not before its backoff; then again with a doubled wait; then given up.
    expect((await s.tick(slot + MINUTE - 1)).claimed).toBe(0);
    expect(await s.tick(slot + MINUTE)).toMatchObject({ released: 1 });
    expect((await h.store.run(down, slot))?.notBefore).toBe(slot + 3 * MINUTE);
    expect(await s.tick(slot + 3 * MINUTE)).toMatchObject({ failed: 1 });
    expect(await s.tick(slot + 60 * MINUTE)).toMatchObject({ claimed: 0 });
    expect(await h.store.run(down, slot)).toMatchObject({
      status: 'failed',
      attempts: 3,
      reason: 'gave up after 3 attempts: Slack is unavailable (503)',
    });
    // A transient outage does not stop the digest: it is still active, with the error shown.
    expect(await h.store.get(down)).toMatchObject({ state: 'active', lastError: 'gave up after 3 attempts: Slack is unavailable (503)' });
    expect((await h.store.get(flaky))?.lastDeliveredAt).toBe(slot);
  });

  it('marks a digest failing on a permanent channel error, shows why in digest list, and stops until resumed', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-18T08:00:00Z');
    const id = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-GONE'));
    const tooBig = await h.add('digest add binance daily at 09:00', slackCaller('C-REFUSED'));
    platform.fail = (channelId) =>
      channelId === 'C-GONE'
        ? new DeliveryError('the channel was not found (deleted, or the bot cannot see it)', { permanent: true })
        : channelId === 'C-REFUSED'
          ? new DeliveryError('Slack refused the message: msg_too_long', { permanent: true, scope: 'message' })
          : undefined;
    const s = h.scheduler([platform]);
    const slot = at('2026-05-18T09:00:00Z');
    expect(await s.tick(slot)).toMatchObject({ failed: 2 });
    // Permanent: tried once, never retried.
    expect(platform.attempts).toBe(2);
    expect(await h.store.get(id)).toMatchObject({
      state: 'failing',
      stateReason: 'the channel was not found (deleted, or the bot cannot see it)',
      nextSlot: null,
    });
    // A refused message fails only that run.
    expect(await h.store.get(tooBig)).toMatchObject({ state: 'active', lastError: 'Slack refused the message: msg_too_long' });

    const list = (await h.ask('digest list', slackCaller('C-GONE', 'U-ANYONE', false))) as TableReply;
    expect(list.kind).toBe('table');
    expect(list.rows[0]).toMatchObject({
      id: String(id),
      state: 'failing: the channel was not found (deleted, or the bot cannot see it)',
      next: 'failing',
    });
    expect(slackText(list.note)).toContain(`/pol digest resume ${id}`);

    expect((await s.tick(at('2026-05-19T09:00:00Z'))).claimed).toBe(1);
    expect(platform.attempts).toBe(3);
    platform.fail = undefined;
    h.clock.set('2026-05-19T10:00:00Z');
    const resumed = (await h.ask(`digest resume ${id}`, slackCaller('C-GONE'))) as TextReply;
    expect(resumed.title).toBe(`Digest #${id} resumed`);
    expect(resumed.text).toContain('It was failing (the channel was not found');
    expect((await s.tick(at('2026-05-20T09:00:00Z'))).delivered).toBe(2);
    expect(platform.keys('C-GONE')).toHaveLength(1);
  });

  it('fetches each entity once when many digests fall due together', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-22T08:00:00Z');
    const others = ['ethereum', 'solana', 'kraken', 'pepe', 'uniswap'];
    for (let i = 0; i < 30; i++)
      await h.add(`digest add bitcoin, binance, ${others[i % others.length]} daily at 09:00`, slackCaller(`C-FANOUT-${i}`));
    h.expireCache();
    const sim = h.core.upstream.sim!;
    sim.counter.reset();
    expect(await h.scheduler([platform], { batch: 50, concurrency: 8 }).tick(at('2026-05-22T09:00:00Z'))).toMatchObject({ delivered: 30 });
    const paths = [...sim.counter.byPath.entries()];
    const current = paths.filter(([p]) => p.includes('/pol/current'));
    expect(current.map(([p]) => p.split('/')[3]).sort()).toEqual(['binance', 'bitcoin', ...others].sort());
    // Every request the tick made (current PoL, history, red flags) was made once.
    for (const [path, count] of paths) expect(count, path).toBe(1);
    // Red flags exist for projects only.
    expect(
      paths
        .filter(([p]) => p.endsWith('/reputational'))
        .map(([p]) => p.split('/')[3])
        .sort(),
    ).toEqual(['bitcoin', 'ethereum', 'pepe', 'solana', 'uniswap']);
  });

  it('fetches each entity once per slot even when delivering the slot takes many ticks and outlives the cache', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-23T08:00:00Z');
    const others = ['ethereum', 'solana', 'kraken', 'pepe', 'uniswap'];
    for (let i = 0; i < 20; i++) await h.add(`digest add bitcoin, ${others[i % others.length]} daily at 09:00`, slackCaller(`C-SLOW-${i}`));
    const sim = h.core.upstream.sim!;
    h.expireCache();
    sim.counter.reset();
    const s = h.scheduler([platform], { batch: 3, concurrency: 2 });
    const slot = at('2026-05-23T09:00:00Z');
    let delivered = 0;
    let ticks = 0;
    for (; delivered < 20 && ticks < 30; ticks++) {
      // Ticks two minutes apart, the cache emptied in between: only the slot's loader remembers.
      h.expireCache();
      delivered += (await s.tick(slot + ticks * 2 * MINUTE)).delivered;
    }
    expect(delivered).toBe(20);
    // Longer than the data is kept for a slot nobody is delivering (5 minutes).
    expect(ticks * 2 * MINUTE).toBeGreaterThan(10 * MINUTE);
    for (const [path, count] of sim.counter.byPath) expect(count, path).toBe(1);
    expect(
      [...sim.counter.byPath.keys()]
        .filter((p) => p.includes('/pol/current'))
        .map((p) => p.split('/')[3])
        .sort(),
    ).toEqual(['bitcoin', ...others].sort());
    // The next day's slot is new data, fetched afresh.
    sim.counter.reset();
    h.expireCache();
    expect((await s.tick(slot + 24 * HOUR)).delivered).toBe(3);
    expect([...sim.counter.byPath.keys()].some((p) => p.endsWith('/bitcoin/pol/current'))).toBe(true);
  });

  it("deletes finished runs past their retention, keeping each digest's latest delivered run to compare with", async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-07-01T08:00:00Z');
    const id = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-RETAIN'));
    const paused = await h.add('digest add binance daily at 09:00', slackCaller('C-RETAIN-2'));
    const s = h.scheduler([platform], { keepRunsMs: 10 * 24 * HOUR });
    const day = (d: number) => at(`2026-07-${String(d).padStart(2, '0')}T09:00:00Z`);
    for (let d = 1; d <= 25; d++) {
      if (d === 6) await h.store.pause(paused, 'slack', 'C-RETAIN-2', day(d) - HOUR);
      expect((await s.tick(day(d))).delivered).toBe(d <= 5 ? 2 : 1);
    }
    // The next morning, an hour before the slot: runs that ended more than 10 days ago are gone,
    // except the paused digest's last delivered one, which its next digest will compare with.
    await s.tick(day(26) - HOUR);
    expect(statuses(await h.store.runs(id))).toEqual(
      Array.from({ length: 10 }, (_, i) => `${new Date(day(16 + i)).toISOString()} delivered`),
    );
    expect(statuses(await h.store.runs(paused))).toEqual(['2026-07-05T09:00:00.000Z delivered']);
    expect(await h.store.resume(paused, 'slack', 'C-RETAIN-2', day(26))).toBeTruthy();
    expect((await s.tick(day(27))).delivered).toBe(2);
    const last = platform.posted.filter((p) => p.channelId === 'C-RETAIN-2').at(-1)!.reply as TableReply;
    expect(last.note).toContain('since the previous digest of 2026-07-05 09:00 UTC');
  });

  it('asks the upstream again on the retry after it failed, rather than repeating the outage from memory', async () => {
    const platform = new MemoryDeliverer('slack');
    h.clock.set('2026-05-24T08:00:00Z');
    const id = await h.add('digest add bitcoin daily at 09:00', slackCaller('C-UPSTREAM-DOWN'));
    const sim = h.core.upstream.sim!;
    h.expireCache();
    const s = h.scheduler([platform], { releaseBackoffMs: MINUTE });
    const slot = at('2026-05-24T09:00:00Z');
    sim.faults.set({ errorRate: 1, match: /\/pol\/current$/ });
    try {
      expect(await s.tick(slot)).toMatchObject({ released: 1, delivered: 0 });
    } finally {
      sim.faults.reset();
    }
    expect(await h.store.run(id, slot)).toMatchObject({ status: 'pending', reason: expect.stringMatching(/^risk data unavailable/) });
    expect(await s.tick(slot + MINUTE)).toMatchObject({ delivered: 1 });
    const [posted] = platform.posted.filter((p) => p.channelId === 'C-UPSTREAM-DOWN');
    expect((posted!.reply as TableReply).rows[0]).toMatchObject({ name: 'Bitcoin (BTC)', pol: expect.stringMatching(/%$/) });
  });
});
