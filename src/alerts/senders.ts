import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { Destination } from './destinations.js';
import { PAGERDUTY_SEVERITY, type Severity } from './severity.js';

/** One transition of an incident, as every destination is told of it. */
export interface AlertEvent {
  /** Stable across retries: a receiver de-duplicates by it. */
  id: string;
  transition: 'opened' | 'escalated' | 'acknowledged' | 'snoozed' | 'resolved' | 'cleared';
  occurredAt: number;
  actor: string | null;
  incident: {
    id: number;
    status: string;
    kind: string;
    slug: string;
    name: string;
    change?: { from: string | null; to: string };
    /** Why a person resolved it (real, noise, duplicate, expected), on its `resolved` event. */
    reason?: string;
    /** Until when it is snoozed, on its `snoozed` event. */
    snoozedUntil?: number;
  };
  rule: { id: number; condition: string; platform: string; channelId: string; severity: Severity };
  /** For an escalation: which step of how many, the group it called on, and the wait before it. */
  escalation?: { step: number; steps: number; group: { id: string; label: string }; afterSec: number };
}

/** How a send went: done, worth another try later (with the wait the receiver asked for), or refused for good. */
export type SendOutcome = { kind: 'done' } | { kind: 'retry'; reason: string; retryAfterMs?: number } | { kind: 'refused'; reason: string };

/**
 * The exact bytes sent for an event to a destination. Built once and stored, so every retry sends
 * the same body: the webhook receiver refuses a changed body under a seen id, and PagerDuty
 * de-duplicates by the incident's key.
 */
export function eventBody(destination: Destination, event: AlertEvent): string | null {
  if (destination.kind === 'webhook') {
    return JSON.stringify({
      id: event.id,
      type: `incident.${event.transition}`,
      occurred_at: new Date(event.occurredAt).toISOString(),
      incident: {
        id: event.incident.id,
        status: event.incident.status,
        entity: { kind: event.incident.kind, slug: event.incident.slug, name: event.incident.name },
        ...(event.incident.change ? { change: event.incident.change } : {}),
        ...(event.incident.reason ? { reason: event.incident.reason } : {}),
        ...(event.incident.snoozedUntil !== undefined ? { snoozed_until: new Date(event.incident.snoozedUntil).toISOString() } : {}),
        ...(event.actor ? { by: event.actor } : {}),
      },
      rule: {
        id: event.rule.id,
        condition: event.rule.condition,
        severity: event.rule.severity,
        platform: event.rule.platform,
        channel_id: event.rule.channelId,
      },
      ...(event.escalation
        ? {
            escalation: {
              step: event.escalation.step,
              steps: event.escalation.steps,
              group: event.escalation.group,
              after_seconds: event.escalation.afterSec,
            },
          }
        : {}),
    });
  }
  const action = PAGERDUTY_ACTION[event.transition];
  if (!action) return null;
  const dedupKey = `polbot-incident-${event.incident.id}`;
  if (action !== 'trigger') return JSON.stringify({ routing_key: destination.routingKey, event_action: action, dedup_key: dedupKey });
  const change = event.incident.change ? ` (${event.incident.change.from ?? '—'} → ${event.incident.change.to})` : '';
  return JSON.stringify({
    routing_key: destination.routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      // PagerDuty refuses a summary over 1,024 characters.
      summary: `${event.incident.name}: ${event.rule.condition}${change}`.slice(0, 1_024),
      source: 'polbot',
      severity: PAGERDUTY_SEVERITY[event.rule.severity],
      timestamp: new Date(event.occurredAt).toISOString(),
      component: `${event.incident.kind}:${event.incident.slug}`,
      group: `rule-${event.rule.id}`,
      class: 'polbot alert',
      custom_details: { rule: event.rule.id, condition: event.rule.condition, incident: event.incident.id },
    },
  });
}

/** PagerDuty has no snooze and no escalation of its own to hear about: a snooze is an acknowledgement there. */
const PAGERDUTY_ACTION: Record<AlertEvent['transition'], 'trigger' | 'acknowledge' | 'resolve' | null> = {
  opened: 'trigger',
  escalated: null,
  acknowledged: 'acknowledge',
  snoozed: 'acknowledge',
  resolved: 'resolve',
  cleared: 'resolve',
};

const TIMEOUT_MS = 10_000;

/** Sends one stored body. Never throws: every failure is an outcome with a reason safe to show. */
export async function send(destination: Destination, eventId: string, body: string): Promise<SendOutcome> {
  const url = destination.kind === 'pagerduty' ? destination.eventsUrl : destination.url;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'polbot' };
  if (destination.kind === 'webhook') {
    // When this delivery is signed, by the wall clock the receiver compares it with.
    const timestamp = String(Math.floor(Date.now() / 1000));
    headers['x-polbot-timestamp'] = timestamp;
    headers['x-polbot-event-id'] = eventId;
    headers['x-polbot-signature'] = `v1=${createHmac('sha256', destination.secret).update(`${timestamp}.${body}`).digest('hex')}`;
  }
  const what = destination.kind === 'pagerduty' ? 'PagerDuty' : 'the webhook';
  try {
    const res = await request(url, { method: 'POST', headers, body, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
    const text = (await res.body.text()).slice(0, 2_000);
    if (res.statusCode >= 200 && res.statusCode < 300) return { kind: 'done' };
    const retryAfter = Number(res.headers['retry-after']);
    if (res.statusCode === 429 || res.statusCode === 408 || res.statusCode >= 500) {
      return {
        kind: 'retry',
        reason: `${what} answered ${res.statusCode}`,
        ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1_000 } : {}),
      };
    }
    return { kind: 'refused', reason: `${what} refused the event (${res.statusCode}${detailOf(text)})` };
  } catch (err) {
    return { kind: 'retry', reason: `${what} could not be reached (${(err as { code?: string }).code ?? 'network error'})` };
  }
}

/** PagerDuty's own words for a refusal, short: never the body we sent, which holds the routing key. */
function detailOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown; errors?: unknown };
    const errors = Array.isArray(parsed.errors) ? parsed.errors.filter((e): e is string => typeof e === 'string') : [];
    const words = [typeof parsed.message === 'string' ? parsed.message : '', ...errors].filter(Boolean).join('; ');
    return words ? `: ${words.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}
