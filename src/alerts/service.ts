import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EntityRef, PolPoint } from '../api/domain.js';
import { settle } from '../api/settle.js';
import type { PostDeps } from '../delivery/deps.js';
import { asDeliveryError, DeliveryError, type Deliverer } from '../delivery/port.js';
import { workspaceOf, type Platform } from '../workspace.js';
import type { ListedReadings } from '../exposure/readings.js';
import type { Logger } from '../log.js';
import { footerOf, provenanceOf, type Provenance } from '../reply/footer.js';
import { Ticker } from '../time/ticker.js';
import type { Reply, ReplyImage } from '../reply/model.js';
import { AlertChecker, type CycleReport } from './checker.js';
import { alertKey, escalationKey } from './key.js';
import type { DestinationFailure, Outbox, OutboxReport } from './outbox.js';
import { percentText } from './condition.js';
import { demoMove, type DemoMove } from './demo.js';
import { evaluate } from './evaluate.js';
import { needsOf, readEntity } from './readings.js';
import type { ResolveReason } from './reason.js';
import { formatOf, messageFormat, type AlertFormat } from './severity.js';
import { entityOf, escalationMessage, followupMessage, incidentMessage, type MessageEntry } from './message.js';
import type { AlertRule, AlertStore, EscalationDue, Followup, IncidentView, RuleLimits } from './store.js';

export interface AlertLimits extends RuleLimits {
  /** How often a rule is checked, in seconds: its default and the bounds a person may choose within. */
  defaultEverySec: number;
  minEverySec: number;
  maxEverySec: number;
  /** Quiet time after an incident closes, and between thread replies of one incident. */
  defaultCooldownSec: number;
  /** Alert messages a channel gets in an hour at most; beyond it, one summary and its rules pause. */
  perChannelHour: number;
}

export const DEFAULT_ALERT_LIMITS: AlertLimits = {
  perChannel: 20,
  perWorkspace: 200,
  defaultEverySec: 300,
  minEverySec: 60,
  maxEverySec: 86_400,
  defaultCooldownSec: 1_800,
  perChannelHour: 10,
};

/** Said in `alert list` and the ceiling's summary; the channel's own words for why its rules stopped. */
export const CEILING_REASON = 'too many alerts in an hour';

export interface AlertServiceOptions {
  store: AlertStore;
  deps: PostDeps;
  deliverers: readonly Deliverer[];
  log?: Logger;
  now?: () => number;
  instanceId?: string;
  limits?: Partial<AlertLimits>;
  /** Pause between ticks on the timer. Default 15 s: a rule due every minute is seen within one. */
  tickMs?: number;
  /** How long a claim (a rule's check, a message's delivery) holds without renewal. Default 2 min. */
  leaseMs?: number;
  /** Rules claimed per tick. */
  batch?: number;
  /** Claims of one delivery before it is given up. */
  maxAttempts?: number;
  /** Writes out the typed command of each button (the command core's `complete`), as for any reply. */
  complete?: (reply: Reply) => Reply;
  /**
   * Demo mode only: moves the simulator (and forgets cached readings of the entity), so that
   * `alert test` is followed by a real alert. Says what moved when it chose (a listed asset).
   */
  demo?: (entity: EntityRef, move: DemoMove) => Promise<string | undefined>;
  /** Tells destinations outside chat (PagerDuty, webhooks) of each transition; absent where none are configured. */
  outbox?: Outbox;
  /** Where checks keep what they read of exchanges' listed assets, for `exposure`. */
  listed?: ListedReadings;
}

export interface AlertTick {
  check: CycleReport;
  /** Messages posted (coalesced incidents count once). */
  posted: number;
  /** Incidents held by a mute that ended while they still held, now to be posted. */
  released: number;
  /** Messages found already in their channel after a takeover or a failed post, recorded without posting again. */
  confirmed: number;
  /** Replies posted in messages' threads. */
  followups: number;
  /** Messages redrawn in place for a further crossing or a clearing. */
  redrawn: number;
  /** Escalation steps posted in messages' threads (or found there after a takeover) and recorded. */
  escalated: number;
  suppressed: number;
  failed: number;
  /** Claims lost to another replica mid-delivery (their lease ran out). */
  lost: number;
  /** Events sent to destinations outside chat, where any are configured. */
  outbound?: OutboxReport;
}

