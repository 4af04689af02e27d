import { createHmac } from 'node:crypto';
import { secretWatch } from '../../helpers/secret-watch.js';

export interface SlackSignatureHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
}

/** Slack's v0 request signature: HMAC-SHA256 over `v0:<timestamp>:<raw body>`. */
export function signSlackRequest(
  secret: string,
  body: string,
  timestampSec: number = Math.floor(Date.now() / 1000),
): SlackSignatureHeaders {
  // The app under test verifies with the same secret, so it must never show up in its logs.
  secretWatch.secret(secret, 'Slack signing secret');
  const digest = createHmac('sha256', secret).update(`v0:${timestampSec}:${body}`).digest('hex');
  return { 'x-slack-signature': `v0=${digest}`, 'x-slack-request-timestamp': String(timestampSec) };
}

export interface PostToBoltOptions {
  /** Bolt rejects timestamps more than 5 minutes from its clock; set this to test that. */
  timestampSec?: number;
  /** Slash commands and interactions are form-encoded; Events API bodies are JSON. */
  contentType?: string;
  /** Sent after the signature headers, so a test can forge or drop them. */
  headers?: Record<string, string>;
}

export interface BoltResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
  elapsedMs: number;
}

/** Posts a signed request the way Slack delivers it to an app's Request URL. */
export async function postToBolt(url: string, body: string, secret: string, options: PostToBoltOptions = {}): Promise<BoltResponse> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/x-www-form-urlencoded',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      ...signSlackRequest(secret, body, options.timestampSec),
      ...options.headers,
    },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text,
    headers: Object.fromEntries(response.headers.entries()),
    elapsedMs: performance.now() - started,
  };
}
