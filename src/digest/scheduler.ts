import { randomBytes } from 'node:crypto';
import { workspaceOf, type Platform } from '../workspace.js';
import { hostname } from 'node:os';
import { UpstreamError } from '../api/errors.js';
import type { Logger } from '../log.js';
import type { Reply } from '../reply/model.js';
import type { PostDeps } from '../delivery/deps.js';
import { buildDigest, chartFor, deliveryKey, EntityLoader, type ContentOptions } from './content.js';
import {
  asDeliveryError,
  DEFAULT_POST_RETRY,
  DeliveryError,
  postWithRetry,
  type Deliverer,
  type PostRetryOptions,
} from '../delivery/port.js';
import { Ticker } from '../time/ticker.js';
import { nextSlot } from './schedule.js';
import { LATE_REASON, type ClaimedRun, type DigestStore, type RunContent } from './store.js';

export interface SchedulerOptions {
  store: DigestStore;
  /** The command core's context: the shared cached source and the chart renderer. */
  ctx: PostDeps;
  deliverers: readonly Deliverer[];
  log?: Logger;
  /** Epoch ms. Every decision (due, late, lease) uses this clock, so tests control time. */
  now?: () => number;
  /** Names this replica in `claimed_by`; unique per process by default. */
  instanceId?: string;
  /** A missed slot this late or less is still delivered (once); older ones are skipped. Default 6 h. */
  graceMs?: number;
  /** How long a claim holds without renewal; another replica takes over after it. Default 5 min. */
  leaseMs?: number;
  /** Pause between ticks when running on a timer. Default 15 s. */
  tickMs?: number;
  /** Runs claimed per tick, and delivered at once. */
  batch?: number;
  concurrency?: number;
  /** Claims of one run before it is given up as failed. */
  maxAttempts?: number;
  /** Wait before a run that failed transiently is claimed again (doubles per attempt). */
  releaseBackoffMs?: number;
  retry?: PostRetryOptions;
  content?: Partial<ContentOptions>;
  /**
   * Digests of one slot share one fetch of each entity for as long as the slot is being delivered,
   * however many ticks that takes; once no run of the slot has been claimed for this long, the
   * next run of it (a late retry) fetches afresh. Default 5 min.
   */
  slotDataIdleMs?: number;
  /** Finished runs older than this are deleted (the latest delivered one of each digest stays). Default 30 days. */
  keepRunsMs?: number;
  /** Told how each claimed run ended, for the deliveries counter in /metrics. */
  onOutcome?: (platform: Platform, outcome: Outcome) => void;
}

export interface TickReport {
  materialized: number;
  skipped: number;
  claimed: number;
  delivered: number;
  failed: number;
  released: number;
  /** Runs whose claim was lost to another replica mid-delivery (their lease had run out). */
  lost: number;
  /** Recovered runs found already posted by a crashed holder, completed without posting again. */
  confirmed: number;
}

export type Outcome = 'delivered' | 'confirmed' | 'skipped' | 'failed' | 'released' | 'lost';

const HOUR = 3_600_000;

/**
 * Delivers due digests exactly once across replicas: due slots become runs keyed by (digest, slot),
 * runs are claimed with leases on the database's queue, and every post is fenced by a renewal of
 * the claim. The protocol, what a takeover does and the gaps that remain are in
 * docs/architecture.md ("Digests delivered exactly once").
 */
export class DigestScheduler {
  readonly instanceId: string;
  private readonly o: Required<Omit<SchedulerOptions, 'log' | 'now' | 'instanceId' | 'content' | 'onOutcome'>> &
    Pick<SchedulerOptions, 'log' | 'content' | 'onOutcome'>;
  private readonly byPlatform: Map<Platform, Deliverer>;
  private readonly clock: () => number;
  private readonly ticker: Ticker;
  /** When this replica last deleted old runs; once an hour is plenty. */
  private prunedAt = -Infinity;
  /** One loader per slot being delivered, and when a run of the slot last used it. */
  private readonly loaders = new Map<number, { loader: EntityLoader; used: number }>();

