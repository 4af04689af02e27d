/**
 * Typed upstream failures. `message` is always safe to show a person: it never carries the key,
 * the upstream URL or a stack trace. Detail for operators goes in `detail` (logged, redacted).
 */
export type UpstreamErrorKind =
  | 'unauthorized'
  | 'not_found'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'bad_response'
  | 'not_available'
  | 'invalid_input';

const MESSAGES: Record<UpstreamErrorKind, string> = {
  unauthorized: 'The risk-data service rejected our credentials. An administrator needs to check the API key.',
  not_found: 'The risk-data service has no such entity.',
  rate_limited: 'The risk-data service is rate-limiting us. Please try again shortly.',
  unavailable: 'The risk-data service is unavailable right now. Please try again shortly.',
  timeout: 'The risk-data service did not answer in time. Please try again shortly.',
  bad_response: 'The risk-data service sent an answer we could not read.',
  not_available: 'That data is not available through the configured source.',
  invalid_input: 'That is not a valid name or slug.',
};

export class UpstreamError extends Error {
  override name = 'UpstreamError';
  readonly kind: UpstreamErrorKind;
  /** Route template (never a full URL), e.g. `projects_data /v1/{slug}/pol/current` or `mcp get_project_red_flags`. */
  readonly route: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly detail?: string;

  constructor(
    kind: UpstreamErrorKind,
    route: string,
    opts: { message?: string; status?: number; retryAfterMs?: number; detail?: string; cause?: unknown } = {},
  ) {
    super(opts.message ?? MESSAGES[kind], opts.cause === undefined ? undefined : { cause: opts.cause });
    this.kind = kind;
    this.route = route;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
    if (opts.detail !== undefined) this.detail = opts.detail;
  }

  /** Failures of the upstream itself (worth a retry, a breaker count, or stale data), as opposed to answers. */
  get isUpstreamFailure(): boolean {
    return this.kind === 'unavailable' || this.kind === 'timeout' || this.kind === 'rate_limited' || this.kind === 'bad_response';
  }
}

/** The route and what was wrong go to the operators' log (`route`, `detail`); the person gets the plain message. */
export function badResponse(route: string, detail: string): UpstreamError {
  return new UpstreamError('bad_response', route, { detail });
}
