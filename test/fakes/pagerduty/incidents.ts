import type { AlertPayload, EventAction } from './validate.js';

/**
 * PagerDuty's state for alert events, per routing key and dedup_key, as its "Alert
 * De-Duplication" and "Event Action Behavior" sections describe it:
 *
 * - a trigger opens an incident, or is added to the open one with the same routing key and
 *   dedup_key (acknowledged or not: an acknowledged incident stays acknowledged);
 * - acknowledge and resolve act on that open incident; with none open they are accepted and
 *   dropped ("any further events with the same dedup_key will ... be dropped");
 * - once resolved, a trigger with the same dedup_key opens a new incident, and an event sent
 *   under another routing key never reaches it.
 *
 * PagerDuty keeps alerts and groups them into incidents; with one alert per incident, as an
 * Events API integration has by default, the two are the same thing here.
 */

export type IncidentStatus = 'triggered' | 'acknowledged' | 'resolved';
export type Outcome = 'opened' | 'deduplicated' | 'acknowledged' | 'resolved' | 'dropped';

export interface Incident {
  /** 1, 2, … in the order incidents opened, across routing keys. */
  number: number;
  routingKey: string;
  dedupKey: string;
  status: IncidentStatus;
  /** The payload of the trigger that opened it. */
  payload: AlertPayload;
  openedAt: Date;
  acknowledgedAt?: Date;
  resolvedAt?: Date;
  /** Every event applied to it, the opening trigger first. */
  log: { action: EventAction; outcome: Outcome; at: Date }[];
}

export class IncidentBook {
  readonly #incidents: Incident[] = [];

  apply(
    routingKey: string,
    action: EventAction,
    dedupKey: string,
    payload: AlertPayload | undefined,
    at: Date,
  ): { outcome: Outcome; incident?: Incident } {
    const open = this.#incidents.find((i) => i.routingKey === routingKey && i.dedupKey === dedupKey && i.status !== 'resolved');
    if (action === 'trigger') {
      if (open) {
        open.log.push({ action, outcome: 'deduplicated', at });
        return { outcome: 'deduplicated', incident: open };
      }
      const incident: Incident = {
        number: this.#incidents.length + 1,
        routingKey,
        dedupKey,
        status: 'triggered',
        payload: payload!,
        openedAt: at,
        log: [{ action, outcome: 'opened', at }],
      };
      this.#incidents.push(incident);
      return { outcome: 'opened', incident };
    }
    if (!open) return { outcome: 'dropped' };
    const outcome = action === 'acknowledge' ? 'acknowledged' : 'resolved';
    open.log.push({ action, outcome, at });
    if (action === 'acknowledge') {
      open.status = 'acknowledged';
      open.acknowledgedAt ??= at;
    } else {
      open.status = 'resolved';
      open.resolvedAt = at;
    }
    return { outcome, incident: open };
  }

  list(): Incident[] {
    return this.#incidents.map((i) => structuredClone(i));
  }

  clear(): void {
    this.#incidents.length = 0;
  }
}