/** A person's step on an alert, as the commands give it. */
export type AlertStep = { kind: 'acknowledge' } | { kind: 'snooze'; untilMs: number } | { kind: 'resolve'; reason: ResolveReason };

const HOUR = 3_600_000;
/** 20,000 due rules a tick at the default batch; beyond that, the next tick goes on. */
const MAX_CYCLES_PER_TICK = 10;

/**
 * Runs alerts: each tick checks the rules that are due (AlertChecker), then delivers what the
 * store holds undelivered: new incidents (those of one channel from one check share a message),
 * and follow-ups (a further crossing or a clearing: the message redrawn from the values stored with
 * the incident, and a reply in its thread; a further crossing within the cooldown: the redraw only). Delivery
 * reads only the store, never a cycle's memory, so a replica killed between deciding and posting
 * leaves its work to the next claimer. How each message is posted once, and the gaps that remain,
 * are in docs/architecture.md ("Alerts delivered exactly once").
 */
export class AlertService {
  readonly store: AlertStore;
  readonly limits: AlertLimits;
  readonly instanceId: string;
  private readonly checker: AlertChecker;
  private readonly byPlatform: Map<Platform, Deliverer>;
  private readonly clock: () => number;
  private readonly o: Required<Pick<AlertServiceOptions, 'tickMs' | 'leaseMs' | 'batch' | 'maxAttempts'>>;
  private readonly ticker: Ticker;

  constructor(private readonly options: AlertServiceOptions) {
    this.store = options.store;
    this.limits = { ...DEFAULT_ALERT_LIMITS, ...options.limits };
    this.clock = options.now ?? Date.now;
    this.instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.o = { tickMs: 15_000, leaseMs: 120_000, batch: 2_000, maxAttempts: 5, ...pick(options) };
    this.byPlatform = new Map(options.deliverers.map((d) => [d.platform, d]));
    this.checker = new AlertChecker(this.store, options.deps.source, {
      instance: this.instanceId,
      leaseMs: this.o.leaseMs,
      batch: this.o.batch,
      now: this.clock,
      ...(options.listed ? { listed: options.listed } : {}),
    });
    this.ticker = new Ticker(
      () => this.tick(),
      this.o.tickMs,
      (err) => this.options.log?.error({ err }, 'alert tick failed'),
    );
  }

  get platforms(): Platform[] {
    return [...this.byPlatform.keys()];
  }

  /** The destinations outside chat a rule may notify (POLBOT_DESTINATIONS), by name. */
  get destinations(): string[] {
    return this.options.outbox?.names ?? [];
  }

  /** Deliveries to those destinations given up over the last day, per rule, for `alert list`. */
  destinationFailures(ruleIds: readonly number[]): Promise<DestinationFailure[]> {
    return this.options.outbox ? this.options.outbox.failures(ruleIds, this.clock()) : Promise.resolve([]);
  }

  /** One check and delivery pass; safe from any number of replicas at once. */
  async tick(): Promise<AlertTick> {
    // Everything due is checked in this tick, a batch at a time, so the rules watching one entity
    // are judged within the cache's lifetime of its reading rather than a tick apart.
    const check = await this.checker.cycle();
    for (let cycles = 1, full = check.rules === this.o.batch; full && cycles < MAX_CYCLES_PER_TICK; cycles++) {
      const next = await this.checker.cycle();
      check.rules += next.rules;
      check.entities += next.entities;
      check.events.push(...next.events);
      full = next.rules === this.o.batch;
    }
    const report: AlertTick = {
      check,
      posted: 0,
      released: await this.store.releaseHeld(this.clock()),
      confirmed: 0,
      followups: 0,
      redrawn: 0,
      escalated: 0,
      suppressed: 0,
      failed: 0,
      lost: 0,
    };
    await this.deliverIncidents(report);
    await this.deliverFollowups(report);
    await this.deliverEscalations(report);
    if (this.options.outbox) report.outbound = await this.options.outbox.dispatch(this.clock());
    return report;
  }

