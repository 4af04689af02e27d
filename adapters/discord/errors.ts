import { DiscordAPIError, HTTPError } from 'discord.js';

/**
 * A Discord error as it may be logged. discord.js errors carry the request URL and body; for
 * interaction routes the URL holds the interaction token (a credential for 15 minutes), so only
 * the parts an operator needs are kept, and any token-shaped path segment is masked.
 */
export interface ErrorInfo {
  name: string;
  message: string;
  code?: number | string;
  status?: number;
  method?: string;
}

const TOKEN_PATHS = /\/(webhooks|interactions)\/(\d+)\/[^/\s?]+/g;
// A bot token is three dot-separated base64url parts; discord.js's debug output prints the
// first two of them ("Provided token: MTU3…yd-tGg.*****"), which is more than a log needs.
const BOT_TOKEN = /[\w-]{20,}\.[\w-]{4,}\.[\w*-]{20,}/g;

export function maskTokens(text: string): string {
  return text.replace(TOKEN_PATHS, '/$1/$2/[token]').replace(BOT_TOKEN, '[token]');
}

export function describeError(err: unknown): ErrorInfo {
  if (err instanceof DiscordAPIError) {
    return { name: err.name, message: maskTokens(err.message), code: err.code, status: err.status, method: err.method };
  }
  if (err instanceof HTTPError) return { name: err.name, message: maskTokens(err.message), status: err.status, method: err.method };
  if (err instanceof Error) {
    // fetch reports every network failure as "fetch failed"; the reason is in its cause.
    const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
    const code = (err as { code?: unknown }).code ?? cause?.code;
    const reason = cause && typeof cause.message === 'string' && cause.message !== err.message ? ` (${cause.message})` : '';
    return {
      name: err.name,
      message: maskTokens(`${err.message}${reason}`),
      ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    };
  }
  return { name: 'Error', message: maskTokens(String(err)) };
}

/** Discord's "Unknown interaction": the 3-second window or the 15-minute token has passed. */
export function isExpiredInteraction(err: unknown): boolean {
  return err instanceof DiscordAPIError && (err.code === 10062 || err.code === 10015);
}
