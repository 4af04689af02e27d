import { isIso8601 } from '../http-receiver/iso8601.js';

/**
 * The checks PagerDuty documents for an alert event (Events API v2, `POST /v2/enqueue`), from
 * PagerDuty's "Send an Alert Event" page (developer-docs, docs/events-API-v2/02-Trigger-Events.md)
 * and the Events API v2 OpenAPI description (api-schema, reference/events-v2/openapiv3.json):
 *
 * - `routing_key`, required: "the 32 character Integration Key".
 * - `event_action`, required: `trigger`, `acknowledge` or `resolve`.
 * - `dedup_key`: "The maximum permitted length of this property is 255 characters"; "Required
 *   unless the event_type is trigger" (OpenAPI).
 * - for a trigger, `payload` with `summary` (required, "maximum permitted length ... 1024
 *   characters"), `source` (required), `severity` (required: critical, error, warning or info),
 *   and optional `timestamp` (ISO 8601), `component`, `group`, `class`, `custom_details` (an object).
 *
 * The text of each error follows the one PagerDuty is quoted answering by client libraries'
 * fixtures for a short routing key ("Length of 'routing_key' is incorrect (should be 32
 * characters)"); the others are this fake's wording in the same style, so a test may assert the
 * status and the shape but should not take these sentences for PagerDuty's own.
 */

export const EVENT_ACTIONS = ['trigger', 'acknowledge', 'resolve'] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];
export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ROUTING_KEY_LENGTH = 32;
export const MAX_DEDUP_KEY = 255;
export const MAX_SUMMARY = 1024;

export interface AlertPayload {
  summary: string;
  source: string;
  severity: Severity;
  timestamp?: string;
  component?: string;
  group?: string;
  class?: string;
  custom_details?: Record<string, unknown>;
}

export interface AlertEvent {
  routing_key: string;
  event_action: EventAction;
  dedup_key?: string;
  payload?: AlertPayload;
  [field: string]: unknown;
}

export type Checked = { ok: true; event: AlertEvent } | { ok: false; errors: string[] };

/** PagerDuty counts characters; a string's `length` would count an emoji as two. */
const chars = (text: string) => [...text].length;
const present = (value: unknown) => value !== undefined && value !== null && value !== '';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function checkEvent(body: Record<string, unknown>): Checked {
  const errors: string[] = [];
  const { routing_key, event_action, dedup_key, payload } = body;

  if (typeof routing_key !== 'string' || routing_key === '') errors.push("'routing_key' is missing or blank");
  else if (chars(routing_key) !== ROUTING_KEY_LENGTH) errors.push("Length of 'routing_key' is incorrect (should be 32 characters)");

  if (!present(event_action)) errors.push("'event_action' is missing or blank");
  else if (!EVENT_ACTIONS.includes(event_action as EventAction)) {
    errors.push(`'event_action' is invalid (must be one of: ${EVENT_ACTIONS.join(', ')})`);
  }

  if (present(dedup_key) && typeof dedup_key !== 'string') errors.push("'dedup_key' must be a string");
  else if (typeof dedup_key === 'string' && chars(dedup_key) > MAX_DEDUP_KEY) {
    errors.push(`Length of 'dedup_key' must be less than or equal to ${MAX_DEDUP_KEY} characters`);
  }
  if ((event_action === 'acknowledge' || event_action === 'resolve') && !present(dedup_key)) {
    errors.push(`'dedup_key' is required for ${event_action} events`);
  }

  if (event_action === 'trigger') {
    if (!isObject(payload)) errors.push("'payload' is missing or not an object");
    else errors.push(...payloadErrors(payload));
  }

  return errors.length > 0 ? { ok: false, errors } : { ok: true, event: body as AlertEvent };
}

function payloadErrors(payload: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const { summary, source, severity, timestamp, custom_details } = payload;
  if (typeof summary !== 'string' || summary.trim() === '') errors.push("'payload.summary' is missing or blank");
  else if (chars(summary) > MAX_SUMMARY) errors.push(`Length of 'payload.summary' must be less than or equal to ${MAX_SUMMARY} characters`);
  if (typeof source !== 'string' || source.trim() === '') errors.push("'payload.source' is missing or blank");
  if (!present(severity)) errors.push("'payload.severity' is missing or blank");
  else if (!SEVERITIES.includes(severity as Severity))
    errors.push(`'payload.severity' is invalid (must be one of: ${SEVERITIES.join(', ')})`);
  if (timestamp !== undefined && (typeof timestamp !== 'string' || !isIso8601(timestamp))) {
    errors.push("'payload.timestamp' is not an ISO 8601 date-time");
  }
  for (const field of ['component', 'group', 'class'] as const) {
    if (payload[field] !== undefined && typeof payload[field] !== 'string') errors.push(`'payload.${field}' must be a string`);
  }
  if (custom_details !== undefined && !isObject(custom_details)) errors.push("'payload.custom_details' must be an object");
  return errors;
}