  start(): void {
    this.ticker.start();
  }

  async stop(): Promise<void> {
    await this.ticker.stop();
  }

  // -------------------------------------------------------------------------------------------
  // People's steps

  /**
   * Acknowledges, snoozes or resolves (with a reason) an incident (and those sharing its message) from its own
   * channel, then redraws the message from what the store now holds. The person is stored by their
   * id on the platform (the message names them by it) and the name they go by now. Null when there
   * is no such open incident in this channel. A redraw that fails costs the redraw, not the step:
   * the next one draws the same truth.
   */
  async act(
    id: number,
    where: { platform: Platform; channelId: string },
    person: { id: string; name?: string | undefined },
    step: AlertStep,
  ): Promise<IncidentView | null> {
    const now = this.clock();
    const by = { by: person.name ?? person.id, byId: person.id };
    const stored =
      step.kind === 'snooze'
        ? { kind: 'snooze' as const, ...by, until: step.untilMs }
        : step.kind === 'resolve'
          ? { kind: 'resolve' as const, ...by, reason: step.reason }
          : { kind: step.kind, ...by };
    const moved = await this.store.act(id, where, stored, now);
    if (!moved) return null;
    await this.redraw(moved.leadId ?? moved.id).catch((err: unknown) => {
      this.options.log?.warn({ incident: id, reason: asDeliveryError(err).reason }, 'alert message could not be redrawn');
    });
    return moved;
  }

  /**
   * Posts a sample of a rule's alert, marked as a test, on its first entity. In demo mode the
   * simulator then moves across the rule's line and the rule is checked at once: the real alert
   * follows within a minute. Says what moved, if anything did.
   */
  async test(rule: AlertRule): Promise<string | null> {
    const deliverer = this.byPlatform.get(rule.platform);
    if (!deliverer) throw new Error(`no deliverer for ${rule.platform}`);
    const now = this.clock();
    const entity = rule.entities[0]!;
    // The rule's own measure as it reads now, so the sample looks like the real thing.
    const { reading, provenance } = await readEntity(this.options.deps.source, entity, needsOf([rule.condition]), Math.floor(now / 1000));
    const verdict = { ...evaluate(rule.condition, undefined, reading), holds: true };
    const incident: IncidentView = {
      id: 0,
      ruleId: rule.id,
      kind: entity.kind,
      slug: entity.slug,
      status: 'open',
      verdict,
      openedAt: now,
      acknowledgedBy: null,
      acknowledgedById: null,
      acknowledgedAt: null,
      snoozedBy: null,
      snoozedById: null,
      snoozedUntil: null,
      closedBy: null,
      closedById: null,
      closedAt: null,
      closedReason: null,
      latest: null,
      worst: null,
      shown: { reading: provenance },
      messageRef: null,
      leadId: null,
      deliveryState: 'delivered',
      deliveryAttempts: 0,
      held: null,
    };
    const format = formatOf(rule.severity, await this.store.channelFormat(rule.platform, rule.channelId));
    await deliverer.post(rule.channelId, (await this.draw([{ incident, rule }], now, true, format)).reply, workspaceOf(rule));
    if (!this.options.demo || rule.state !== 'active') return null;
    // A change is judged against the last check: the rule needs one before the move.
    if (rule.lastCheckedAt === null) await this.tick();
    const move = demoMove(rule.condition, reading);
    const moved = await this.options.demo(entity, move);
    await this.store.checkSoon(rule.id, this.clock());
    void this.tick().catch((err: unknown) => this.options.log?.error({ err }, 'alert tick after a demo move failed'));
    return `${entity.name}: ${moved ?? moveText(move)}`;
  }

  // -------------------------------------------------------------------------------------------
  // Delivery

