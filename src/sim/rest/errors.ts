/** The simulator's single error body shape: `{"error":{"code","message","parameter"?}}` (our assumption; the upstream's is not published). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly parameter?: string,
  ) {
    super(message);
  }

  body() {
    return { error: { code: this.code, message: this.message, ...(this.parameter ? { parameter: this.parameter } : {}) } };
  }
}

export const invalid = (parameter: string, message: string) => new HttpError(400, 'invalid_parameter', message, parameter);
export const notFound = (message: string) => new HttpError(404, 'not_found', message);
