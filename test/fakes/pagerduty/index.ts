/**
 * A loopback stand-in for PagerDuty's Events API v2 (`POST /v2/enqueue`) that refuses what
 * PagerDuty refuses and keeps PagerDuty's incident state, for alert destinations of the kind
 * `name=pagerduty:<routing key>`:
 *
 *   const pagerduty = await startFakePagerDuty();
 *   // point the product's events URL at pagerduty.eventsUrl, let an incident open, acknowledge, resolve…
 *   expect(pagerduty.incidents({ dedupKey: incidentId })).toMatchObject([{ status: 'resolved' }]);
 *
 * What it holds to, each from PagerDuty's developer documentation (PagerDuty/developer-docs,
 * docs/events-API-v2/01-Overview.md, 02-Trigger-Events.md, 05-Rate-Limits.md) and its OpenAPI
 * description (PagerDuty/api-schema, reference/events-v2/openapiv3.json):
 *
 * - 202 `{ status: 'success', message: 'Event processed', dedup_key }` for an accepted event.
 * - 400 `{ status: 'invalid event', message: 'Event object is invalid', errors: [...] }` for a
 *   routing key that is not 32 characters, an unknown `event_action`, a `dedup_key` over 255
 *   characters or missing on acknowledge/resolve, a trigger without `payload.summary` (at most
 *   1,024 characters), `payload.source` or a `payload.severity` of critical, error, warning, info,
 *   or with a `payload.timestamp` that is not ISO 8601 (validate.ts).
 * - 400 `{ status: 'Unrecognized object', message: 'Event object format is unrecognized', errors }`
 *   for a body that is not a JSON object (the OpenAPI error example), and here also for a
 *   Content-Type other than application/json.
 * - 413 over 512 KB ("Events API payloads are limited to 512 KB"); the body of that answer is
 *   not documented.
 * - 429 ("429 - Request Limit Exceeded"; "retry after some time") without Retry-After, and 5xx
 *   ("retry after some time"), only when a test asks for them: `rateLimitNext`, `failNext`;
 *   `hangNext` holds requests to reach a client's timeout; `holdNext` keeps them open until their
 *   client dies (then the event is processed or lost, as asked) or `releaseHeld()`, and `held()`
 *   counts them. PagerDuty's own limit (about 120 events a minute per routing key) is not enforced.
 * - Incidents per routing key and dedup_key (incidents.ts): triggers de-duplicate onto the open
 *   one, acknowledge and resolve act on it or are dropped, a resolved one is never reopened.
 *
 * Every routing key it is shown is registered with the suite's secret check.
 */
export { startFakePagerDuty, MAX_EVENT_BYTES, type FakePagerDuty, type AcceptedEvent } from './server.js';
export type { Incident, IncidentStatus, Outcome } from './incidents.js';
export type { AlertEvent, AlertPayload, EventAction, Severity } from './validate.js';
export type { FailOptions, HangOptions, HoldOptions, RateLimitOptions } from '../http-receiver/faults.js';
export type { RecordedRequest, RequestFilter } from '../http-receiver/recorder.js';
