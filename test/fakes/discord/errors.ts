/** An error response in Discord's JSON shape. */
export interface ApiError {
  status: number;
  code: number;
  message: string;
  /** Field-level details, as in Discord's "Invalid Form Body" errors. */
  errors?: Record<string, unknown>;
}

export const unauthorized = (): ApiError => ({ status: 401, code: 0, message: '401: Unauthorized' });
export const notFound = (): ApiError => ({ status: 404, code: 0, message: '404: Not Found' });
export const missingAccess = (): ApiError => ({ status: 403, code: 50001, message: 'Missing Access' });
export const unknownChannel = (): ApiError => ({ status: 404, code: 10003, message: 'Unknown Channel' });
export const unknownMessage = (): ApiError => ({ status: 404, code: 10008, message: 'Unknown Message' });
export const unknownWebhook = (): ApiError => ({ status: 404, code: 10015, message: 'Unknown Webhook' });
export const unknownInteraction = (): ApiError => ({ status: 404, code: 10062, message: 'Unknown interaction' });
export const unknownCommand = (): ApiError => ({ status: 404, code: 10063, message: 'Unknown application command' });
export const alreadyAcknowledged = (): ApiError => ({
  status: 400,
  code: 40060,
  message: 'Interaction has already been acknowledged.',
});
export const emptyMessage = (): ApiError => ({ status: 400, code: 50006, message: 'Cannot send an empty message' });
export const invalidJson = (detail: string): ApiError => ({
  status: 400,
  code: 50109,
  message: `The request body contains invalid JSON. (${detail})`,
});
export const threadExists = (): ApiError => ({ status: 400, code: 160004, message: 'A thread has already been created for this message' });
export const tooLarge = (): ApiError => ({ status: 413, code: 40005, message: 'Request entity too large' });

export function invalidForm(errors: Record<string, unknown>): ApiError {
  return { status: 400, code: 50035, message: 'Invalid Form Body', errors };
}

/** Nests a field error at a dotted path, e.g. `embeds.0.title`, the way Discord reports it. */
export function fieldError(path: string, code: string, message: string): Record<string, unknown> {
  const leaf = { _errors: [{ code, message }] };
  return path
    .split('.')
    .reverse()
    .reduce<Record<string, unknown>>((inner, key) => ({ [key]: inner }), leaf);
}