  private async deliverIncidents(report: AlertTick): Promise<void> {
    const now = this.clock();
    const claimed = await this.store.claimUndelivered(this.claimOf(now));
    await Promise.all(byChannel(claimed).map((entries) => this.deliverToChannel(entries, report)));
  }

  private async deliverToChannel(claimed: MessageEntry[], report: AlertTick): Promise<void> {
    const me = this.instanceId;
    const { platform, channelId } = claimed[0]!.rule;
    const deliverer = this.byPlatform.get(platform)!;
    const log = this.options.log?.child({ platform, channel: channelId });
    const ids = claimed.map((e) => e.incident.id);
    // Held from the first look at the channel's history to the record of the post.
    const stopRenewing = this.renewWhile(ids, (id) => this.store.renewDelivery(id, me, this.clock(), this.o.leaseMs));
    try {
      let entries: MessageEntry[];
      try {
        entries = await this.recover(deliverer, claimed, report, log);
      } catch (err) {
        // Not knowing whether the message is there is no reason to post it twice: tried again after
        // the lease, and given up (never posted) once out of attempts.
        const d = asDeliveryError(err);
        for (const e of claimed) {
          const over = e.incident.deliveryAttempts > this.o.maxAttempts;
          if (
            (await this.store.deliveryFailed(
              e.incident.id,
              me,
              over ? `gave up after ${this.o.maxAttempts} attempts: ${d.reason}` : d.reason,
              over,
            )) &&
            over
          )
            report.failed++;
        }
        log?.warn({ reason: d.reason }, 'could not look for an earlier alert message; will retry');
        return;
      }
      const given = entries.filter((e) => e.incident.deliveryAttempts > this.o.maxAttempts);
      for (const e of given)
        if (await this.store.deliveryFailed(e.incident.id, me, `gave up after ${this.o.maxAttempts} attempts`, true)) report.failed++;
      entries = entries.filter((e) => !given.includes(e));
      if (!entries.length) return;

      const now = this.clock();
      if ((await this.store.messagesSince(platform, channelId, now - HOUR)) >= this.limits.perChannelHour) {
        await this.overCeiling(deliverer, entries, report, log);
        return;
      }
      await this.post(deliverer, entries, now, report, log);
    } finally {
      stopRenewing();
    }
  }

  /**
   * Incidents claimed before (their holder died mid-post, or a post failed after the platform may
   * have taken it) may already be in the channel. Each such message is looked for by its key,
   * its lead's id as recorded before it was posted; what is found is recorded as delivered with
   * that message's reference instead of being posted again. Returns what is still to post.
   * Throws (a transient DeliveryError) when the channel could not be searched.
   */
  private async recover(
    deliverer: Deliverer,
    entries: MessageEntry[],
    report: AlertTick,
    log: Logger | undefined,
  ): Promise<MessageEntry[]> {
    const again = entries.filter((e) => e.incident.deliveryAttempts > 1);
    if (!again.length || !deliverer.find) return entries;
    const { channelId } = entries[0]!.rule;
    const leadOf = (e: MessageEntry) => e.incident.leadId ?? e.incident.id;
    const found = new Set<MessageEntry>();
    for (const lead of new Set(again.map(leadOf))) {
      let ref: string | null;
      try {
        ref = await deliverer.find(channelId, alertKey(lead), workspaceOf(entries[0]!.rule));
      } catch (err) {
        throw new DeliveryError(`could not check for an earlier post (${asDeliveryError(err).reason})`, { permanent: false, cause: err });
      }
      if (ref === null) continue;
      const carried = again.filter((e) => leadOf(e) === lead);
      const now = this.clock();
      const recorded = await Promise.all(
        carried.map((e) => this.store.delivered(e.incident.id, this.instanceId, ref, now, e.incident.id === lead ? null : lead)),
      );
      for (const e of carried) found.add(e);
      report.confirmed++;
      report.lost += recorded.filter((ok) => !ok).length;
      log?.info(
        { incidents: carried.map((e) => e.incident.id), ref },
        'alert message was already in the channel; recorded without posting again',
      );
    }
    return entries.filter((e) => !found.has(e));
  }

