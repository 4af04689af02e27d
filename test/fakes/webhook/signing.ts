import { createHmac, timingSafeEqual } from 'node:crypto';
import { secretWatch } from '../../helpers/secret-watch.js';

export const SIGNATURE_HEADER = 'x-polbot-signature';
export const TIMESTAMP_HEADER = 'x-polbot-timestamp';
export const EVENT_ID_HEADER = 'x-polbot-event-id';

export interface WebhookHeaders {
  'X-Polbot-Signature': string;
  'X-Polbot-Timestamp': string;
  'X-Polbot-Event-Id': string;
}

function digest(secret: string, timestampSec: string, rawBody: string | Buffer): Buffer {
  return createHmac('sha256', secret).update(`${timestampSec}.`).update(rawBody).digest();
}

/**
 * The headers polbot sends with a webhook event: `v1=` and the hex HMAC-SHA256, keyed with the
 * destination's secret, of `<timestamp>.<raw body>`. Tests use it to send what polbot would
 * (and forgeries of it); the receiver checks with `verifySignature`.
 */
export function signWebhook(
  secret: string,
  rawBody: string,
  eventId: string,
  timestampSec = Math.floor(Date.now() / 1000),
): WebhookHeaders {
  secretWatch.secret(secret, 'webhook signing secret');
  const timestamp = String(timestampSec);
  return {
    'X-Polbot-Signature': `v1=${digest(secret, timestamp, rawBody).toString('hex')}`,
    'X-Polbot-Timestamp': timestamp,
    'X-Polbot-Event-Id': eventId,
  };
}

/** Compared in constant time, so the answer's timing does not tell how much of a forgery was right. */
export function verifySignature(secret: string, timestampSec: string, rawBody: Buffer, header: string): boolean {
  const match = /^v1=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match) return false;
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), digest(secret, timestampSec, rawBody));
}
