import type { EntityKind, EntityRef } from '../api/domain.js';
import { LeaseQueue, ms, msOrNull, type Db, type Queryable } from '../db/index.js';
import { scopeCondition } from '../db/scope.js';
import type { Provenance } from '../reply/footer.js';
import { UNINSTALLED_REASON, type InstallScope, type Platform } from '../workspace.js';
import type { Condition } from './condition.js';
import type { EscalationStep, Group } from './escalation.js';
import type { Reading, Verdict } from './evaluate.js';
import { coveringMute, MuteStore, type Held } from './mutes.js';
import type { ResolveReason } from './reason.js';
import type { AlertFormat, Severity } from './severity.js';

/**
 * Alert rules of a channel, what the last check of each rule saw of each entity, and incidents.
 * Lives in the same database as digests (PGlite, or PostgreSQL for several replicas); every step a
 * replica takes is claimed in a transaction, so two replicas never check a rule twice in one cycle
 * and never open two incidents for one crossing.
 */

export type RuleState = 'active' | 'paused';

export interface AlertRule {
  id: number;
  platform: Platform;
  workspaceId: string | null;
  /** The Slack organisation (Enterprise Grid) of the workspace, if any. */
  enterpriseId: string | null;
  channelId: string;
  entities: EntityRef[];
  condition: Condition;
  /** The condition as the person wrote it, for listing. */
  conditionText: string;
  everySec: number;
  cooldownSec: number;
  /** Destinations outside chat told of each incident's transitions (names from POLBOT_DESTINATIONS). */
  notify: string[];
  /** How loudly its alerts are posted (src/alerts/severity.ts); `normal` for rules from before severities. */
  severity: Severity;
  /** Whom an incident still unacknowledged calls on, step by step; empty when it escalates to nobody. */
  escalation: EscalationStep[];
  state: RuleState;
  /** Why it is paused, safe to show in the channel. */
  stateReason: string | null;
  createdBy: string;
  createdAt: number;
  nextCheck: number;
  lastCheckedAt: number | null;
}

export type NewRule = Pick<
  AlertRule,
  'platform' | 'workspaceId' | 'channelId' | 'entities' | 'condition' | 'conditionText' | 'everySec' | 'cooldownSec' | 'createdBy'
> & { enterpriseId?: string | null; notify?: readonly string[]; severity?: Severity; escalation?: readonly EscalationStep[] };

export interface RuleLimits {
  perChannel: number;
  perWorkspace: number;
}

export type CreateRuleResult = { ok: true; rule: AlertRule } | { ok: false; reason: 'channel_full' | 'workspace_full'; count: number };

export interface EntityCheck {
  kind: EntityKind;
  slug: string;
  reading: Reading | null;
  /** Earlier readings, oldest first, kept as long as the longest window a condition may use. */
  history: Reading[];
  holds: boolean | null;
}

export type IncidentStatus = 'open' | 'acknowledged' | 'snoozed' | 'resolved' | 'cleared';

export interface Incident {
  id: number;
  ruleId: number;
  kind: EntityKind;
  slug: string;
  status: IncidentStatus;
  verdict: Verdict;
  openedAt: number;
}

/** Readings older than the longest window a condition may name (30 days) are dropped. */
const HISTORY_SEC = 30 * 86_400;
const MAX_HISTORY = 2_000;

type Row = Record<string, unknown>;

function toRule(r: Row): AlertRule {
  return {
    id: Number(r.id),
    platform: r.platform as Platform,
    workspaceId: (r.workspace_id as string | null) ?? null,
    enterpriseId: (r.enterprise_id as string | null) ?? null,
    channelId: String(r.channel_id),
    entities: r.entities as EntityRef[],
    condition: r.condition as Condition,
    conditionText: String(r.condition_text),
    everySec: Number(r.every_sec),
    cooldownSec: Number(r.cooldown_sec),
    notify: Array.isArray(r.notify) ? (r.notify as string[]) : parseTextArray(r.notify),
    severity: ((r.severity as Severity | undefined) ?? 'normal') as Severity,
    escalation: Array.isArray(r.escalation) ? (r.escalation as EscalationStep[]) : [],
    state: r.state as RuleState,
    stateReason: (r.state_reason as string | null) ?? null,
    createdBy: String(r.created_by),
    createdAt: ms(r.created_at),
    nextCheck: ms(r.next_check),
    lastCheckedAt: msOrNull(r.last_checked_at),
  };
}

function toIncident(r: Row): Incident {
  return {
    id: Number(r.id),
    ruleId: Number(r.rule_id),
    kind: r.kind as EntityKind,
    slug: String(r.slug),
    status: r.status as IncidentStatus,
    verdict: r.verdict as Verdict,
    openedAt: ms(r.opened_at),
  };
}

/** How a rule did over a window (`alert stats`), from the incidents it opened in it. */
export interface RuleStats {
  ruleId: number;
  opened: number;
  acknowledged: number;
  /** Of the acknowledged ones; null when none was. */
  medianAckSec: number | null;
  /** Resolved with a reason, and of those, resolved as noise. */
  reasoned: number;
  noise: number;
  noisy: boolean;
}

/** The worst value an incident saw since it opened, in its words, with how bad it is (more is worse) to weigh the next one against. */
export interface Worst {
  value: string;
  badness: number;
}

/**
 * Where what an incident's message shows came from, so that every redraw says it again: the
 * reading behind its values (the crossing that opened it, or the latest that moved it) and the
 * chart drawn when the message was posted.
 */
export interface Shown {
  reading?: Provenance[];
  chart?: Provenance[];
  /** How the message was posted; a redraw keeps it, whatever the channel chose since. Full when absent. */
  format?: AlertFormat;
}

/** What a check saw that opens or moves an incident: how bad its value is, and where it came from. */
export interface Seen {
  badness: number | null;
  provenance: Provenance[];
}

/**
 * An incident with who did what to it, for drawing its message. People are stored by the name
 * they had then and, since schema version 7, by their id on the platform (`…ById`): earlier rows
 * have the name only.
 */
export interface IncidentView extends Incident {
  acknowledgedBy: string | null;
  acknowledgedById: string | null;
  acknowledgedAt: number | null;
  snoozedBy: string | null;
  snoozedById: string | null;
  snoozedUntil: number | null;
  closedBy: string | null;
  closedById: string | null;
  closedAt: number | null;
  /** Why a person resolved it; null while open, when it cleared by itself, or resolved before reasons were asked. */
  closedReason: ResolveReason | null;
  /** The verdict of the latest further crossing or clearing; null while the incident shows what opened it. */
  latest: Verdict | null;
  /** The worst value since it opened; null where the measure has none, or for incidents opened before version 7. */
  worst: Worst | null;
  /** Where what its message shows came from; null for incidents opened before version 7. */
  shown: Shown | null;
  messageRef: string | null;
  /**
   * The incident whose message carries this one (coalesced in one check), or null for its own.
   * Set when the message is about to be posted (`planMessage`), so before it is delivered it says
   * which message an earlier attempt may have posted it in.
   */
  leadId: number | null;
  deliveryState: 'pending' | 'claimed' | 'delivered' | 'failed' | 'suppressed' | 'muted';
  deliveryAttempts: number;
  /** The mute it opened under, if one held it back (posted once the mute ended, if it still held). */
  held: Held | null;
  /** The groups its escalation has called on so far, in order; read for drawing its message only. */
  escalatedTo?: string[];
}

