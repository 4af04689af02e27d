import { createHash, randomBytes } from 'node:crypto';
import { secretWatch } from '../../helpers/secret-watch.js';
import { isIso8601 } from '../http-receiver/iso8601.js';
import { controlsOf, declaresJson, type Received, type ReceiverControls, type Reply, startReceiver } from '../http-receiver/server.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignature } from './signing.js';

export const WEBHOOK_EVENT_TYPES = [
  'incident.opened',
  'incident.escalated',
  'incident.acknowledged',
  'incident.snoozed',
  'incident.resolved',
  'incident.cleared',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const TOLERANCE_SEC = 300;
export const MAX_WEBHOOK_BYTES = 1024 * 1024;
const MAX_EVENT_ID = 255;

export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  occurred_at: string;
  incident: Record<string, unknown>;
  rule: Record<string, unknown>;
  [field: string]: unknown;
}

export interface ReceivedEvent {
  id: string;
  type: WebhookEventType;
  event: WebhookEvent;
  /** The body as signed and sent. */
  raw: string;
  /** X-Polbot-Timestamp of the delivery that was accepted. */
  timestampSec: number;
  /** How often it arrived and was acknowledged: 1, plus each retry answered as a duplicate. */
  deliveries: number;
  receivedAt: Date;
}

export interface FakeWebhookOptions {
  /** The destination's signing secret; a random one by default. */
  secret?: string;
  /** Where the receiver listens; `/polbot/events` by default. */
  path?: string;
  /** How far X-Polbot-Timestamp may be from the receiver's clock; 300 s by default. */
  toleranceSec?: number;
}

/** Faults (`rateLimitNext`, `failNext`, `hangNext`, `holdNext`) come before any check, as a loaded receiver answers before it reads. */
export interface FakeWebhook extends ReceiverControls {
  /** The destination URL: `http://127.0.0.1:PORT/polbot/events`. */
  readonly url: string;
  readonly secret: string;

  /** Accepted events, in the order accepted, each once however often it was delivered. */
  events(): ReceivedEvent[];
  /** Forgets requests and accepted events (so a seen id is new again); scheduled faults stay. */
  clear(): void;
  /** Moves the receiver's clock on, to reach the timestamp tolerance without waiting. */
  advanceClock(ms: number): void;
}

const refuse = (status: number, error: string, extra: Record<string, unknown> = {}): Reply => ({ status, body: { error, ...extra } });
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function shapeErrors(body: Record<string, unknown>): string[] {
  const errors: string[] = [];
  if (typeof body.id !== 'string' || body.id === '' || body.id.length > MAX_EVENT_ID)
    errors.push(`id must be a string of 1 to ${MAX_EVENT_ID} characters`);
  if (!WEBHOOK_EVENT_TYPES.includes(body.type as WebhookEventType)) errors.push(`type must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  if (typeof body.occurred_at !== 'string' || !isIso8601(body.occurred_at)) errors.push('occurred_at must be an ISO 8601 date-time');
  if (!isObject(body.incident)) errors.push('incident must be an object');
  if (!isObject(body.rule)) errors.push('rule must be an object');
  return errors;
}

const sha256 = (raw: Buffer) => createHash('sha256').update(raw).digest('hex');

export async function startFakeWebhook(options: FakeWebhookOptions = {}): Promise<FakeWebhook> {
  const secret = options.secret ?? `whsec_${randomBytes(24).toString('hex')}`;
  secretWatch.secret(secret, 'webhook signing secret');
  const path = options.path ?? '/polbot/events';
  const toleranceSec = options.toleranceSec ?? TOLERANCE_SEC;
  let clockOffsetMs = 0;
  const nowSec = () => Math.floor((Date.now() + clockOffsetMs) / 1000);

  const accepted: ReceivedEvent[] = [];
  /** The digest of the body each accepted id came with: a retry must resend the same bytes. */
  const seen = new Map<string, { digest: string; event: ReceivedEvent }>();

  const receive = (request: Received): Reply => {
    if (request.path !== path) return refuse(404, 'not found');
    if (request.method !== 'POST') return refuse(405, 'POST only');
    if (!declaresJson(request)) return refuse(415, 'Content-Type must be application/json');
    const signature = request.headers[SIGNATURE_HEADER];
    const timestamp = request.headers[TIMESTAMP_HEADER];
    if (!signature) return refuse(401, 'missing X-Polbot-Signature');
    if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return refuse(401, 'missing or malformed X-Polbot-Timestamp');
    if (Math.abs(nowSec() - Number(timestamp)) > toleranceSec)
      return refuse(401, `X-Polbot-Timestamp is more than ${toleranceSec} s from the receiver's clock`);
    if (!verifySignature(secret, timestamp, request.raw, signature)) return refuse(401, 'signature does not match');

    const eventId = request.headers[EVENT_ID_HEADER];
    if (!eventId) return refuse(400, 'missing X-Polbot-Event-Id');
    let body: unknown;
    try {
      body = JSON.parse(request.raw.toString('utf8'));
    } catch {
      return refuse(400, 'body is not JSON');
    }
    if (!isObject(body)) return refuse(400, 'body is not a JSON object');
    const errors = shapeErrors(body);
    if (errors.length > 0) return refuse(400, 'invalid event', { errors });
    if (body.id !== eventId) return refuse(400, 'X-Polbot-Event-Id differs from the body id');

    const digest = sha256(request.raw);
    const before = seen.get(eventId);
    if (before) {
      if (before.digest !== digest) return refuse(409, 'event id already accepted with a different body', { id: eventId });
      before.event.deliveries += 1;
      return { status: 200, body: { duplicate: true, id: eventId } };
    }
    const event = body as WebhookEvent;
    const received: ReceivedEvent = {
      id: eventId,
      type: event.type,
      event,
      raw: request.raw.toString('utf8'),
      timestampSec: Number(timestamp),
      deliveries: 1,
      receivedAt: new Date(),
    };
    accepted.push(received);
    seen.set(eventId, { digest, event: received });
    return { status: 200, body: { accepted: true, id: eventId } };
  };

  const receiver = await startReceiver({
    name: 'fake webhook receiver',
    maxBodyBytes: MAX_WEBHOOK_BYTES,
    tooLarge: refuse(413, `body over ${MAX_WEBHOOK_BYTES} bytes`),
    throttled: refuse(429, 'too many requests'),
    failed: (status) => refuse(status, 'receiver failure'),
    handle: receive,
  });

  return {
    ...controlsOf(receiver),
    url: `${receiver.origin}${path}`,
    secret,
    events: () => accepted.map((e) => structuredClone(e)),
    clear: () => {
      receiver.log.clear();
      accepted.length = 0;
      seen.clear();
    },
    advanceClock: (ms) => {
      clockOffsetMs += ms;
    },
  };
}
