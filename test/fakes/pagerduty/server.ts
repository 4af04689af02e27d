import { randomUUID } from 'node:crypto';
import { secretWatch } from '../../helpers/secret-watch.js';
import { controlsOf, declaresJson, type Received, type ReceiverControls, type Reply, startReceiver } from '../http-receiver/server.js';
import { type Incident, IncidentBook, type Outcome } from './incidents.js';
import { type AlertEvent, checkEvent } from './validate.js';

/** "Events API payloads are limited to 512 KB" (developer-docs, docs/events-API-v2/01-Overview.md, Size Limits). */
export const MAX_EVENT_BYTES = 512 * 1024;
export const ENQUEUE_PATH = '/v2/enqueue';

/** An event PagerDuty accepted (202), in the order accepted, with what it did to the incidents. */
export interface AcceptedEvent {
  event: AlertEvent;
  /** The event's dedup_key, or the one PagerDuty generated for a trigger sent without one. */
  dedupKey: string;
  outcome: Outcome;
  /** The incident it opened or acted on; none when it was dropped. */
  incident?: number;
  at: Date;
}

/**
 * `rateLimitNext()` answers 429 without Retry-After, as PagerDuty does; `retryAfterSec` adds one.
 * `failNext({ status: 503 })`, `hangNext({ ms })`, `holdNext({ lose })`: see http-receiver/faults.ts.
 */
export interface FakePagerDuty extends ReceiverControls {
  /** `http://127.0.0.1:PORT`, to stand for `https://events.pagerduty.com`. */
  readonly url: string;
  /** `${url}/v2/enqueue`. */
  readonly eventsUrl: string;

  events(): AcceptedEvent[];
  /** Every incident, in the order opened; with a routing key and dedup_key, only theirs. */
  incidents(filter?: { routingKey?: string; dedupKey?: string }): Incident[];
  /** Forgets requests, events and incidents; scheduled faults stay. */
  clear(): void;
}

const invalid = (errors: string[]): Reply => ({
  status: 400,
  body: { status: 'invalid event', message: 'Event object is invalid', errors },
});
/** The OpenAPI description's example for a body that is not a JSON object. */
const unrecognized = (error: string): Reply => ({
  status: 400,
  body: { status: 'Unrecognized object', message: 'Event object format is unrecognized', errors: [error] },
});

export async function startFakePagerDuty(): Promise<FakePagerDuty> {
  const book = new IncidentBook();
  const accepted: AcceptedEvent[] = [];

  const enqueue = (request: Received): Reply => {
    if (request.path !== ENQUEUE_PATH) return { status: 404, body: { status: 'not found', message: `no route ${request.path}` } };
    if (request.method !== 'POST') return { status: 405, body: { status: 'method not allowed', message: 'POST only' } };
    // PagerDuty documents a JSON object posted; this fake also insists on the media type, so a
    // client that forgets to declare it is caught here rather than by the real service.
    if (!declaresJson(request)) return unrecognized('Content-Type must be application/json');
    let body: unknown;
    try {
      body = JSON.parse(request.raw.toString('utf8'));
    } catch {
      return unrecognized('JSON parse error');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return unrecognized('JSON parse error');
    const checked = checkEvent(body as Record<string, unknown>);
    if (!checked.ok) return invalid(checked.errors);

    const { event } = checked;
    // PagerDuty generates a UUID for a trigger sent without a dedup_key ("Alert De-Duplication").
    const dedupKey = event.dedup_key || randomUUID().replace(/-/g, '');
    const at = new Date();
    const { outcome, incident } = book.apply(event.routing_key, event.event_action, dedupKey, event.payload, at);
    const record: AcceptedEvent = { event: structuredClone(event), dedupKey, outcome, at };
    if (incident) record.incident = incident.number;
    accepted.push(record);
    return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: dedupKey } };
  };

  const receiver = await startReceiver({
    name: 'fake PagerDuty',
    maxBodyBytes: MAX_EVENT_BYTES,
    tooLarge: { status: 413, body: { status: 'request too large', message: 'Events API payloads are limited to 512 KB' } },
    // PagerDuty's rate-limit page says only that the answer is "429 - Request Limit Exceeded";
    // a client must go by the status, not this body.
    throttled: { status: 429, body: { status: 'throttle event', message: 'Request Limit Exceeded' } },
    failed: (status) => ({ status, body: { status: 'error', message: 'Internal Server Error' } }),
    handle: enqueue,
    watchedBody: (raw) => {
      // The routing key is the credential, carried in the body by design: every one shown is
      // registered, and the check sees the body with that field masked, so the key anywhere
      // else (a summary, custom_details, a header) is still caught.
      try {
        const body = JSON.parse(raw) as Record<string, unknown>;
        if (typeof body.routing_key === 'string') {
          secretWatch.secret(body.routing_key, 'PagerDuty routing key sent to the fake');
          return JSON.stringify({ ...body, routing_key: '(credential)' });
        }
      } catch {
        // Not JSON: the check sees it as sent.
      }
      return raw;
    },
  });

  return {
    ...controlsOf(receiver),
    url: receiver.origin,
    eventsUrl: `${receiver.origin}${ENQUEUE_PATH}`,
    events: () => accepted.map((e) => structuredClone(e)),
    incidents: (filter = {}) =>
      book
        .list()
        .filter(
          (i) =>
            (filter.routingKey === undefined || i.routingKey === filter.routingKey) &&
            (filter.dedupKey === undefined || i.dedupKey === filter.dedupKey),
        ),
    clear: () => {
      receiver.log.clear();
      book.clear();
      accepted.length = 0;
    },
  };
}
