import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EntityRef } from '../api/domain.js';
import { LeaseQueue, ms, type Db } from '../db/index.js';
import type { Logger } from '../log.js';
import type { Destination } from './destinations.js';
import type { Verdict } from './evaluate.js';
import type { EscalationEvent } from './store.js';
import { type AlertEvent, eventBody, send } from './senders.js';
import { isSeverity, type Severity } from './severity.js';

/** Events waiting for a destination, claimed with leases like every other unasked post. */
const EVENTS = LeaseQueue.ofTable('alert_events');

type Row = Record<string, unknown>;

export interface OutboxOptions {
  db: Db;
  destinations: readonly Destination[];
  /** Names this replica in `claimed_by`; unique per process by default. */
  instance?: string;
  log?: Logger;
  leaseMs?: number;
  /** Events claimed per pass. */
  batch?: number;
  /** The first wait after a failed try; it doubles each time, up to `maxWaitMs`. */
  backoffMs?: number;
  maxWaitMs?: number;
  /** An event not delivered this long after its transition is given up, with the reason. */
  giveUpAfterMs?: number;
}

export interface OutboxReport {
  sent: number;
  retried: number;
  failed: number;
  lost: number;
}

/** A destination's latest failure, for `alert list`. */
export interface DestinationFailure {
  ruleId: number;
  destination: string;
  reason: string;
  at: number;
}

/**
 * Tells the destinations outside chat (PagerDuty, signed webhooks) of each incident's transitions.
 * The events were written in the transaction that moved the incident; here each is claimed once
 * across replicas, its body built once and stored, sent, and retried with backoff on 429, 5xx and
 * network failures until it is given up, with the reason, a bounded time after the transition.
 */
export class Outbox {
  private readonly byName: Map<string, Destination>;
  private readonly o: Required<Omit<OutboxOptions, 'log'>> & Pick<OutboxOptions, 'log'>;

  constructor(options: OutboxOptions) {
    this.o = {
      leaseMs: 120_000,
      batch: 100,
      backoffMs: 5_000,
      maxWaitMs: 300_000,
      giveUpAfterMs: 3_600_000,
      instance: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
      ...options,
    };
    this.byName = new Map(options.destinations.map((d) => [d.name, d]));
  }

  /** The names a rule may notify. */
  get names(): string[] {
    return [...this.byName.keys()];
  }

  async dispatch(now: number): Promise<OutboxReport> {
    const report: OutboxReport = { sent: 0, retried: 0, failed: 0, lost: 0 };
    const claimed = await this.claim(now);
    // One destination at a time per event, all events at once: a slow receiver delays only its own.
    await Promise.all(claimed.map((row) => this.deliver(row, now, report)));
    return report;
  }

  /** The latest delivery that was given up, per rule and destination, over the last day. */
  async failures(ruleIds: readonly number[], now: number): Promise<DestinationFailure[]> {
    if (!ruleIds.length) return [];
    const rows = await this.o.db.query<Row>(
      `SELECT DISTINCT ON (i.rule_id, e.destination) i.rule_id, e.destination, e.reason, e.finished_at
         FROM alert_events e JOIN alert_incidents i ON i.id = e.incident_id
        WHERE i.rule_id = ANY($1::int[]) AND e.state = 'failed' AND e.finished_at >= $2
        ORDER BY i.rule_id, e.destination, e.finished_at DESC`,
      [[...ruleIds], new Date(now - 86_400_000)],
    );
    return rows.map((r) => ({
      ruleId: Number(r.rule_id),
      destination: String(r.destination),
      reason: String(r.reason),
      at: ms(r.finished_at),
    }));
  }

  private async claim(now: number): Promise<Row[]> {
    return this.o.db.transaction(async (tx) => {
      // An incident's events reach a destination in the order they happened: each waits until the
      // one before it there is sent or given up, held by any replica or waiting out a backoff.
      // PagerDuty drops an acknowledge or resolve for an incident it has not been told of yet.
      const due = await tx.query<Row>(
        `SELECT e.id FROM alert_events e WHERE ${EVENTS.claimable('e', '$1', 'e.not_before <= $1')}
            AND NOT EXISTS (SELECT 1 FROM alert_events p WHERE p.incident_id = e.incident_id AND p.destination = e.destination
                              AND p.id < e.id AND p.state IN ('pending', 'claimed'))
          ORDER BY e.id LIMIT $2 FOR UPDATE OF e SKIP LOCKED`,
        [new Date(now), this.o.batch],
      );
      const claimed: Row[] = [];
      for (const d of due) {
        const row = await EVENTS.take(tx, [d.id], this.o.instance, now + this.o.leaseMs);
        if (!row) continue;
        const [context] = await tx.query<Row>(
          `SELECT to_jsonb(i.*) AS incident, to_jsonb(r.*) AS rule FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id WHERE i.id = $1`,
          [row.incident_id],
        );
        if (context) claimed.push({ ...row, ...context });
      }
      return claimed;
    });
  }

