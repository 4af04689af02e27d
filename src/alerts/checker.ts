import { bulkhead } from 'cockatiel';
import type { EntityRef } from '../api/domain.js';
import type { DataSource } from '../api/source.js';
import type { ListedReadings } from '../exposure/readings.js';
import { badnessOf, evaluate, isLevel, type Reading, type Verdict } from './evaluate.js';
import { needsOf, readEntity, type Read } from './readings.js';
import type { AlertRule, AlertStore, Incident } from './store.js';

/**
 * One check cycle: claims the rules that are due, reads each entity they watch once (however many
 * rules and channels watch it), judges every rule against what it saw last time, and says what
 * happened: an incident opened, a further crossing while one is open, or a level that cleared by
 * itself. The checker decides, it never posts: a new incident waits in the store until a replica
 * claims its delivery (`claimUndelivered`), so a replica killed between opening and posting loses nothing.
 */

export type AlertEvent =
  | { type: 'opened'; rule: AlertRule; entity: EntityRef; incident: Incident; verdict: Verdict }
  | { type: 'again'; rule: AlertRule; entity: EntityRef; incident: Incident; verdict: Verdict }
  | { type: 'cleared'; rule: AlertRule; entity: EntityRef; incident: Incident; verdict: Verdict };

export interface CheckerOptions {
  instance: string;
  /** How long a claimed rule stays with this replica before another may take it over. */
  leaseMs: number;
  /** Rules claimed per cycle at most. */
  batch: number;
  now: () => number;
  /** Where each read of an exchange's listed assets is kept as a reading, for `exposure`. */
  listed?: ListedReadings;
}

export interface CycleReport {
  rules: number;
  /** Distinct entities read this cycle: the upstream is asked once per entity, not per rule. */
  entities: number;
  events: AlertEvent[];
}

const JUDGE_CONCURRENCY = 8;

const keyOf = (e: { kind: string; slug: string }) => `${e.kind}:${e.slug}`;

/**
 * A further crossing while an incident is open: an event condition firing again (another
 * downgrade, another new flag), or a level crossed anew or worsening since the last check.
 */
function isFurther(rule: AlertRule, heldBefore: boolean | null, verdict: Verdict): boolean {
  if (!isLevel(rule.condition)) return true;
  return heldBefore === false || verdict.change?.trend === 'worse';
}

export class AlertChecker {
  constructor(
    private readonly store: AlertStore,
    private readonly source: DataSource,
    private readonly options: CheckerOptions,
  ) {}

  async cycle(): Promise<CycleReport> {
    const now = this.options.now();
    const rules = await this.store.claimDue({
      now,
      instance: this.options.instance,
      leaseMs: this.options.leaseMs,
      limit: this.options.batch,
    });
    // Every entity once, with what all the rules watching it need.
    const watched = new Map<string, { entity: EntityRef; rules: AlertRule[] }>();
    for (const rule of rules) {
      for (const entity of rule.entities) {
        const w = watched.get(keyOf(entity)) ?? { entity, rules: [] };
        w.rules.push(rule);
        watched.set(keyOf(entity), w);
      }
    }
    const readings = new Map<string, Read>();
    await Promise.all(
      [...watched.values()].map(async ({ entity, rules: watching }) => {
        const read = await readEntity(this.source, entity, needsOf(watching.map((r) => r.condition)), Math.floor(now / 1000));
        readings.set(keyOf(entity), read);
        // A reading kept for `exposure` is a by-product of the check: failing to keep it costs the check nothing.
        if (read.listedFresh) await this.options.listed?.record(entity.slug, now, read.listedFresh).catch(() => undefined);
      }),
    );
    // Judging is the store's work, a few queries a rule: several at once on PostgreSQL's pool.
    const lane = bulkhead(JUDGE_CONCURRENCY, rules.length);
    const judged = await Promise.all(rules.map((rule) => lane.execute(() => this.judge(rule, readings, now))));
    return { rules: rules.length, entities: watched.size, events: judged.flat() };
  }

  private async judge(rule: AlertRule, readings: ReadonlyMap<string, Read>, now: number): Promise<AlertEvent[]> {
    const events: AlertEvent[] = [];
    const checks = new Map((await this.store.entityChecks(rule.id)).map((c) => [keyOf(c), c]));
    const open = new Map((await this.store.openIncidents(rule.id)).map((i) => [keyOf(i), i]));
    const seen: { kind: EntityRef['kind']; slug: string; reading: Reading; holds: boolean | null }[] = [];
    for (const entity of rule.entities) {
      const read = readings.get(keyOf(entity));
      if (!read) continue;
      const { reading } = read;
      const before = checks.get(keyOf(entity));
      const verdict = evaluate(rule.condition, before?.reading ?? undefined, reading, before?.history ?? []);
      const saw = { badness: badnessOf(rule.condition, reading), provenance: read.provenance };
      // What cannot be told keeps the last judgement: a blip neither opens nor closes anything.
      seen.push({ kind: entity.kind, slug: entity.slug, reading, holds: verdict.holds ?? before?.holds ?? null });
      const incident = open.get(keyOf(entity));
      if (verdict.holds === true) {
        if (!incident) {
          // A rule's cooldown: after an incident closes, the same rule stays quiet on that entity for a while.
          const closed = await this.store.lastClosedAt(rule.id, entity.kind, entity.slug);
          if (closed !== null && now - closed < rule.cooldownSec * 1000) continue;
          const { incident: opened, opened: isNew } = await this.store.openIncident(rule.id, entity.kind, entity.slug, verdict, now, saw);
          if (isNew) events.push({ type: 'opened', rule, entity, incident: opened, verdict });
        } else if (isFurther(rule, before?.holds ?? null, verdict)) {
          if (await this.store.addFollowup(incident.id, verdict, now, rule.cooldownSec, saw))
            events.push({ type: 'again', rule, entity, incident, verdict });
        }
      } else if (verdict.holds === false && incident && isLevel(rule.condition)) {
        if (await this.store.clearIncident(incident.id, verdict, now, saw))
          events.push({ type: 'cleared', rule, entity, incident, verdict });
      }
    }
    // A replica whose lease ran out meanwhile records no reading (the one that took over will);
    // an incident it opened is in the store either way, waiting for its delivery to be claimed.
    await this.store.recordCheck(rule.id, this.options.instance, now, seen);
    return events;
  }
}
