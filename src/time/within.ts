import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The value of `work` if it settles within `ms`, else `undefined` (work that rejects in time
 * rejects). The one timer polbot races work against; it is cancelled when the race ends, so none
 * outlives it or holds the process open.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  const timer = new AbortController();
  try {
    return await Promise.race([work, sleep(ms, undefined, { signal: timer.signal, ref: false }).catch(() => undefined)]);
  } finally {
    timer.abort();
  }
}

/** `within`, but running out of time is an error: `onTimeout` says what to throw. */
export async function withinOrThrow<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  const done = Symbol('done');
  const result = await within(
    work.then((value) => ({ [done]: value })),
    ms,
  );
  if (result === undefined) throw onTimeout();
  return result[done] as T;
}
