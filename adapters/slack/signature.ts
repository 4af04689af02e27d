import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * Slack signs `v0:<timestamp>:<body>` and asks apps to refuse requests whose timestamp is more
 * than five minutes off. Bolt only refuses old ones; a timestamp from the future would let a
 * captured request be replayed for as long as it stays "future". This bound runs first on the
 * Slack ingress thread, before the body is read or the signature checked.
 */
export const MAX_SKEW_SECONDS = 5 * 60;

export function timestampWithinWindow(
  header: string | string[] | undefined,
  nowMs: number = Date.now(),
  maxSkewSec: number = MAX_SKEW_SECONDS,
): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,12}$/.test(value)) return false;
  return Math.abs(Math.floor(nowMs / 1000) - Number(value)) <= maxSkewSec;
}

export interface RequestAgeGuardOptions {
  /** Paths that carry signed Slack requests (`/slack/events`); other routes pass untouched. */
  endpoints: readonly string[];
  now?: () => number;
  maxSkewSec?: number;
  onReject?: (info: { path: string; reason: 'missing' | 'out_of_window' }) => void;
}

/** Wraps a receiver's request listener; rejected requests get Bolt's own answer, a bodiless 401. */
export function guardRequestAge(listener: RequestListener, options: RequestAgeGuardOptions): RequestListener {
  const now = options.now ?? Date.now;
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    if (req.method !== 'POST' || !options.endpoints.includes(path)) return listener(req, res);
    const header = req.headers['x-slack-request-timestamp'];
    if (timestampWithinWindow(header, now(), options.maxSkewSec)) return listener(req, res);
    options.onReject?.({ path, reason: header === undefined ? 'missing' : 'out_of_window' });
    // The body is drained so the connection can be reused, not buffered.
    req.resume();
    res.writeHead(401);
    res.end();
  };
}
