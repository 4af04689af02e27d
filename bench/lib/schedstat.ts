/**
 * The scheduler's own accounting of threads (Linux `/proc/<pid>/task/<tid>/schedstat`): time run
 * on a core and time spent runnable but waiting for one. On a shared machine an acknowledgement's
 * wall time is mostly one or the other, and only these tell which; elsewhere they read as absent.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface SchedTimes {
  runMs: number;
  waitMs: number;
}

/** The thread ids of a process (this one by default); empty where /proc is not there. */
export function threadsOf(pid: number | 'self' = 'self'): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** Run and wait time summed over the given threads of a process; threads gone since count nothing. */
export function schedTimes(tids: readonly string[], pid: number | 'self' = 'self'): SchedTimes {
  let run = 0;
  let wait = 0;
  for (const tid of tids) {
    try {
      const [r, w] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      run += r ?? 0;
      wait += w ?? 0;
    } catch {
      // The thread has exited.
    }
  }
  return { runMs: run / 1e6, waitMs: wait / 1e6 };
}

/** What the threads ran and waited between two readings, in ms (one decimal). */
export function since(before: SchedTimes, after: SchedTimes): SchedTimes {
  return { runMs: Math.round((after.runMs - before.runMs) * 10) / 10, waitMs: Math.round((after.waitMs - before.waitMs) * 10) / 10 };
}