/** A step of an incident's escalation, claimed to be posted. */
export interface EscalationDue {
  id: number;
  /** Its place in the rule's escalation, from 1, of `steps`. */
  step: number;
  steps: number;
  group: Group;
  afterSec: number;
  /** The waits up to and including this step: how long the incident has gone unacknowledged since its message, as the rule said. */
  sinceMessageSec: number;
  /** Claims so far, this one included. */
  attempts: number;
  incident: IncidentView;
  rule: AlertRule;
}

/** A step of an incident's escalation as stored. */
export interface EscalationRecord {
  id: number;
  step: number;
  group: Group;
  afterSec: number;
  dueAt: number;
  state: 'pending' | 'claimed' | 'done' | 'stopped' | 'failed';
  claimedBy: string | null;
  attempts: number;
  reason: string | null;
  doneAt: number | null;
}

/**
 * A follow-up waiting to be delivered: a further crossing (the message redrawn, a reply in its
 * thread), a clearing (the same), or a further crossing within the cooldown (the message redrawn only).
 */
export interface Followup {
  id: number;
  kind: 'again' | 'cleared' | 'redraw';
  verdict: Verdict;
  createdAt: number;
  /** Claims so far, this one included. */
  attempts: number;
  incident: IncidentView;
  rule: AlertRule;
  /** The message the incident is shown in (its lead's), with how its delivery went. */
  message: { leadId: number; ref: string | null; state: IncidentView['deliveryState'] };
}

function toView(r: Row): IncidentView {
  return {
    ...toIncident(r),
    acknowledgedBy: (r.acknowledged_by as string | null) ?? null,
    acknowledgedById: (r.acknowledged_by_id as string | null) ?? null,
    acknowledgedAt: msOrNull(r.acknowledged_at),
    snoozedBy: (r.snoozed_by as string | null) ?? null,
    snoozedById: (r.snoozed_by_id as string | null) ?? null,
    snoozedUntil: msOrNull(r.snoozed_until),
    closedBy: (r.closed_by as string | null) ?? null,
    closedById: (r.closed_by_id as string | null) ?? null,
    closedAt: msOrNull(r.closed_at),
    closedReason: (r.closed_reason as ResolveReason | null) ?? null,
    latest: (r.latest as Verdict | null) ?? null,
    worst: (r.worst as Worst | null) ?? null,
    shown: (r.shown as Shown | null) ?? null,
    messageRef: (r.message_ref as string | null) ?? null,
    leadId: r.lead_id === null || r.lead_id === undefined ? null : Number(r.lead_id),
    deliveryState: r.delivery_state as IncidentView['deliveryState'],
    deliveryAttempts: Number(r.delivery_attempts ?? 0),
    held: (r.held as Held | null) ?? null,
    ...(Array.isArray(r.escalated_to) ? { escalatedTo: r.escalated_to as string[] } : {}),
  };
}

const OPEN = `('open', 'acknowledged', 'snoozed')`;

/** A text array read back through to_jsonb comes as an array; read raw, `{a,b}` text on some drivers. */
function parseTextArray(v: unknown): string[] {
  if (typeof v !== 'string') return [];
  return v
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter(Boolean);
}

export type Transition = 'opened' | 'escalated' | 'acknowledged' | 'snoozed' | 'resolved' | 'cleared';

/**
 * Queues one event per destination the incidents' rules notify, in the transaction that moved
 * them: the move and its events are kept together or not at all.
 */
async function queueEvents(
  tx: Queryable,
  incidentIds: readonly number[],
  transition: Transition,
  actor: string | null,
  now: number,
  /** For an escalation, the step it tells of. */
  escalation?: EscalationEvent,
): Promise<void> {
  if (!incidentIds.length) return;
  await tx.query(
    `INSERT INTO alert_events (incident_id, destination, transition, actor, occurred_at, not_before, escalation)
     SELECT i.id, d.name, $2, $3, $4, $4, $5::jsonb FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id, unnest(r.notify) AS d (name)
      WHERE i.id = ANY($1::int[]) AND i.delivery_state <> 'muted'`,
    [incidentIds, transition, actor, at(now), jsonOrNull(escalation)],
  );
}

/** The step an 'escalated' event tells of: which, of how many, whom it called on, and after how long. */
export interface EscalationEvent {
  step: number;
  steps: number;
  group: Group;
  afterSec: number;
}

/**
 * Stops the escalation steps still to come of incidents that were acknowledged, snoozed, resolved
 * or cleared, in the transaction that moved them: once that commits, no replica posts one. A step
 * claimed already stops too; its holder's fenced writes then change nothing.
 */
async function stopEscalations(tx: Queryable, incidentIds: readonly number[], why: string): Promise<void> {
  if (!incidentIds.length) return;
  await tx.query(
    `UPDATE alert_escalations SET state = 'stopped', reason = $2, lease_until = NULL
      WHERE incident_id = ANY($1::int[]) AND state IN ('pending', 'claimed')`,
    [incidentIds, why],
  );
}

/**
 * The escalation steps of an incident whose message has just been delivered, from its rule: the
 * first due its wait after now, each later one provisionally its wait after the one before (set
 * again when that one is posted). An incident no longer open, or a rule without steps, gets none;
 * a step written already (the delivery recorded twice) is kept.
 */
async function scheduleEscalation(tx: Queryable, incidentId: number, now: number): Promise<void> {
  await tx.query(
    `INSERT INTO alert_escalations (incident_id, step, group_id, group_label, after_sec, due_at)
     SELECT i.id, s.ord, s.value->'group'->>'id', s.value->'group'->>'label', (s.value->>'afterSec')::int,
            $2::timestamptz + make_interval(secs => (sum((s.value->>'afterSec')::int) OVER (ORDER BY s.ord))::float8)
       FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id,
            jsonb_array_elements(r.escalation) WITH ORDINALITY AS s (value, ord)
      WHERE i.id = $1 AND i.status = 'open'
     ON CONFLICT (incident_id, step) DO NOTHING`,
    [incidentId, at(now)],
  );
}

/** The worse of an incident's worst so far and a verdict's value, by how bad each is (more is worse). */
function worseOf(worst: Worst | null, verdict: Verdict, seen: Seen | undefined): Worst | null {
  const value = verdict.change?.to;
  if (value === undefined || seen?.badness === null || seen?.badness === undefined) return worst;
  return worst && worst.badness >= seen.badness ? worst : { value, badness: seen.badness };
}

const at = (t: number) => new Date(t);
const withoutListed = ({ listed: _listed, ...rest }: Reading): Reading => rest;
/** A row read back through to_jsonb: timestamps come as ISO strings, which `ms` reads too. */
const jsonRow = (v: unknown): Row => (typeof v === 'string' ? (JSON.parse(v) as Row) : (v as Row));
const json = (v: unknown) => JSON.stringify(v);
/** SQL NULL for nothing, rather than a JSON null. */
const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : json(v));