  /** Posts one message for `entries` (the first leads it) and records it for each, fenced by their claims. */
  private async post(
    deliverer: Deliverer,
    entries: MessageEntry[],
    now: number,
    report: AlertTick,
    log: Logger | undefined,
  ): Promise<void> {
    const me = this.instanceId;
    const { platform, channelId } = entries[0]!.rule;
    const ids = entries.map((e) => e.incident.id);
    const lead = ids[0]!;
    try {
      const format = messageFormat(
        entries.map((e) => e.rule.severity),
        await this.store.channelFormat(platform, channelId),
      );
      const { reply, chart } = await this.draw(entries, now, false, format);
      // The fence, and the message's members recorded before it can land anywhere, with where its chart came from.
      if (!(await this.store.planMessage(ids, lead, me, this.clock(), this.o.leaseMs, chart, format))) {
        report.lost += ids.length;
        log?.warn({ incidents: ids }, 'alert claims taken over before posting; not posted');
        return;
      }
      const ref = await deliverer.post(channelId, reply, workspaceOf(entries[0]!.rule));
      const recorded = await Promise.all(ids.map((id) => this.store.delivered(id, me, ref, now, id === lead ? null : lead)));
      report.posted++;
      report.lost += recorded.filter((ok) => !ok).length;
      log?.info({ incidents: ids, ref }, 'alert posted');
    } catch (err) {
      const d = asDeliveryError(err);
      for (const id of ids) await this.store.deliveryFailed(id, me, d.reason, d.permanent);
      if (d.permanent) report.failed += ids.length;
      if (d.permanent && d.scope === 'channel') await this.channelGone(platform, channelId, d.reason, log);
      else log?.warn({ reason: d.reason, permanent: d.permanent }, d.permanent ? 'alert refused' : 'alert delivery failed; will retry');
    }
  }

  /**
   * The channel had its hour's worth of alerts: these are held back, its rules pause, and the
   * replica that paused them (one, by the update's row count) says so once, with how to resume.
   */
  private async overCeiling(deliverer: Deliverer, entries: MessageEntry[], report: AlertTick, log: Logger | undefined): Promise<void> {
    const { platform, channelId } = entries[0]!.rule;
    for (const e of entries) if (await this.store.suppressed(e.incident.id, this.instanceId)) report.suppressed++;
    const paused = await this.store.pauseChannel(platform, channelId, CEILING_REASON);
    log?.warn({ held: entries.length, paused }, "alert ceiling reached; the channel's rules are paused");
    if (!paused) return;
    const names = [...new Set(entries.map((e) => entityOf(e).name))];
    const notice: Reply = {
      kind: 'text',
      title: '⏸️ Alerts paused in this channel',
      text: [
        `This channel had ${this.limits.perChannelHour} alert messages in the last hour, the most it gets. ${entries.length} more (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}) were held back, and its ${paused} alert ${paused === 1 ? 'rule is' : 'rules are'} paused. Resume them with `,
        { ref: { command: 'alert-resume', args: { id: 'all' } } },
        ' once things are calmer.',
      ],
    };
    await deliverer
      .post(channelId, this.options.complete ? this.options.complete(notice) : notice, workspaceOf(entries[0]!.rule))
      .catch((err: unknown) => log?.warn({ reason: asDeliveryError(err).reason }, 'alert ceiling notice not delivered'));
  }

  private async channelGone(platform: Platform, channelId: string, reason: string, log: Logger | undefined): Promise<void> {
    const paused = await this.store.pauseChannel(platform, channelId, `paused: ${reason}`);
    log?.warn({ reason, paused }, 'alert channel is out of reach; its rules are paused');
  }

  /** What every claim of this replica's asks for: its lease, its batch, the platforms it posts to. */
  private claimOf(now: number) {
    return { now, instance: this.instanceId, leaseMs: this.o.leaseMs, limit: this.o.batch, platforms: this.platforms };
  }

