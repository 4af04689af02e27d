import { UpstreamError } from './errors.js';

export type Settled<T> = { ok: true; value: T } | { ok: false; error: UpstreamError };

/**
 * Secondary parts of a reply (red flags, market data, a chart) may fail on their own: the reply
 * then says that part is unavailable instead of failing whole. Only typed upstream errors are
 * absorbed; anything else is a bug and propagates.
 */
export async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (err) {
    if (err instanceof UpstreamError) return { ok: false, error: err };
    throw err;
  }
}

export const okValue = <T>(s: Settled<T>): T | undefined => (s.ok ? s.value : undefined);

/**
 * Why nothing at all could be shown: the first real failure (not found, the service down, ...),
 * before any "this source has no such data", which says nothing about why the rest failed.
 */
export function firstRealFailure(failures: readonly UpstreamError[]): UpstreamError {
  return failures.find((e) => e.kind !== 'not_available') ?? failures[0]!;
}