/** What a replica claims with: the time, itself, the lease, how many at most, and which platforms it posts to. */
export interface ClaimOptions {
  now: number;
  instance: string;
  leaseMs: number;
  limit: number;
  /** Only what these platforms post; every platform's when not given. */
  platforms?: readonly Platform[];
}

/** Incidents whose message is to be posted, claimed with leases. */
const DELIVERIES = new LeaseQueue({
  table: 'alert_incidents',
  key: ['id'],
  state: 'delivery_state',
  holder: 'delivery_by',
  lease: 'delivery_lease_until',
  attempts: 'delivery_attempts',
  reason: 'delivery_error',
});

/** The steps of incidents' escalations, claimed with leases when due. */
const ESCALATIONS = LeaseQueue.ofTable('alert_escalations');

/** What follows an incident's message (a further crossing, a clearing), claimed with leases. */
const FOLLOWUPS = new LeaseQueue({
  table: 'alert_followups',
  key: ['id'],
  state: 'state',
  holder: 'claimed_by',
  lease: 'lease_until',
  attempts: 'attempts',
  reason: 'error',
});

export class AlertStore {
  readonly mutes: MuteStore;

  constructor(readonly db: Db) {
    this.mutes = new MuteStore(db);
  }

  /**
   * Inserts a rule unless its channel or workspace is at its limit; the counts and the insert
   * share a transaction holding a lock per workspace, so two people adding at once cannot both
   * squeeze past a limit.
   */
  async create(input: NewRule, now: number, limits: RuleLimits): Promise<CreateRuleResult> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('polbot:alerts:' || $1 || ':' || $2))`, [
        input.platform,
        input.workspaceId ?? input.channelId,
      ]);
      const [channel] = await tx.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM alert_rules WHERE platform = $1 AND channel_id = $2',
        [input.platform, input.channelId],
      );
      if (Number(channel?.n ?? 0) >= limits.perChannel)
        return { ok: false, reason: 'channel_full', count: Number(channel?.n ?? 0) } as const;
      if (input.workspaceId !== null) {
        const [workspace] = await tx.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM alert_rules WHERE platform = $1 AND workspace_id = $2',
          [input.platform, input.workspaceId],
        );
        if (Number(workspace?.n ?? 0) >= limits.perWorkspace)
          return { ok: false, reason: 'workspace_full', count: Number(workspace?.n ?? 0) } as const;
      }
      const [row] = await tx.query<Row>(
        `INSERT INTO alert_rules (platform, workspace_id, channel_id, entities, condition, condition_text, every_sec, cooldown_sec, created_by, created_at, next_check, enterprise_id, notify, severity, escalation)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $10, $10, $11, $12::text[], $13, $14::jsonb) RETURNING *`,
        [
          input.platform,
          input.workspaceId,
          input.channelId,
          json(input.entities),
          json(input.condition),
          input.conditionText,
          input.everySec,
          input.cooldownSec,
          input.createdBy,
          at(now),
          input.enterpriseId ?? null,
          [...(input.notify ?? [])],
          input.severity ?? 'normal',
          json(input.escalation ?? []),
        ],
      );
      const rule = toRule(row!);
      for (const e of input.entities) {
        await tx.query('INSERT INTO alert_rule_entities (rule_id, kind, slug) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
          rule.id,
          e.kind,
          e.slug,
        ]);
      }
      return { ok: true, rule } as const;
    });
  }

  /** The format a channel chose for its alerts of normal severity; null where it never chose (full). */
  async channelFormat(platform: Platform, channelId: string): Promise<AlertFormat | null> {
    const [row] = await this.db.query<Row>('SELECT format FROM alert_channels WHERE platform = $1 AND channel_id = $2', [
      platform,
      channelId,
    ]);
    return (row?.format as AlertFormat | undefined) ?? null;
  }

  async setChannelFormat(platform: Platform, channelId: string, format: AlertFormat, by: string, now: number): Promise<void> {
    await this.db.query(
      `INSERT INTO alert_channels (platform, channel_id, format, set_by, set_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (platform, channel_id) DO UPDATE SET format = EXCLUDED.format, set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at`,
      [platform, channelId, format, by, at(now)],
    );
  }

  /** A rule's severity, changed from its own channel; null when it is not this channel's. */
  async setSeverity(id: number, platform: Platform, channelId: string, severity: Severity): Promise<AlertRule | null> {
    const [row] = await this.db.query<Row>(
      'UPDATE alert_rules SET severity = $4 WHERE id = $1 AND platform = $2 AND channel_id = $3 RETURNING *',
      [id, platform, channelId, severity],
    );
    return row ? toRule(row) : null;
  }

  /** A rule only as seen from its own channel: ids from elsewhere are "not found". */
  async getInChannel(id: number, platform: Platform, channelId: string): Promise<AlertRule | null> {
    const [row] = await this.db.query<Row>('SELECT * FROM alert_rules WHERE id = $1 AND platform = $2 AND channel_id = $3', [
      id,
      platform,
      channelId,
    ]);
    return row ? toRule(row) : null;
  }

  async listChannel(platform: Platform, channelId: string): Promise<AlertRule[]> {
    return (
      await this.db.query<Row>('SELECT * FROM alert_rules WHERE platform = $1 AND channel_id = $2 ORDER BY id', [platform, channelId])
    ).map(toRule);
  }

  /** The rules of several channels in one read, by channel then id (a person's Home tab). */
  async listChannels(platform: Platform, channelIds: readonly string[]): Promise<AlertRule[]> {
    if (!channelIds.length) return [];
    return (
      await this.db.query<Row>('SELECT * FROM alert_rules WHERE platform = $1 AND channel_id = ANY($2::text[]) ORDER BY channel_id, id', [
        platform,
        [...channelIds],
      ])
    ).map(toRule);
  }

  async remove(id: number, platform: Platform, channelId: string): Promise<boolean> {
    return (
      (
        await this.db.query('DELETE FROM alert_rules WHERE id = $1 AND platform = $2 AND channel_id = $3 RETURNING id', [
          id,
          platform,
          channelId,
        ])
      ).length > 0
    );
  }

  async pause(id: number, platform: Platform, channelId: string, reason: string | null): Promise<AlertRule | null> {
    const [row] = await this.db.query<Row>(
      `UPDATE alert_rules SET state = 'paused', state_reason = $4 WHERE id = $1 AND platform = $2 AND channel_id = $3 RETURNING *`,
      [id, platform, channelId, reason],
    );
    return row ? toRule(row) : null;
  }

  /** Resuming checks again at once; what changed while paused is judged against what was last seen. */
  async resume(id: number, platform: Platform, channelId: string, now: number): Promise<AlertRule | null> {
    const [row] = await this.db.query<Row>(
      `UPDATE alert_rules SET state = 'active', state_reason = NULL, next_check = $4 WHERE id = $1 AND platform = $2 AND channel_id = $3 RETURNING *`,
      [id, platform, channelId, at(now)],
    );
    return row ? toRule(row) : null;
  }

  /** Resumes every paused rule of a channel (after the hourly ceiling, or a channel that is back); returns them. */
  /** The Slack app was removed from a workspace: its active rules pause with a reason a reinstall recognises. */
  async pauseWorkspace(platform: Platform, scope: InstallScope): Promise<AlertRule[]> {
    const where = scopeCondition(scope, 3);
    return (
      await this.db.query<Row>(
        `UPDATE alert_rules SET state = 'paused', state_reason = $1 WHERE platform = $2 AND ${where.sql} AND state = 'active' RETURNING *`,
        [UNINSTALLED_REASON, platform, ...where.params],
      )
    ).map(toRule);
  }

  /** The app is back: the rules its removal paused are checked again at once. */
  async resumeWorkspace(platform: Platform, scope: InstallScope, now: number): Promise<AlertRule[]> {
    const where = scopeCondition(scope, 4);
    return (
      await this.db.query<Row>(
        `UPDATE alert_rules SET state = 'active', state_reason = NULL, next_check = $1 WHERE platform = $3 AND state = 'paused' AND state_reason = $2 AND ${where.sql} RETURNING *`,
        [at(now), UNINSTALLED_REASON, platform, ...where.params],
      )
    ).map(toRule);
  }

  async resumeChannel(platform: Platform, channelId: string, now: number): Promise<AlertRule[]> {
    return (
      await this.db.query<Row>(
        `UPDATE alert_rules SET state = 'active', state_reason = NULL, next_check = $3 WHERE platform = $1 AND channel_id = $2 AND state = 'paused' RETURNING *`,
        [platform, channelId, at(now)],
      )
    ).map(toRule);
  }

  /**
   * How each rule of a channel did over a window, by the incidents it opened then: how many, the
   * median time to acknowledge of those acknowledged, how many were resolved with a reason and how
   * many of those as noise, and whether it is noisy (at least `noisy.incidents` incidents, and
   * at least `noisy.share` of them resolved as noise). Rules without incidents come back with zeros.
   */
  async ruleStats(
    platform: Platform,
    channelId: string,
    window: { from: number; to: number },
    noisy: { incidents: number; share: number },
  ): Promise<Map<number, RuleStats>> {
    const rows = await this.db.query<Row>(
      `SELECT r.id AS rule_id,
              count(i.id)::int AS opened,
              count(i.acknowledged_at)::int AS acknowledged,
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM i.acknowledged_at - i.opened_at)::float8)
                 FILTER (WHERE i.acknowledged_at IS NOT NULL))::float8 AS median_ack_sec,
              count(i.closed_reason)::int AS reasoned,
              (count(*) FILTER (WHERE i.closed_reason = 'noise'))::int AS noise,
              (count(i.id) >= $5 AND count(*) FILTER (WHERE i.closed_reason = 'noise') >= $6::float8 * count(i.id)) AS noisy
         FROM alert_rules r
         LEFT JOIN alert_incidents i ON i.rule_id = r.id AND i.opened_at >= $3 AND i.opened_at <= $4
        WHERE r.platform = $1 AND r.channel_id = $2
        GROUP BY r.id`,
      [platform, channelId, at(window.from), at(window.to), noisy.incidents, noisy.share],
    );
    return new Map(
      rows.map((r) => [
        Number(r.rule_id),
        {
          ruleId: Number(r.rule_id),
          opened: Number(r.opened),
          acknowledged: Number(r.acknowledged),
          medianAckSec: r.median_ack_sec === null || r.median_ack_sec === undefined ? null : Number(r.median_ack_sec),
          reasoned: Number(r.reasoned),
          noise: Number(r.noise),
          noisy: r.noisy === true,
        },
      ]),
    );
  }

  /** Open incidents per rule of a channel, for its list. */
  async openCounts(platform: Platform, channelId: string): Promise<Map<number, number>> {
    const rows = await this.db.query<{ rule_id: number; n: number }>(
      `SELECT i.rule_id, count(*)::int AS n FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id
        WHERE r.platform = $1 AND r.channel_id = $2 AND i.status IN ${OPEN} GROUP BY i.rule_id`,
      [platform, channelId],
    );
    return new Map(rows.map((r) => [Number(r.rule_id), Number(r.n)]));
  }

  /** Makes an active rule due now (after a demo move), without touching its state. */
  async checkSoon(id: number, now: number): Promise<void> {
    await this.db.query(`UPDATE alert_rules SET next_check = $2 WHERE id = $1 AND state = 'active'`, [id, at(now)]);
  }

  /** Pauses every rule of a channel that is gone, saying why; returns how many. */
  async pauseChannel(platform: Platform, channelId: string, reason: string): Promise<number> {
    return (
      await this.db.query(
        `UPDATE alert_rules SET state = 'paused', state_reason = $3 WHERE platform = $1 AND channel_id = $2 AND state = 'active' RETURNING id`,
        [platform, channelId, reason],
      )
    ).length;
  }

  /**
   * Claims the rules due for a check: each is moved to its next check and leased to `instance`
   * in one statement over rows locked with SKIP LOCKED, so replicas claiming at the same moment
   * take disjoint sets. A lease that ran out (a replica died mid-check) is claimable again.
   */
  async claimDue(opts: { now: number; instance: string; leaseMs: number; limit: number }): Promise<AlertRule[]> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>(
        `SELECT id FROM alert_rules
          WHERE state = 'active' AND next_check <= $1 AND (check_lease_until IS NULL OR check_lease_until <= $1)
          ORDER BY next_check LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [at(opts.now), opts.limit],
      );
      const claimed: AlertRule[] = [];
      for (const r of rows) {
        const [row] = await tx.query<Row>(
          `UPDATE alert_rules SET checked_by = $2, check_lease_until = $3, next_check = $4::timestamptz + make_interval(secs => every_sec)
            WHERE id = $1 RETURNING *`,
          [r.id, opts.instance, at(opts.now + opts.leaseMs), at(opts.now)],
        );
        claimed.push(toRule(row!));
      }
      return claimed;
    });
  }

  /** What the last check of a rule saw of each of its entities. */
  async entityChecks(ruleId: number): Promise<EntityCheck[]> {
    const rows = await this.db.query<Row>(
      'SELECT kind, slug, reading, history, holds FROM alert_rule_entities WHERE rule_id = $1 ORDER BY kind, slug',
      [ruleId],
    );
    return rows.map((r) => ({
      kind: r.kind as EntityKind,
      slug: String(r.slug),
      reading: (r.reading as Reading | null) ?? null,
      history: (r.history as Reading[] | null) ?? [],
      holds: (r.holds as boolean | null) ?? null,
    }));
  }

  /**
   * Stores what a check saw, only while `instance` still holds the rule's lease: after a takeover
   * the old holder's late write matches nothing. The previous reading moves into the history.
   */
  async recordCheck(
    ruleId: number,
    instance: string,
    now: number,
    seen: readonly { kind: EntityKind; slug: string; reading: Reading; holds: boolean | null }[],
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [lease] = await tx.query<Row>('SELECT 1 FROM alert_rules WHERE id = $1 AND checked_by = $2 FOR UPDATE', [ruleId, instance]);
      if (!lease) return false;
      for (const s of seen) {
        const [current] = await tx.query<Row>(
          'SELECT reading, history FROM alert_rule_entities WHERE rule_id = $1 AND kind = $2 AND slug = $3',
          [ruleId, s.kind, s.slug],
        );
        const previous = (current?.reading as Reading | null) ?? null;
        // Only the last reading's listed assets are judged against (a downgrade since the last check): the history keeps none.
        const kept = [...((current?.history as Reading[] | null) ?? []), ...(previous ? [withoutListed(previous)] : [])]
          .filter((r) => r.at >= s.reading.at - HISTORY_SEC)
          .slice(-MAX_HISTORY);
        await tx.query(
          `INSERT INTO alert_rule_entities (rule_id, kind, slug, reading, history, holds, checked_at) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7)
           ON CONFLICT (rule_id, kind, slug) DO UPDATE SET reading = EXCLUDED.reading, history = EXCLUDED.history, holds = EXCLUDED.holds, checked_at = EXCLUDED.checked_at`,
          [ruleId, s.kind, s.slug, json(s.reading), json(kept), s.holds, at(now)],
        );
      }
      await tx.query('UPDATE alert_rules SET last_checked_at = $2, checked_by = NULL, check_lease_until = NULL WHERE id = $1', [
        ruleId,
        at(now),
      ]);
      return true;
    });
  }

  /**
   * Opens an incident for a rule and an entity unless one is open already; the partial unique
   * index makes this exactly once however many replicas saw the same crossing. What the check saw
   * (`seen`) starts the incident's worst value and says where its message's values came from.
   */
  async openIncident(
    ruleId: number,
    kind: EntityKind,
    slug: string,
    verdict: Verdict,
    now: number,
    seen?: Seen,
  ): Promise<{ incident: Incident; opened: boolean }> {
    const inserted = await this.db.transaction(async (tx) => {
      // Under a mute the incident is opened held ('muted'), with the mute that held it.
      const [row] = await tx.query<Row>(
        `WITH m AS (SELECT ${coveringMute('$2::text', '$3::text', '$5::timestamptz')} AS id FROM alert_rules r WHERE r.id = $1)
         INSERT INTO alert_incidents (rule_id, kind, slug, status, verdict, opened_at, updated_at, worst, shown, delivery_state, held)
         SELECT $1, $2, $3, 'open', $4::jsonb, $5, $5, $6::jsonb, $7::jsonb,
                CASE WHEN m.id IS NULL THEN 'pending' ELSE 'muted' END,
                (SELECT jsonb_build_object('muteId', x.id, 'scope', x.scope, 'name', x.name, 'ruleId', x.rule_id, 'by', x.set_by, 'byId', x.set_by_id)
                   FROM alert_mutes x WHERE x.id = m.id)
           FROM m
         ON CONFLICT (rule_id, kind, slug) WHERE status IN ('open', 'acknowledged', 'snoozed') DO NOTHING RETURNING *`,
        [
          ruleId,
          kind,
          slug,
          json(verdict),
          at(now),
          jsonOrNull(worseOf(null, verdict, seen)),
          jsonOrNull(seen && ({ reading: seen.provenance } satisfies Shown)),
        ],
      );
      // Held ones are told of when they are released (queueEvents passes them over until then).
      if (row) await queueEvents(tx, [Number(row.id)], 'opened', null, now);
      return row;
    });
    if (inserted) return { incident: toIncident(inserted), opened: true };
    const [open] = await this.db.query<Row>(
      `SELECT * FROM alert_incidents WHERE rule_id = $1 AND kind = $2 AND slug = $3 AND status IN ${OPEN}`,
      [ruleId, kind, slug],
    );
    return { incident: toIncident(open!), opened: false };
  }

  /**
   * Closes an open incident whose condition cleared by itself, and queues the redraw of its message
   * in the same transaction; false when it was closed already. The clearing is its latest verdict;
   * the one that opened it is kept.
   */
  async clearIncident(id: number, verdict: Verdict, now: number, seen?: Seen): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query(
        `UPDATE alert_incidents SET status = 'cleared', latest = $2::jsonb, closed_at = $3, updated_at = $3,
                shown = CASE WHEN $4::jsonb IS NULL THEN shown ELSE COALESCE(shown, '{}'::jsonb) || $4::jsonb END
          WHERE id = $1 AND status IN ${OPEN} RETURNING id`,
        [id, json(verdict), at(now), jsonOrNull(seen && ({ reading: seen.provenance } satisfies Shown))],
      );
      if (!rows.length) return false;
      await queueEvents(tx, [id], 'cleared', null, now);
      await stopEscalations(tx, [id], 'cleared by itself');
      // Under a mute the message is redrawn as cleared, and its thread hears nothing.
      const kind = (await this.muted(tx, id, now)) ? 'redraw' : 'cleared';
      await tx.query(`INSERT INTO alert_followups (incident_id, kind, verdict, created_at) VALUES ($1, $4, $2::jsonb, $3)`, [
        id,
        json(verdict),
        at(now),
        kind,
      ]);
      return true;
    });
  }

  /**
   * A further crossing of an open incident: its latest and worst values (and where they came from)
   * are stored, and in the same transaction a reply for its thread is queued, which redraws its
   * message too. Within `cooldownSec` of the last reply only the redraw is queued (none when one is
   * waiting already, which will draw the same values): a value that keeps worsening every check
   * makes one reply per cooldown, and the message shows it every time. True when a reply was queued.
   */
  async addFollowup(incidentId: number, verdict: Verdict, now: number, cooldownSec: number, seen?: Seen): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [open] = await tx.query<Row>(`SELECT worst FROM alert_incidents WHERE id = $1 AND status IN ${OPEN} FOR UPDATE`, [incidentId]);
      if (!open) return false;
      await tx.query(
        `UPDATE alert_incidents SET latest = $2::jsonb, worst = $3::jsonb, updated_at = $4,
                shown = CASE WHEN $5::jsonb IS NULL THEN shown ELSE COALESCE(shown, '{}'::jsonb) || $5::jsonb END
          WHERE id = $1`,
        [
          incidentId,
          json(verdict),
          jsonOrNull(worseOf((open.worst as Worst | null) ?? null, verdict, seen)),
          at(now),
          jsonOrNull(seen && ({ reading: seen.provenance } satisfies Shown)),
        ],
      );
      const [recent] = await tx.query(
        `SELECT 1 FROM alert_followups WHERE incident_id = $1 AND kind = 'again' AND created_at > $2 AND state <> 'skipped' LIMIT 1`,
        [incidentId, at(now - cooldownSec * 1000)],
      );
      // A crossing under a mute is recorded (the values above) and redraws the message, no more.
      if (recent || (await this.muted(tx, incidentId, now))) {
        await tx.query(
          `INSERT INTO alert_followups (incident_id, kind, verdict, created_at) SELECT $1, 'redraw', $2::jsonb, $3
            WHERE NOT EXISTS (SELECT 1 FROM alert_followups WHERE incident_id = $1 AND state = 'pending')`,
          [incidentId, json(verdict), at(now)],
        );
        return false;
      }
      await tx.query(`INSERT INTO alert_followups (incident_id, kind, verdict, created_at) VALUES ($1, 'again', $2::jsonb, $3)`, [
        incidentId,
        json(verdict),
        at(now),
      ]);
      return true;
    });
  }

  /** Whether a mute covers an incident now. */
  private async muted(tx: Queryable, incidentId: number, now: number): Promise<boolean> {
    const [row] = await tx.query<Row>(
      `SELECT ${coveringMute('i.kind', 'i.slug', '$2::timestamptz')} AS mute FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id WHERE i.id = $1`,
      [incidentId, at(now)],
    );
    return row?.mute !== null && row?.mute !== undefined;
  }

  /**
   * Incidents held by mutes that no longer cover them (expired, ended, or replaced by a narrower
   * one) and still open become deliverable, and their destinations are told they opened. One
   * statement, so replicas running it at once release each incident once. Returns how many.
   */
  async releaseHeld(now: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const released = await tx.query<Row>(
        `UPDATE alert_incidents i SET delivery_state = 'pending' FROM alert_rules r
          WHERE r.id = i.rule_id AND i.delivery_state = 'muted' AND i.status IN ${OPEN}
            AND ${coveringMute('i.kind', 'i.slug', '$1::timestamptz')} IS NULL
          RETURNING i.id`,
        [at(now)],
      );
      await queueEvents(
        tx,
        released.map((r) => Number(r.id)),
        'opened',
        null,
        now,
      );
      return released.length;
    });
  }

  /** When the last incident of a rule on an entity closed, for the rule's cooldown before a new one. */
  async lastClosedAt(ruleId: number, kind: EntityKind, slug: string): Promise<number | null> {
    const [row] = await this.db.query<Row>(
      'SELECT max(closed_at) AS t FROM alert_incidents WHERE rule_id = $1 AND kind = $2 AND slug = $3',
      [ruleId, kind, slug],
    );
    return msOrNull(row?.t);
  }

  /**
   * A person's step on an incident from its channel: acknowledge, snooze until a time, or resolve with its reason.
   * `by` is the person's name as it was then, `byId` their id on the platform. Only an incident
   * still open moves; the incident as it now stands comes back (null when it is not this channel's,
   * or closed already), so the message can be redrawn from the stored truth.
   */
  async act(
    id: number,
    where: { platform: Platform; channelId: string },
    step: ({ kind: 'acknowledge' } | { kind: 'snooze'; until: number } | { kind: 'resolve'; reason: ResolveReason }) & {
      by: string;
      byId?: string;
    },
    now: number,
  ): Promise<IncidentView | null> {
    const set =
      step.kind === 'acknowledge'
        ? `status = 'acknowledged', acknowledged_by = $4, acknowledged_by_id = $6, acknowledged_at = $5, updated_at = $5`
        : step.kind === 'snooze'
          ? `status = 'snoozed', snoozed_until = $7, snoozed_by = $4, snoozed_by_id = $6,
             acknowledged_by_id = CASE WHEN acknowledged_by IS NULL THEN $6 ELSE acknowledged_by_id END,
             acknowledged_by = COALESCE(acknowledged_by, $4), acknowledged_at = COALESCE(acknowledged_at, $5), updated_at = $5`
          : `status = 'resolved', closed_by = $4, closed_by_id = $6, closed_at = $5, closed_reason = $7, updated_at = $5`;
    // Incidents sharing one message move together: its buttons speak for all of them.
    const rows = await this.db.transaction(async (tx) => {
      const moved = await tx.query<Row>(
        `UPDATE alert_incidents i SET ${set}
           FROM alert_rules r
          WHERE r.id = i.rule_id AND r.platform = $2 AND r.channel_id = $3 AND i.status IN ${OPEN}
            AND COALESCE(i.lead_id, i.id) = (SELECT COALESCE(lead_id, id) FROM alert_incidents WHERE id = $1)
          RETURNING i.*`,
        [
          id,
          where.platform,
          where.channelId,
          step.by,
          at(now),
          step.byId ?? null,
          ...(step.kind === 'snooze' ? [at(step.until)] : step.kind === 'resolve' ? [step.reason] : []),
        ],
      );
      const transition = step.kind === 'acknowledge' ? 'acknowledged' : step.kind === 'snooze' ? 'snoozed' : 'resolved';
      const ids = moved.map((r) => Number(r.id));
      await queueEvents(tx, ids, transition, step.byId ?? step.by, now);
      await stopEscalations(tx, ids, transition);
      return moved;
    });
    const views = rows.map(toView);
    return views.find((v) => v.id === id) ?? views[0] ?? null;
  }

  /** An incident as its channel sees it; null for another channel's. */
  async incidentInChannel(id: number, platform: Platform, channelId: string): Promise<IncidentView | null> {
    const [row] = await this.db.query<Row>(
      `SELECT i.* FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id WHERE i.id = $1 AND r.platform = $2 AND r.channel_id = $3`,
      [id, platform, channelId],
    );
    return row ? toView(row) : null;
  }

  /** Where the incident's message is, once posted: later steps update it and further crossings go in its thread. */
  async setMessageRef(id: number, ref: string): Promise<void> {
    await this.db.query('UPDATE alert_incidents SET message_ref = $2 WHERE id = $1', [id, ref]);
  }

  /**
   * Claims incidents whose message is not out yet: new ones, and ones whose deliverer's lease ran
   * out (a replica killed mid-delivery). Rows are locked with SKIP LOCKED, so replicas claiming at
   * once take disjoint sets; each comes with its rule, for the channel and the words.
   */
  async claimUndelivered(opts: ClaimOptions): Promise<{ incident: IncidentView; rule: AlertRule }[]> {
    return this.db.transaction(async (tx) => {
      // Only what this replica can post: one without Discord leaves Discord's alerts to another.
      const rows = await tx.query<Row>(
        `SELECT i.id FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id
          WHERE ${DELIVERIES.claimable('i', '$1')}
            AND ($3::text[] IS NULL OR r.platform = ANY($3::text[]))
          ORDER BY i.opened_at, i.id LIMIT $2 FOR UPDATE OF i SKIP LOCKED`,
        [at(opts.now), opts.limit, opts.platforms ?? null],
      );
      const claimed: { incident: IncidentView; rule: AlertRule }[] = [];
      for (const r of rows) {
        const row = await DELIVERIES.take(tx, [r.id], opts.instance, opts.now + opts.leaseMs);
        const [rule] = await tx.query<Row>('SELECT * FROM alert_rules WHERE id = $1', [row!.rule_id]);
        claimed.push({ incident: toView(row!), rule: toRule(rule!) });
      }
      return claimed;
    });
  }

  /**
   * Extends a delivery's lease while it is still this replica's: a long delivery (a slow platform,
   * Retry-After) keeps its claim instead of letting another replica post the same alert.
   */
  async renewDelivery(id: number, instance: string, now: number, leaseMs: number): Promise<boolean> {
    return DELIVERIES.renew(this.db, [id], instance, now + leaseMs);
  }

  /**
   * Settles which incidents one message is about to carry, just before it is posted: each one's
   * `lead_id` names the lead (null for the lead itself), so a replica taking the delivery over
   * knows which message's key to look for. It is also the fence of the post: all of them must
   * still be this replica's claims, and their leases are renewed; otherwise nothing changes, false
   * comes back, and nothing may be posted.
   */
  async planMessage(
    ids: readonly number[],
    leadId: number,
    instance: string,
    now: number,
    leaseMs: number,
    /** Where the chart drawn for the message came from, and its format, kept for its redraws. */
    chart: readonly Provenance[] = [],
    format: AlertFormat = 'full',
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if ((await DELIVERIES.lockHeld(tx, ids, instance)) !== new Set(ids).size) return false;
      await tx.query(
        `UPDATE alert_incidents SET lead_id = CASE WHEN id = $2 THEN NULL ELSE $2 END, delivery_lease_until = $3,
                shown = COALESCE(shown, '{}'::jsonb) || $4::jsonb
          WHERE id = ANY($1::int[])`,
        [ids, leadId, at(now + leaseMs), json({ chart: [...chart], format } satisfies Shown)],
      );
      return true;
    });
  }

  /**
   * Records where what a message shows came from for incidents that had no record of it (opened
   * before schema version 7, whose redraw had to look it up); a record already there is kept.
   */
  async recordShown(ids: readonly number[], shown: Shown): Promise<void> {
    await this.db.query(`UPDATE alert_incidents SET shown = $2::jsonb WHERE id = ANY($1::int[]) AND shown IS NULL`, [ids, json(shown)]);
  }

  /**
   * Records where the message went, if the claim is still this replica's; false after a takeover.
   * An incident coalesced into another's message records that message and its lead.
   */
  async delivered(id: number, instance: string, ref: string, now: number = Date.now(), leadId: number | null = null): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const recorded = await DELIVERIES.fenced(
        tx,
        [id],
        instance,
        `delivery_state = 'delivered', message_ref = $3, delivered_at = $4, lead_id = $5, delivery_lease_until = NULL, delivery_error = NULL`,
        [ref, at(now), leadId],
      );
      if (recorded) await scheduleEscalation(tx, id, now);
      return recorded;
    });
  }

  /** Held back by the channel's hourly ceiling: counted in the ceiling's summary, never posted. */
  async suppressed(id: number, instance: string): Promise<boolean> {
    return DELIVERIES.fenced(this.db, [id], instance, `delivery_state = 'suppressed', delivery_lease_until = NULL`);
  }

  /** Alert messages posted in a channel since a time (coalesced incidents share one), for the hourly ceiling. */
  async messagesSince(platform: Platform, channelId: string, since: number): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id
        WHERE r.platform = $1 AND r.channel_id = $2 AND i.lead_id IS NULL AND i.delivered_at >= $3`,
      [platform, channelId, at(since)],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * A channel's incidents that moved since a time, or are still open however old, oldest first,
   * each with its rule: what a person back from a break needs to catch up on (`alert catchup`).
   */
  async catchup(platform: Platform, channelId: string, since: number): Promise<{ incident: IncidentView; rule: AlertRule }[]> {
    const rows = await this.db.query<Row>(
      `SELECT i.*, to_jsonb(r.*) AS rule_row FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id
        WHERE r.platform = $1 AND r.channel_id = $2 AND (i.updated_at >= $3 OR i.opened_at >= $3 OR i.status IN ${OPEN})
        ORDER BY i.opened_at, i.id`,
      [platform, channelId, at(since)],
    );
    return rows.map((r) => ({ incident: toView(r), rule: toRule(jsonRow(r.rule_row)) }));
  }

  /** Every incident shown in one message (the lead's), oldest first, each with its rule and whom it escalated to. */
  async message(leadId: number): Promise<{ incident: IncidentView; rule: AlertRule }[]> {
    const rows = await this.db.query<Row>(
      `SELECT i.*, to_jsonb(r.*) AS rule_row,
              (SELECT COALESCE(jsonb_agg(e.group_label ORDER BY e.step), '[]'::jsonb) FROM alert_escalations e
                WHERE e.incident_id = i.id AND e.state = 'done') AS escalated_to
         FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id
        WHERE i.id = $1 OR i.lead_id = $1 ORDER BY (i.id <> $1), i.id`,
      [leadId],
    );
    return rows.map((r) => ({ incident: toView(r), rule: toRule(jsonRow(r.rule_row)) }));
  }

  /**
   * Claims follow-ups whose incident's message is settled (posted, given up or held back): a
   * further crossing or a clearing never overtakes the message it belongs to. SKIP LOCKED, leased, as deliveries are.
   */
  async claimFollowups(opts: ClaimOptions): Promise<Followup[]> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>(
        `SELECT f.id FROM alert_followups f
           JOIN alert_incidents i ON i.id = f.incident_id
           JOIN alert_incidents m ON m.id = COALESCE(i.lead_id, i.id)
           JOIN alert_rules r ON r.id = i.rule_id
          WHERE ${FOLLOWUPS.claimable('f', '$1')}
            AND (m.delivery_state IN ('delivered', 'failed', 'suppressed') OR i.delivery_state IN ('failed', 'suppressed'))
            AND ($3::text[] IS NULL OR r.platform = ANY($3::text[]))
          ORDER BY f.id LIMIT $2 FOR UPDATE OF f SKIP LOCKED`,
        [at(opts.now), opts.limit, opts.platforms ?? null],
      );
      const claimed: Followup[] = [];
      for (const r of rows) {
        const f = await FOLLOWUPS.take(tx, [r.id], opts.instance, opts.now + opts.leaseMs);
        const [i] = await tx.query<Row>('SELECT * FROM alert_incidents WHERE id = $1', [f!.incident_id]);
        const incident = toView(i!);
        const [m] = await tx.query<Row>('SELECT * FROM alert_incidents WHERE id = $1', [incident.leadId ?? incident.id]);
        const [rule] = await tx.query<Row>('SELECT * FROM alert_rules WHERE id = $1', [incident.ruleId]);
        const lead = toView(m!);
        claimed.push({
          id: Number(f!.id),
          kind: f!.kind as Followup['kind'],
          verdict: f!.verdict as Verdict,
          createdAt: ms(f!.created_at),
          attempts: Number(f!.attempts),
          incident,
          rule: toRule(rule!),
          message: {
            leadId: lead.id,
            ref: lead.messageRef,
            state: incident.deliveryState === 'delivered' ? lead.deliveryState : incident.deliveryState,
          },
        });
      }
      return claimed;
    });
  }

  async renewFollowup(id: number, instance: string, now: number, leaseMs: number): Promise<boolean> {
    return FOLLOWUPS.renew(this.db, [id], instance, now + leaseMs);
  }

  /** Finishes a follow-up while still this replica's: done, skipped (snoozed, or no message to follow), failed, or back to claimed for a retry. */
  async followupSettled(id: number, instance: string, state: 'done' | 'skipped' | 'failed' | 'retry', error?: string): Promise<boolean> {
    return FOLLOWUPS.fenced(this.db, [id], instance, 'state = $3, error = $4', [
      state === 'retry' ? 'claimed' : state,
      error?.slice(0, 300) ?? null,
    ]);
  }

  /**
   * Claims escalation steps that are due: their time has come, the step before (if any) was
   * posted, and their incident's message is out (steps are written only then). A step whose
   * incident is no longer open is stopped here with its later steps, never claimed. SKIP LOCKED,
   * leased, as deliveries are; each comes with its incident and rule.
   */
  async claimEscalations(opts: ClaimOptions): Promise<EscalationDue[]> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>(
        `SELECT e.id FROM alert_escalations e
           JOIN alert_incidents i ON i.id = e.incident_id
           JOIN alert_rules r ON r.id = i.rule_id
          WHERE ${ESCALATIONS.claimable('e', '$1', 'e.due_at <= $1')}
            AND (e.step = 1 OR EXISTS (SELECT 1 FROM alert_escalations p
                                        WHERE p.incident_id = e.incident_id AND p.step = e.step - 1 AND p.state = 'done'))
            AND ($3::text[] IS NULL OR r.platform = ANY($3::text[]))
          ORDER BY e.due_at, e.id LIMIT $2 FOR UPDATE OF e SKIP LOCKED`,
        [at(opts.now), opts.limit, opts.platforms ?? null],
      );
      const claimed: EscalationDue[] = [];
      for (const r of rows) {
        const [i] = await tx.query<Row>(
          `SELECT i.* FROM alert_incidents i JOIN alert_escalations e ON e.incident_id = i.id WHERE e.id = $1`,
          [r.id],
        );
        const incident = toView(i!);
        if (incident.status !== 'open') {
          await stopEscalations(tx, [incident.id], `the alert was ${incident.status}`);
          continue;
        }
        const e = await ESCALATIONS.take(tx, [r.id], opts.instance, opts.now + opts.leaseMs);
        const [sums] = await tx.query<Row>(
          `SELECT count(*)::int AS steps, (sum(after_sec) FILTER (WHERE step <= $2))::int AS since FROM alert_escalations WHERE incident_id = $1`,
          [incident.id, e!.step],
        );
        const [rule] = await tx.query<Row>('SELECT * FROM alert_rules WHERE id = $1', [incident.ruleId]);
        claimed.push({
          id: Number(e!.id),
          step: Number(e!.step),
          steps: Number(sums!.steps),
          group: { id: String(e!.group_id), label: String(e!.group_label) },
          afterSec: Number(e!.after_sec),
          sinceMessageSec: Number(sums!.since),
          attempts: Number(e!.attempts),
          incident,
          rule: toRule(rule!),
        });
      }
      return claimed;
    });
  }

  async renewEscalation(id: number, instance: string, now: number, leaseMs: number): Promise<boolean> {
    return ESCALATIONS.renew(this.db, [id], instance, now + leaseMs);
  }

  /**
   * The fence just before a step is posted: `go` while the step is still this replica's and its
   * incident still open (the lease renewed); `stopped` when the incident moved meanwhile (the step
   * and those after it are stopped); `lost` after a takeover.
   */
  async escalationFence(id: number, instance: string, now: number, leaseMs: number): Promise<'go' | 'stopped' | 'lost'> {
    return this.db.transaction(async (tx) => {
      if ((await ESCALATIONS.lockHeld(tx, [id], instance)) === 0) {
        // Stopped while held (the alert was acknowledged meanwhile), or taken over.
        const [row] = await tx.query<Row>('SELECT state FROM alert_escalations WHERE id = $1', [id]);
        return row?.state === 'stopped' ? 'stopped' : 'lost';
      }
      const [row] = await tx.query<Row>(
        `SELECT i.id, i.status FROM alert_incidents i JOIN alert_escalations e ON e.incident_id = i.id WHERE e.id = $1`,
        [id],
      );
      if (row!.status !== 'open') {
        await stopEscalations(tx, [Number(row!.id)], `the alert was ${String(row!.status)}`);
        return 'stopped';
      }
      await ESCALATIONS.renew(tx, [id], instance, now + leaseMs);
      return 'go';
    });
  }

  /**
   * A step was posted: it is done, an 'escalated' event is queued for the rule's destinations, and
   * the next step becomes due its wait from now, all in one transaction fenced by the claim.
   * False after a takeover (nothing changes).
   */
  async escalated(id: number, instance: string, now: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await ESCALATIONS.finish(tx, [id], instance, { done_at: at(now), reason: null }))) return false;
      const [e] = await tx.query<Row>(
        `SELECT e.*, (SELECT count(*)::int FROM alert_escalations a WHERE a.incident_id = e.incident_id) AS steps
           FROM alert_escalations e WHERE e.id = $1`,
        [id],
      );
      const incidentId = Number(e!.incident_id);
      const step = Number(e!.step);
      await queueEvents(tx, [incidentId], 'escalated', null, now, {
        step,
        steps: Number(e!.steps),
        group: { id: String(e!.group_id), label: String(e!.group_label) },
        afterSec: Number(e!.after_sec),
      });
      await tx.query(
        `UPDATE alert_escalations SET due_at = $3::timestamptz + make_interval(secs => after_sec)
          WHERE incident_id = $1 AND step = $2 + 1 AND state = 'pending'`,
        [incidentId, step, at(now)],
      );
      return true;
    });
  }

  /**
   * A step that could not be posted: kept claimed to be tried again once its lease lapses, or
   * given up with the reason, which stops the steps after it too.
   */
  async escalationFailed(id: number, instance: string, reason: string, giveUp: boolean): Promise<boolean> {
    const why = reason.slice(0, 300);
    if (!giveUp) return ESCALATIONS.fenced(this.db, [id], instance, 'reason = $3', [why]);
    return this.db.transaction(async (tx) => {
      if (!(await ESCALATIONS.giveUp(tx, [id], instance, why))) return false;
      await tx.query(
        `UPDATE alert_escalations SET state = 'stopped', reason = 'an earlier step could not be posted'
          WHERE incident_id = (SELECT incident_id FROM alert_escalations WHERE id = $1) AND state = 'pending'`,
        [id],
      );
      return true;
    });
  }

  /** An incident's escalation steps as they stand, in order. */
  async escalations(incidentId: number): Promise<EscalationRecord[]> {
    const rows = await this.db.query<Row>('SELECT * FROM alert_escalations WHERE incident_id = $1 ORDER BY step', [incidentId]);
    return rows.map((r) => ({
      id: Number(r.id),
      step: Number(r.step),
      group: { id: String(r.group_id), label: String(r.group_label) },
      afterSec: Number(r.after_sec),
      dueAt: ms(r.due_at),
      state: r.state as EscalationRecord['state'],
      claimedBy: (r.claimed_by as string | null) ?? null,
      attempts: Number(r.attempts),
      reason: (r.reason as string | null) ?? null,
      doneAt: msOrNull(r.done_at),
    }));
  }

  /** A failed delivery: tried again after the lease (transient) or given up on with its reason (permanent). */
  async deliveryFailed(id: number, instance: string, reason: string, permanent: boolean): Promise<boolean> {
    // A transient failure keeps the claim, which lapses with its lease and is then taken again.
    return permanent
      ? DELIVERIES.giveUp(this.db, [id], instance, reason.slice(0, 300))
      : DELIVERIES.fenced(this.db, [id], instance, 'delivery_error = $3', [reason.slice(0, 300)]);
  }

  async openIncidents(ruleId: number): Promise<Incident[]> {
    return (
      await this.db.query<Row>(
        `SELECT * FROM alert_incidents WHERE rule_id = $1 AND status IN ('open', 'acknowledged', 'snoozed') ORDER BY id`,
        [ruleId],
      )
    ).map(toIncident);
  }
}
