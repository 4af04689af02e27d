import type { ResponseParameters } from 'grammy/types';

/**
 * A refusal in the Bot API's shape: `{ ok: false, error_code, description, parameters? }`, sent
 * with the HTTP status equal to `error_code` (and `Retry-After` beside a 429), as the Bot API
 * server does. Descriptions are the server's own words: a client matches on them.
 */
export class TelegramError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: ResponseParameters,
  ) {
    super(description);
  }
}

export const badRequest = (what: string, parameters?: ResponseParameters) => new TelegramError(400, `Bad Request: ${what}`, parameters);
export const forbidden = (what: string) => new TelegramError(403, `Forbidden: ${what}`);
export const conflict = (what: string) => new TelegramError(409, `Conflict: ${what}`);
export const tooManyRequests = (retryAfterSec: number) =>
  new TelegramError(429, `Too Many Requests: retry after ${retryAfterSec}`, { retry_after: retryAfterSec });

/** A well-formed token the server does not know. */
export const unauthorized = () => new TelegramError(401, 'Unauthorized');
/** A token that cannot be one (no `:`, a leading zero, a bot id that is not a number). */
export const malformedToken = () => new TelegramError(401, 'Unauthorized: invalid token specified');
export const notFound = () => new TelegramError(404, 'Not Found');
export const requestEntityTooLarge = () => new TelegramError(413, 'Request Entity Too Large');

export const chatNotFound = () => badRequest('chat not found');
export const threadNotFound = () => badRequest('message thread not found');
export const queryTooOld = () => badRequest('query is too old and response timeout expired or query ID is invalid');
export const notModified = () =>
  badRequest(
    'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
  );

/** A parameter the real server accepts but this fake does not model: said plainly rather than half-done. */
export const notModelled = (what: string) => badRequest(`the fake Telegram does not implement ${what}`);
