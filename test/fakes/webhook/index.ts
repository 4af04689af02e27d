/**
 * A loopback webhook receiver for alert destinations of the kind `name=webhook:<url>`, which
 * verifies polbot's signature and refuses replays:
 *
 *   const hook = await startFakeWebhook();            // hook.url, hook.secret
 *   // POLBOT_DESTINATIONS=siem=webhook:${hook.url}, POLBOT_WEBHOOK_SECRET_SIEM=${hook.secret}
 *   expect(hook.events().map((e) => e.type)).toEqual(['incident.opened', 'incident.acknowledged']);
 *
 * ## The contract (what polbot sends; the product implements it, this receiver holds it to it)
 *
 * One POST per event, `Content-Type: application/json`, with three headers:
 *
 * - `X-Polbot-Timestamp: <unix seconds>`, when this delivery was signed;
 * - `X-Polbot-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`, keyed with the
 *   destination's secret (`POLBOT_WEBHOOK_SECRET_<NAME>`), over the exact bytes sent;
 * - `X-Polbot-Event-Id: <id>`, the body's `id`.
 *
 * The body: `{ id, type, occurred_at, incident: {...}, rule: {...} }`, where `type` is one of
 * `incident.opened`, `incident.escalated`, `incident.acknowledged`, `incident.snoozed`,
 * `incident.resolved`, `incident.cleared`, and `occurred_at` is ISO 8601. What `incident` and
 * `rule` carry is polbot's to define; the receiver requires only that they are objects.
 *
 * A receiver answers:
 *
 * - 401 for a missing or malformed signature or timestamp, a signature that does not match
 *   (compared with `timingSafeEqual`), or a timestamp more than 5 minutes from its clock, either
 *   way: a captured request cannot be replayed later, nor a forged one post-dated;
 * - 400 for a body that is not an event as above, or an Event-Id header that differs from its id;
 * - 200 `{ accepted: true, id }` for a new event;
 * - 200 `{ duplicate: true, id }` for an id it already accepted with the same body: a retry
 *   (after a timeout, a 429, a 5xx) is acknowledged and not counted twice, so delivery may be
 *   at least once while the receiver acts exactly once;
 * - 409 for an id it already accepted with a different body: an id names one event forever.
 *
 * So a retry re-signs with a fresh timestamp but resends the very bytes first sent: polbot
 * stores the serialized body with the event rather than serializing it again.
 *
 * Test controls: `rateLimitNext`, `failNext`, `hangNext`, `holdNext` (open until the client dies,
 * then processed or lost as asked, or until `releaseHeld()`) for the next requests (they come
 * before any check), `advanceClock` to reach the tolerance, `events()` in the order accepted.
 */
export {
  startFakeWebhook,
  WEBHOOK_EVENT_TYPES,
  type FakeWebhook,
  type FakeWebhookOptions,
  type ReceivedEvent,
  type WebhookEvent,
  type WebhookEventType,
} from './server.js';
export { signWebhook, type WebhookHeaders } from './signing.js';
export type { FailOptions, HangOptions, HoldOptions, RateLimitOptions } from '../http-receiver/faults.js';
export type { RecordedRequest, RequestFilter } from '../http-receiver/recorder.js';