  constructor(options: SchedulerOptions) {
    this.o = {
      graceMs: 6 * HOUR,
      leaseMs: 5 * 60_000,
      tickMs: 15_000,
      batch: 50,
      concurrency: 8,
      maxAttempts: 5,
      releaseBackoffMs: 60_000,
      slotDataIdleMs: 5 * 60_000,
      keepRunsMs: 30 * 24 * HOUR,
      retry: DEFAULT_POST_RETRY,
      ...options,
    };
    this.clock = options.now ?? Date.now;
    this.instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.byPlatform = new Map(options.deliverers.map((d) => [d.platform, d]));
    this.ticker = new Ticker(
      () => this.tick(),
      this.o.tickMs,
      (err) => this.o.log?.error({ err }, 'digest tick failed'),
    );
  }

  get platforms(): Platform[] {
    return [...this.byPlatform.keys()];
  }

  /**
   * One pass over everything due at `now`. Safe to call from any number of replicas at once. Time
   * inside the pass (lease renewals, backoff) runs on from `now` by the clock's elapsed time.
   */
  async tick(now = this.clock()): Promise<TickReport> {
    const { store } = this.o;
    const base = this.clock();
    const time = () => now + Math.max(0, this.clock() - base);
    const report: TickReport = { materialized: 0, skipped: 0, claimed: 0, delivered: 0, failed: 0, released: 0, lost: 0, confirmed: 0 };
    if (now - this.prunedAt >= HOUR) {
      this.prunedAt = now;
      const pruned = await store.prune(now - this.o.keepRunsMs);
      if (pruned > 0) this.o.log?.info({ pruned }, 'deleted finished digest runs past their retention');
    }
    const m = await store.materialize(now, this.o.graceMs, this.platforms);
    report.materialized = m.pending;
    report.skipped = m.skipped;
    const claimed = await store.claim({
      now,
      instance: this.instanceId,
      leaseMs: this.o.leaseMs,
      platforms: this.platforms,
      limit: this.o.batch,
    });
    report.claimed = claimed.length;
    for (const [slot, l] of this.loaders) if (now - l.used > this.o.slotDataIdleMs) this.loaders.delete(slot);
    if (claimed.length === 0) return report;
    const queue = [...claimed];
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const outcome = await this.process(c, now, time, this.loaderFor(c.run.slot, now));
        if (outcome === 'skipped') report.skipped++;
        else report[outcome]++;
        this.o.onOutcome?.(c.digest.platform, outcome);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency, claimed.length) }, worker));
    return report;
  }

  /**
   * Ten thousand digests falling due at 09:00 take many ticks to deliver, longer than the cache
   * keeps current PoL; a loader per slot keeps it one fetch per entity for the whole slot.
   */
  private loaderFor(slot: number, now: number): EntityLoader {
    let entry = this.loaders.get(slot);
    if (!entry) {
      entry = { loader: new EntityLoader(this.o.ctx.source), used: now };
      this.loaders.set(slot, entry);
    }
    entry.used = now;
    return entry.loader;
  }

  start(): void {
    this.ticker.start();
  }

  /** Stops ticking and waits for deliveries under way, so a clean shutdown leaves no claim behind. */
  async stop(): Promise<void> {
    await this.ticker.stop();
    this.loaders.clear();
  }

  private async process(c: ClaimedRun, now: number, time: () => number, loader: EntityLoader): Promise<Outcome> {
    const { store } = this.o;
    const { digest, run } = c;
    const deliverer = this.byPlatform.get(digest.platform)!;
    const me = this.instanceId;
    const log = this.o.log?.child({ digest: digest.id, slot: new Date(run.slot).toISOString() });
    try {
      if (run.attempts > this.o.maxAttempts) {
        const reason = `gave up after ${run.attempts - 1} attempts${run.reason ? `: ${run.reason}` : ''}`;
        return (await store.failed(digest.id, run.slot, me, time(), reason, false)) ? 'failed' : 'lost';
      }
      let content = run.content;
      let sent = run.partsSent;
      if ((c.recovered || run.attempts > 1) && content && deliverer.find) {
        // The previous holder may have posted parts without living to record them, or a post that
        // failed on a timeout may have landed after all.
        const parts = content.parts.length;
        const find = deliverer.find.bind(deliverer);
        const posted = async (key: string) => {
          try {
            return (await find(digest.channelId, key, workspaceOf(digest))) !== null;
          } catch (err) {
            // Not knowing is not a reason to post twice, nor to mark the channel failing: try later.
            throw new DeliveryError(`could not check for an earlier post (${asDeliveryError(err).reason})`, {
              permanent: false,
              cause: err,
            });
          }
        };
        while (sent < parts && (await posted(deliveryKey(digest, run.slot, sent, parts)))) {
          sent++;
          if (!(await store.partSent(digest.id, run.slot, me, sent))) return 'lost';
        }
        if (sent === parts) {
          log?.info('recovered digest run was already posted; recorded without posting again');
          return (await store.delivered(digest.id, run.slot, me, time())) ? 'confirmed' : 'lost';
        }
      }
      if (sent === 0 && now - run.slot > this.o.graceMs) {
        return (await store.skip(digest.id, run.slot, me, time(), LATE_REASON)) ? 'skipped' : 'lost';
      }
      if (sent === 0 || !content) {
        content = await this.build(c, now, loader);
        if (!(await store.saveContent(digest.id, run.slot, me, content, time() + this.o.leaseMs))) return 'lost';
        sent = 0;
      }
      const parts = content.parts.length;
      for (let i = sent; i < parts; i++) {
        // The fence: no post unless this replica still holds the run, with a fresh lease for the post.
        if (!(await store.renew(digest.id, run.slot, me, time() + this.o.leaseMs))) return 'lost';
        const reply = await this.withImage(content, i);
        await postWithRetry(deliverer, digest.channelId, reply, deliveryKey(digest, run.slot, i, parts), this.o.retry, workspaceOf(digest));
        if (!(await store.partSent(digest.id, run.slot, me, i + 1))) return 'lost';
      }
      return (await store.delivered(digest.id, run.slot, me, time())) ? 'delivered' : 'lost';
    } catch (err) {
      try {
        return await this.failure(c, err, time(), log);
      } catch (storeErr) {
        // The database is unreachable too: the claim stays and is taken over when its lease ends.
        log?.error({ err: storeErr }, 'could not record a digest failure');
        return 'lost';
      }
    }
  }

  private async build(c: ClaimedRun, now: number, loader: EntityLoader): Promise<RunContent> {
    const { store } = this.o;
    const { digest, run } = c;
    const previous = await store.previousDelivered(digest.id, run.slot);
    const unsent = await store.skippedBetween(digest.id, previous?.slot ?? null, run.slot);
    return buildDigest(
      loader,
      { digest, slot: run.slot, previous, unsent, nextRun: nextSlot(digest.cron, digest.timezone, Math.max(run.slot, now)), now },
      this.o.content,
    );
  }

  private async withImage(content: RunContent, part: number): Promise<Reply> {
    const reply = content.parts[part]!;
    if (part !== 0 || reply.kind !== 'table') return reply;
    const image = await chartFor(this.o.ctx.charts, content.chart);
    return image ? { ...reply, image } : reply;
  }

  private async failure(c: ClaimedRun, err: unknown, now: number, log: Logger | undefined): Promise<Outcome> {
    const { store } = this.o;
    const { digest, run } = c;
    const me = this.instanceId;
    if (err instanceof UpstreamError) {
      // The risk data could not be fetched: nothing was posted, try again shortly.
      log?.warn({ kind: err.kind, route: err.route }, 'digest data unavailable; will retry');
      return this.release(c, `risk data unavailable: ${err.kind}`, now);
    }
    const d = asDeliveryError(err);
    if (d.permanent) {
      log?.warn({ reason: d.reason, scope: d.scope }, 'digest delivery refused');
      return (await store.failed(digest.id, run.slot, me, now, d.reason, d.scope === 'channel')) ? 'failed' : 'lost';
    }
    if (err instanceof DeliveryError) log?.warn({ reason: d.reason }, 'digest delivery failed; will retry');
    else log?.error({ err }, 'digest delivery failed unexpectedly');
    return this.release(c, d.reason, now);
  }

  private async release(c: ClaimedRun, reason: string, now: number): Promise<Outcome> {
    const { store } = this.o;
    const { digest, run } = c;
    if (run.attempts >= this.o.maxAttempts) {
      return (await store.failed(digest.id, run.slot, this.instanceId, now, `gave up after ${run.attempts} attempts: ${reason}`, false))
        ? 'failed'
        : 'lost';
    }
    const wait = this.o.releaseBackoffMs * 2 ** (run.attempts - 1);
    return (await store.release(digest.id, run.slot, this.instanceId, now + wait, reason)) ? 'released' : 'lost';
  }
}
