/**
 * Messages between the ingress thread, which owns the HTTP socket, and the main thread, which
 * runs Bolt's app and the command core. Everything here is structured-clonable data.
 */

export interface IngressSettings {
  signingSecret: string;
  host: string;
  port: number;
  /** The path Slack posts events, commands and interactions to. */
  endpoint: string;
  /** Routes the main thread answers, by method and path, proxied to its loopback server on `routesPort`. */
  routes: readonly { method: string; path: string }[];
  routesPort?: number;
  /** Bolt's log level, so lines below it are not even sent across. */
  logLevel: string;
}

export type LogLevelName = 'debug' | 'info' | 'warn' | 'error';

/** From the ingress thread. */
export type IngressMessage =
  | { op: 'listening'; port: number }
  | { op: 'start-failed'; message: string; code?: string }
  /** Verified and parsed. Without `id` it was acknowledged on arrival; with one, the main thread acknowledges it. */
  | { op: 'event'; id?: number; body: Record<string, unknown>; retryNum?: number; retryReason?: string }
  | { op: 'log'; level: LogLevelName; text: string }
  /** A request that ran nothing: forged, stale, or a replay of one already taken. */
  | { op: 'refused'; reason: RefusalReason }
  | { op: 'stopped' };

export type RefusalReason = 'bad_signature' | 'stale' | 'replayed';

/** To the ingress thread. */
export type MainMessage =
  | { op: 'ack'; id: number; response?: unknown }
  /** The app is done with an event; `error` if it failed, so the receiver answers as Bolt would. */
  | { op: 'settled'; id: number; error?: string }
  | { op: 'stop' };

/**
 * Slash commands, button clicks, message shortcuts and Events API events get an empty acknowledgement the moment they are verified:
 * polbot never answers them in the acknowledgement's body, and Slack allows 3 seconds, which a
 * burst queued behind chart drawing would not keep.
 */
export function acknowledgedOnArrival(body: Record<string, unknown>): boolean {
  return (
    typeof body.command === 'string' || body.type === 'block_actions' || body.type === 'message_action' || body.type === 'event_callback'
  );
}