  private async deliverFollowups(report: AlertTick): Promise<void> {
    const me = this.instanceId;
    const now = this.clock();
    const claimed = await this.store.claimFollowups(this.claimOf(now));
    await this.perChannel(
      claimed,
      (id) => this.store.renewFollowup(id, me, this.clock(), this.o.leaseMs),
      (f) => this.deliverFollowup(f, now, report),
    );
  }

  private async deliverFollowup(f: Followup, now: number, report: AlertTick): Promise<void> {
    const me = this.instanceId;
    const { rule, incident } = f;
    const deliverer = this.byPlatform.get(rule.platform)!;
    const snoozed = incident.status === 'snoozed' && incident.snoozedUntil !== null && incident.snoozedUntil > now;
    if (f.message.state !== 'delivered' || !f.message.ref) {
      // Nothing to follow: the message never went out.
      await this.store.followupSettled(f.id, me, 'skipped', snoozed ? 'snoozed' : `the alert message was ${f.message.state}`);
      return;
    }
    // The message is redrawn from what the store now holds; its thread hears of a clearing, and of
    // a further crossing unless it came within the cooldown (a `redraw`) or someone asked for quiet (a snooze).
    const thread = f.kind === 'cleared' || (f.kind === 'again' && !snoozed);
    try {
      await this.redraw(f.message.leadId);
      if (thread)
        await deliverer.followUp(
          rule.channelId,
          f.message.ref,
          followupMessage(f.kind === 'cleared' ? 'cleared' : 'again', { incident, rule }, f.verdict, f.createdAt),
          workspaceOf(rule),
        );
      const quiet = f.kind === 'again' && !thread;
      if (await this.store.followupSettled(f.id, me, quiet ? 'skipped' : 'done', quiet ? 'snoozed' : undefined)) {
        report.redrawn++;
        if (thread) report.followups++;
      } else report.lost++;
    } catch (err) {
      const d = asDeliveryError(err);
      const gaveUp = d.permanent || f.attempts >= this.o.maxAttempts;
      await this.store.followupSettled(f.id, me, gaveUp ? 'failed' : 'retry', d.reason);
      if (gaveUp) report.failed++;
      if (d.permanent && d.scope === 'channel') await this.channelGone(rule.platform, rule.channelId, d.reason, this.options.log);
    }
  }

  /**
   * Posts the escalation steps that are due, each one reply in its incident's thread calling on
   * its group. Each is claimed, fenced just before the post (still this replica's, the incident
   * still unacknowledged), and recorded as done with its 'escalated' event in one transaction. A
   * step claimed before is first looked for in the thread, so a holder that died after posting
   * costs no second reply.
   */
  private async deliverEscalations(report: AlertTick): Promise<void> {
    const me = this.instanceId;
    const claimed = await this.store.claimEscalations(this.claimOf(this.clock()));
    await this.perChannel(
      claimed,
      (id) => this.store.renewEscalation(id, me, this.clock(), this.o.leaseMs),
      (due) => this.escalate(due, report),
    );
  }

  private async escalate(due: EscalationDue, report: AlertTick): Promise<void> {
    const me = this.instanceId;
    const { rule, incident } = due;
    const deliverer = this.byPlatform.get(rule.platform)!;
    const log = this.options.log?.child({ platform: rule.platform, channel: rule.channelId, incident: incident.id, step: due.step });
    try {
      const ref = incident.messageRef;
      if (!ref) {
        if (await this.store.escalationFailed(due.id, me, 'the alert message was never posted', true)) report.failed++;
        return;
      }
      const where = workspaceOf(rule);
      const landed =
        due.attempts > 1 && deliverer.findReply ? await deliverer.findReply(rule.channelId, ref, escalationKey(due.id), where) : false;
      if (!landed) {
        const fence = await this.store.escalationFence(due.id, me, this.clock(), this.o.leaseMs);
        if (fence === 'lost') report.lost++;
        if (fence !== 'go') return;
        await deliverer.followUp(rule.channelId, ref, escalationMessage({ incident, rule }, due), where);
      }
      if (!(await this.store.escalated(due.id, me, this.clock()))) {
        report.lost++;
        return;
      }
      report.escalated++;
      log?.info({ group: due.group.label, found: landed }, 'alert escalated');
      await this.redraw(incident.leadId ?? incident.id).catch((err: unknown) => {
        log?.warn({ reason: asDeliveryError(err).reason }, 'alert message could not be redrawn after its escalation');
      });
    } catch (err) {
      const d = asDeliveryError(err);
      const gaveUp = d.permanent || due.attempts >= this.o.maxAttempts;
      if ((await this.store.escalationFailed(due.id, me, d.reason, gaveUp)) && gaveUp) report.failed++;
      if (d.permanent && d.scope === 'channel') await this.channelGone(rule.platform, rule.channelId, d.reason, log);
      else log?.warn({ reason: d.reason, gaveUp }, 'alert escalation not posted');
    }
  }

