import { randomUUID } from 'node:crypto';
import type { ChartConfiguration } from 'chart.js';

/**
 * One chart configuration serves both renderers. Functions in it (tick formatters, the background
 * plugin) are native for local rendering; for QuickChart, which evaluates the config as JavaScript
 * on its own server, each function must either carry self-contained source text (`portable`) or be
 * marked as a local-only nicety (`localOnly`) that is dropped. An unmarked function is a bug and
 * makes serialisation throw, so a formatter cannot silently vanish from QuickChart images.
 */

const PORTABLE = Symbol('chart.portable');
const LOCAL_ONLY = Symbol('chart.localOnly');

type Marked = { [PORTABLE]?: string; [LOCAL_ONLY]?: true };

export function portable<F extends (...args: never[]) => unknown>(fn: F, source: string): F {
  (fn as F & Marked)[PORTABLE] = source;
  return fn;
}

export function localOnly<T extends object>(value: T): T {
  (value as T & Marked)[LOCAL_ONLY] = true;
  return value;
}

export function portableSource(fn: unknown): string | undefined {
  return typeof fn === 'function' ? (fn as Marked)[PORTABLE] : undefined;
}

const isLocalOnly = (v: unknown) => (typeof v === 'object' || typeof v === 'function') && v !== null && (v as Marked)[LOCAL_ONLY] === true;

/**
 * The config as JavaScript source for QuickChart. Strings go through JSON.stringify, and function
 * source is spliced in only at placeholders carrying a per-call random nonce, so text from the
 * upstream (entity names) can never turn into code, whatever it contains.
 */
export function serializeForQuickChart(config: ChartConfiguration): string {
  const nonce = randomUUID().replace(/-/g, '');
  const sources: string[] = [];
  const json = JSON.stringify(config, (_key, value: unknown) => {
    if (isLocalOnly(value)) return undefined;
    if (Array.isArray(value) && value.some(isLocalOnly)) return value.filter((v) => !isLocalOnly(v));
    if (typeof value === 'function') {
      const source = portableSource(value);
      if (source === undefined) throw new Error(`chart config has a function with no portable form: ${value.name || 'anonymous'}`);
      sources.push(source);
      return `__polbot_fn_${nonce}_${sources.length - 1}__`;
    }
    return value;
  });
  return json.replace(new RegExp(`"__polbot_fn_${nonce}_(\\d+)__"`, 'g'), (_m, i: string) => sources[Number(i)]!);
}