  private async deliver(row: Row, now: number, report: OutboxReport): Promise<void> {
    const me = this.o.instance;
    const id = Number(row.id);
    const destination = this.byName.get(String(row.destination));
    const log = this.o.log?.child({ event: id, destination: row.destination });
    if (!destination) {
      if (await EVENTS.giveUp(this.o.db, [id], me, 'the destination is no longer configured', { finished_at: new Date(now) }))
        report.failed++;
      log?.warn('alert event for a destination that is no longer configured; given up');
      return;
    }
    let body = typeof row.body === 'string' ? row.body : null;
    const eventId = `polbot-evt-${id}`;
    if (body === null) {
      body = eventBody(destination, this.event(row, eventId));
      // Nothing this destination hears about (PagerDuty has no escalation): done without a request.
      if (body === null) {
        if (await EVENTS.finish(this.o.db, [id], me, { finished_at: new Date(now) })) report.sent++;
        return;
      }
      if (!(await EVENTS.fenced(this.o.db, [id], me, 'body = $3', [body]))) {
        report.lost++;
        return;
      }
    }
    const outcome = await send(destination, eventId, body);
    const attempts = Number(row.attempts);
    if (outcome.kind === 'done') {
      if (await EVENTS.finish(this.o.db, [id], me, { finished_at: new Date(now), reason: null })) report.sent++;
      else report.lost++;
      return;
    }
    const age = now - ms(row.occurred_at);
    if (outcome.kind === 'refused' || age >= this.o.giveUpAfterMs) {
      const reason =
        outcome.kind === 'refused'
          ? outcome.reason
          : `gave up after ${attempts} attempts over ${Math.round(age / 60_000)} min: ${outcome.reason}`;
      if (await EVENTS.giveUp(this.o.db, [id], me, reason, { finished_at: new Date(now) })) report.failed++;
      log?.warn({ reason }, 'alert event not delivered');
      return;
    }
    const wait = Math.min(this.o.maxWaitMs, outcome.retryAfterMs ?? this.o.backoffMs * 2 ** Math.max(0, attempts - 1));
    if (await EVENTS.release(this.o.db, [id], me, outcome.reason, { not_before: new Date(now + wait) })) report.retried++;
    log?.info({ reason: outcome.reason, waitMs: wait }, 'alert event will be sent again');
  }

  private event(row: Row, id: string): AlertEvent {
    const incident = jsonRow(row.incident);
    const rule = jsonRow(row.rule);
    const entities = (rule.entities as EntityRef[] | undefined) ?? [];
    const entity = entities.find((e) => e.kind === incident.kind && e.slug === incident.slug);
    const change = (incident.verdict as Verdict | undefined)?.change;
    const escalation =
      typeof row.escalation === 'string' ? (JSON.parse(row.escalation) as EscalationEvent) : (row.escalation as EscalationEvent | null);
    return {
      id,
      transition: row.transition as AlertEvent['transition'],
      occurredAt: ms(row.occurred_at),
      actor: (row.actor as string | null) ?? null,
      incident: {
        id: Number(incident.id),
        status: String(incident.status),
        kind: String(incident.kind),
        slug: String(incident.slug),
        name: entity?.name ?? String(incident.slug),
        ...(change ? { change: { from: change.from, to: change.to } } : {}),
        // A resolution is final, so the incident's reason now is the one it was resolved with.
        ...(row.transition === 'resolved' && incident.closed_reason ? { reason: String(incident.closed_reason) } : {}),
        ...(row.transition === 'snoozed' && incident.snoozed_until ? { snoozedUntil: ms(incident.snoozed_until) } : {}),
      },
      rule: {
        id: Number(rule.id),
        condition: String(rule.condition_text),
        platform: String(rule.platform),
        channelId: String(rule.channel_id),
        severity: isSeverity(String(rule.severity)) ? (rule.severity as Severity) : 'normal',
      },
      ...(escalation ? { escalation } : {}),
    };
  }
}

/** A row read back through to_jsonb: an object from pg, text from some drivers. */
const jsonRow = (v: unknown): Row => (typeof v === 'string' ? (JSON.parse(v) as Row) : ((v as Row) ?? {}));