  /** Redraws a message from the store: every incident it carries, as it stands now. */
  private async redraw(leadId: number): Promise<void> {
    const entries = await this.store.message(leadId);
    const lead = entries[0];
    if (!lead?.incident.messageRef) return;
    const deliverer = this.byPlatform.get(lead.rule.platform);
    if (!deliverer) return;
    // The chart was posted with the message and stays with it; a redraw changes words and buttons.
    await deliverer.update(
      lead.rule.channelId,
      lead.incident.messageRef,
      (await this.draw(entries, this.clock(), false, lead.incident.shown?.format ?? 'full', false)).reply,
      workspaceOf(lead.rule),
    );
  }

  /**
   * An alert message: drawn with its chart to be posted (`withChart`), or without it to redraw one
   * posted before. Its footer says where what it shows came from: the readings behind its values
   * and its chart, as recorded when they were drawn, never where the data would come from now.
   * Incidents from before that was recorded have their chart's source looked up once, through the
   * cache, and kept. Comes back with where the chart drawn now came from.
   */
  private async draw(
    entries: readonly MessageEntry[],
    now: number,
    test: boolean,
    format: AlertFormat,
    posting = true,
  ): Promise<{ reply: Reply; chart: Provenance[] }> {
    // A compact line has no chart, posted or redrawn.
    const withChart = posting && format === 'full';
    const entities = [...new Map(entries.map((e) => [`${e.incident.kind}:${e.incident.slug}`, entityOf(e)])).values()];
    const unrecorded = !withChart && entries.every((e) => e.incident.shown === null);
    const charts =
      withChart || unrecorded
        ? await Promise.all(entities.slice(0, 5).map((e) => settle(this.options.deps.source.polChart(e.kind, e.slug, 30))))
        : [];
    const fetched = charts.flatMap((c) => (c.ok ? [c.value] : []));
    const chart = fetched.map((f) => provenanceOf(f.meta));
    if (unrecorded)
      await this.store.recordShown(
        entries.map((e) => e.incident.id),
        { chart },
      );
    const drawn = footerOf(
      [
        ...(withChart || unrecorded ? chart : entries.flatMap((e) => e.incident.shown?.chart ?? [])),
        ...entries.flatMap((e) => e.incident.shown?.reading ?? []),
      ],
      now,
    );
    // Every real alert message carries its key, first among the notes (a footer cut for length
    // keeps its start), so it can be found in the channel again; a sample has nothing to find.
    const footer = test || !entries[0] ? drawn : { ...drawn, notes: [alertKey(entries[0].incident.id), ...(drawn.notes ?? [])] };
    // One rule on a PoL level: its line is drawn across the chart, so the crossing shows.
    const levels = [...new Set(entries.map((e) => (e.rule.condition.kind === 'pol_above' ? e.rule.condition.threshold : null)))];
    const line =
      levels.length === 1 && levels[0] !== null ? { value: levels[0]!, label: `alert at ${percentText(levels[0]!)}` } : undefined;
    const image = withChart
      ? await this.chart(
          entities,
          fetched.map((f) => f.data),
          footer.simulated,
          line,
        )
      : undefined;
    const reply = incidentMessage({ entries, now, footer, test, format, ...(image ? { image } : {}) });
    return { reply: this.options.complete ? this.options.complete(reply) : reply, chart };
  }

