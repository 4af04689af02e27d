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
  // Whitespace only: the sources hold no string literal in which spacing matters.
  (fn as F & Marked)[PORTABLE] = source.replace(/\s+/g, ' ').trim();
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
 * The config as JavaScript source for QuickChart, which evaluates it rather than parsing JSON.
 * Written as an object literal (bare keys, short numbers) because the whole config travels in the
 * URL and chat platforms cap image URL length. Strings are JSON string literals and function
 * source comes only from `portable` markers in this module's own code, so text from the upstream
 * (entity names) can never turn into code, whatever it contains.
 */
export function serializeForQuickChart(config: ChartConfiguration): string {
  const out = literal(config, new Set());
  if (out === undefined) throw new Error('chart config is empty');
  return out;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function literal(value: unknown, seen: Set<object>): string | undefined {
  if (value === undefined || isLocalOnly(value)) return undefined;
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return String(value);
    case 'number':
      if (!Number.isFinite(value)) return 'null';
      return String(Number.isInteger(value) ? value : Number(value.toPrecision(6)));
    case 'function': {
      const source = portableSource(value);
      if (source === undefined) throw new Error(`chart config has a function with no portable form: ${value.name || 'anonymous'}`);
      return source;
    }
    case 'object': {
      if (seen.has(value)) throw new Error('chart config is cyclic');
      seen.add(value);
      let text: string;
      if (Array.isArray(value)) {
        const items = value.filter((v) => !isLocalOnly(v)).map((v) => literal(v, seen) ?? 'null');
        text = `[${items.join(',')}]`;
      } else {
        const entries: string[] = [];
        for (const [k, v] of Object.entries(value)) {
          const lit = literal(v, seen);
          if (lit !== undefined) entries.push(`${IDENTIFIER.test(k) ? k : JSON.stringify(k)}:${lit}`);
        }
        text = `{${entries.join(',')}}`;
      }
      seen.delete(value);
      return text;
    }
    default:
      return undefined;
  }
}
