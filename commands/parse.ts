import type { EntityKind } from '../src/api/domain.js';
import { CHART_KINDS, MAX_COMPARE, RANGE_ALIASES, RANGES, helpFor, type ChartKind, type Command, type Range, type Target } from './grammar.js';

export type ParseResult = { ok: true; command: Command } | { ok: false; message: string; usage: string; example: string };

const SUBCOMMANDS = ['project', 'exchange', 'flags', 'chart', 'compare', 'top', 'search', 'trending', 'index', 'health', 'help', 'digest'];
const MAX_INPUT = 500;
const EXPLICIT = /^(project|exchange):([a-z0-9][a-z0-9_-]{0,127})$/;

function fail(command: string, message: string): ParseResult {
  const h = helpFor(command);
  return { ok: false, message, usage: h.usage, example: h.example };
}

/** `project:bitcoin` is what our own buttons send back: an explicit choice, never re-resolved fuzzily. */
export function parseTarget(text: string, kind?: EntityKind): Target {
  const trimmed = text.trim();
  const m = EXPLICIT.exec(trimmed);
  if (m) return { text: trimmed, explicit: { kind: m[1] as EntityKind, slug: m[2]! } };
  return { text: trimmed, ...(kind ? { kind } : {}) };
}

export function targetRef(kind: EntityKind, slug: string): string {
  return `${kind}:${slug}`;
}

/** Splits compare names: commas or " vs " when present, quoted names, otherwise one word each. */
function splitNames(text: string): string[] {
  if (/,|\bvs\.?\b/i.test(text)) return text.split(/,|\bvs\.?\b/i).map((s) => s.trim()).filter(Boolean);
  const names: string[] = [];
  const re = /"([^"]+)"|“([^”]+)”|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) names.push((m[1] ?? m[2] ?? m[3]!).trim());
  return names.filter(Boolean);
}

/** Edit distance counting a swap of neighbours as one edit, for typos like "chrat"; words are short. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

function parseChart(rest: string): ParseResult {
  const words = rest.split(/\s+/).filter(Boolean);
  let range: Range = '90d';
  let chart: ChartKind | null = null;
  // Options come after the name; peel them off the end.
  while (words.length > 0) {
    const w = words[words.length - 1]!.toLowerCase();
    if ((RANGES as readonly string[]).includes(w) || w in RANGE_ALIASES) {
      range = (RANGE_ALIASES[w] ?? w) as Range;
    } else if ((CHART_KINDS as readonly string[]).includes(w)) {
      chart = w as ChartKind;
    } else if (/^\d+[dwmy]$/.test(w)) {
      return fail('chart', `Unknown range '${w}': use one of ${RANGES.join(', ')}.`);
    } else break;
    words.pop();
  }
  if (words.length === 0) return fail('chart', 'Which project or exchange should I chart?');
  return { ok: true, command: { name: 'chart', target: parseTarget(words.join(' ')), range, chart } };
}

export function parse(input: string): ParseResult {
  const text = input.replace(/[\p{Cc}\p{Cf}]/gu, ' ').replace(/\s+/g, ' ').trim();
  if (!text) return { ok: true, command: { name: 'help' } };
  if (text.length > MAX_INPUT) return fail('card', `That is too long (${text.length} characters); names are short.`);

  const [first = '', ...restWords] = text.split(' ');
  const head = first.toLowerCase();
  const rest = restWords.join(' ');

  switch (head) {
    case 'help':
    case '?':
      return { ok: true, command: { name: 'help' } };
    case 'project':
    case 'exchange':
      if (!rest) return fail(head, `Which ${head}?`);
      return { ok: true, command: { name: 'card', target: parseTarget(rest, head) } };
    case 'flags':
      if (!rest) return fail('flags', 'Which project?');
      return { ok: true, command: { name: 'flags', target: parseTarget(rest, 'project') } };
    case 'chart':
      return parseChart(rest);
    case 'compare': {
      const names = splitNames(rest);
      if (names.length < 2) return fail('compare', 'Name at least two projects or exchanges to compare.');
      if (names.length > MAX_COMPARE) return fail('compare', `I can compare up to ${MAX_COMPARE} at once; you named ${names.length}.`);
      return { ok: true, command: { name: 'compare', targets: names.map((n) => parseTarget(n)) } };
    }
    case 'top': {
      const what = rest.toLowerCase();
      if (!what || what === 'exchanges' || what === 'exchange') return { ok: true, command: { name: 'top', kind: 'exchange' } };
      if (what === 'projects' || what === 'project') return { ok: true, command: { name: 'top', kind: 'project' } };
      return fail('top', `Unknown list '${rest}': use exchanges or projects.`);
    }
    case 'search':
      if (!rest) return fail('search', 'What should I search for?');
      return { ok: true, command: { name: 'search', text: rest } };
    case 'trending':
    case 'index':
    case 'health':
      if (rest) return fail(head, `'${head}' takes no arguments.`);
      return { ok: true, command: { name: head } };
    case 'digest':
      return { ok: true, command: { name: 'digest', args: rest } };
    default:
      break;
  }

  if (EXPLICIT.test(text)) return { ok: true, command: { name: 'card', target: parseTarget(text) } };
  // A mistyped subcommand followed by more words ("chrat bitcoin") is a usage error, not a name.
  if (rest && head.length >= 4) {
    const near = SUBCOMMANDS.find((s) => distance(head, s) <= (s.length > 5 ? 2 : 1));
    if (near) return fail(near, `Unknown command '${first}'. Did you mean '${near}'?`);
  }
  return { ok: true, command: { name: 'card', target: parseTarget(text) } };
}