  /** The last 30 days of PoL: one entity's chart, or several on one. A chart that fails costs the image only. */
  private async chart(
    entities: readonly EntityRef[],
    series: readonly (readonly PolPoint[])[],
    simulated: boolean,
    line?: { value: number; label: string },
  ): Promise<ReplyImage | undefined> {
    if (!series.length || entities.length < series.length) return undefined;
    try {
      if (series.length === 1) {
        const e = entities[0]!;
        return await this.options.deps.charts.render({
          kind: 'pol',
          entityName: e.name,
          range: '30d',
          simulated,
          cacheKey: `${e.kind}:${e.slug}`,
          points: series[0]!,
          ...(line ? { line } : {}),
        });
      }
      return await this.options.deps.charts.render({
        kind: 'watchlist',
        range: '30d',
        simulated,
        listName: 'Alerts',
        series: series.map((points, i) => ({ name: entities[i]!.name, points })),
      });
    } catch {
      return undefined;
    }
  }

  /**
   * Works through claimed replies in threads channel by channel side by side, so a slow post in one
   * channel delays no other's, and one at a time within a channel, each claim renewed from the
   * moment it was claimed until its turn is over: one waiting behind a slow post is not taken over
   * meanwhile (follow-ups carry no key to be found by, so a takeover would post them twice).
   */
  private async perChannel<T extends { id: number; rule: Pick<AlertRule, 'platform' | 'channelId'> }>(
    claimed: readonly T[],
    renew: (id: number) => Promise<boolean>,
    work: (item: T) => Promise<void>,
  ): Promise<void> {
    await Promise.all(
      byChannel(claimed).map(async (items) => {
        const waiting = new Set(items.map((i) => i.id));
        const stopRenewing = this.renewWhile(waiting, renew);
        try {
          for (const item of items) {
            await work(item);
            waiting.delete(item.id);
          }
        } finally {
          stopRenewing();
        }
      }),
    );
  }

  /** Renews the claims on `ids` (as they stand at each renewal) every third of a lease until stopped, so a slow post keeps them. */
  private renewWhile(ids: Iterable<number>, renew: (id: number) => Promise<boolean>): () => void {
    const timer = setInterval(
      () => {
        for (const id of ids) void renew(id).catch((err: unknown) => this.options.log?.warn({ err }, 'alert claim renewal failed'));
      },
      Math.max(1_000, Math.floor(this.o.leaseMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }
}

/** Claimed work grouped by the channel it goes to, each group in the order it was claimed. */
function byChannel<T extends { rule: Pick<AlertRule, 'platform' | 'channelId'> }>(claimed: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const c of claimed) {
    const key = `${c.rule.platform}:${c.rule.channelId}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()];
}

function moveText(m: DemoMove): string {
  if ('pol' in m) return `PoL moved to ${(m.pol * 100).toFixed(1)}%`;
  if ('rating' in m) return `rating moved to ${m.rating}`;
  if ('redFlag' in m) return `a red flag added (${m.redFlag})`;
  if ('listedAsset' in m)
    return 'pol' in m.listedAsset
      ? `a listed asset's PoL moved to ${(m.listedAsset.pol * 100).toFixed(1)}%`
      : `a listed asset's PoL up ${(m.listedAsset.rise * 100).toFixed(1)} points`;
  return Object.entries(m.categories)
    .map(([c, v]) => `${c.replace(/_/g, ' ')} score moved to ${v}`)
    .join(', ');
}

function pick(o: AlertServiceOptions): Partial<Pick<AlertServiceOptions, 'tickMs' | 'leaseMs' | 'batch' | 'maxAttempts'>> {
  return Object.fromEntries(
    Object.entries({ tickMs: o.tickMs, leaseMs: o.leaseMs, batch: o.batch, maxAttempts: o.maxAttempts }).filter(([, v]) => v !== undefined),
  );
}
