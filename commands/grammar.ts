import type { EntityKind } from '../src/api/domain.js';

/** Usage lines and examples: the parser's errors and `/pol help` both read them from here. */
export interface CommandHelp {
  name: string;
  usage: string;
  example: string;
  summary: string;
}

export const HELP: readonly CommandHelp[] = [
  { name: 'card', usage: '/pol <name or slug>', example: '/pol binance', summary: 'score card: PoL, rating, category scores, red flags and a chart' },
  { name: 'project', usage: '/pol project <name>', example: '/pol project lido dao', summary: 'score card of a project' },
  { name: 'exchange', usage: '/pol exchange <name or slug>', example: '/pol exchange gate-io', summary: 'score card of an exchange' },
  { name: 'flags', usage: '/pol flags <project>', example: '/pol flags pepe', summary: 'red flags, social-fraud signals, registration and jurisdiction' },
  { name: 'chart', usage: '/pol chart <name> [7d|30d|90d|180d|365d|all] [pol|categories|reserves|inflation|voice]', example: '/pol chart bitcoin 365d categories', summary: 'a chart over time' },
  { name: 'compare', usage: '/pol compare <a> <b> [<c> ...]', example: '/pol compare binance, kraken, okx', summary: 'up to 5 side by side (separate multi-word names with commas)' },
  { name: 'top', usage: '/pol top [exchanges|projects]', example: '/pol top projects', summary: 'top ratings (lowest PoL first)' },
  { name: 'search', usage: '/pol search <text>', example: '/pol search swap', summary: 'find projects and exchanges' },
  { name: 'trending', usage: '/pol trending', example: '/pol trending', summary: 'what people are looking up' },
  { name: 'index', usage: '/pol index', example: '/pol index', summary: 'index-level PoL for projects and exchanges' },
  { name: 'health', usage: '/pol health', example: '/pol health', summary: 'is the risk-data service up' },
  { name: 'help', usage: '/pol help', example: '/pol help', summary: 'this list' },
  { name: 'digest', usage: '/pol digest add <names...> [daily|weekdays|weekly [<day>]|"<cron>"] [at HH:MM] [tz <Area/City>]', example: '/pol digest add bitcoin, ethereum daily at 09:00 tz Europe/Berlin', summary: 'scheduled watchlist digests (list, remove, pause, resume, preview)' },
];

export const RANGES = ['7d', '30d', '90d', '180d', '365d', 'all'] as const;
export type Range = (typeof RANGES)[number];
export const RANGE_ALIASES: Record<string, Range> = { '1w': '7d', '1m': '30d', '3m': '90d', '6m': '180d', '1y': '365d', '12m': '365d', max: 'all' };

export const CHART_KINDS = ['pol', 'categories', 'reserves', 'inflation', 'voice'] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

export const MAX_COMPARE = 5;

/** Days for a range; `all` is the whole history (no `days` sent upstream). */
export function daysOf(range: Range): number | undefined {
  return range === 'all' ? undefined : Number(range.slice(0, -1));
}

/** What a person named: free text to resolve, or an explicit `kind:slug` (from a button they pressed). */
export interface Target {
  text: string;
  kind?: EntityKind;
  explicit?: { kind: EntityKind; slug: string };
}

export type Command =
  | { name: 'card'; target: Target }
  | { name: 'flags'; target: Target }
  | { name: 'chart'; target: Target; range: Range; chart: ChartKind | null }
  | { name: 'compare'; targets: Target[] }
  | { name: 'top'; kind: EntityKind }
  | { name: 'search'; text: string }
  | { name: 'trending' }
  | { name: 'index' }
  | { name: 'health' }
  | { name: 'help' }
  | { name: 'digest'; args: string };

export type CommandName = Command['name'];

export function helpFor(name: string): CommandHelp {
  return HELP.find((h) => h.name === name) ?? HELP[0]!;
}
