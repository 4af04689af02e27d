import type { SimStore } from '../../data/store.js';
import { fold } from '../../views/listing.js';

export interface SlugMatch {
  slug: string;
  name: string;
  ticker: string;
}

export type Resolution =
  | { status: 'resolved'; resolvedSlug: string; resolvedName: string; matches: SlugMatch[] }
  | { status: 'ambiguous'; matches: SlugMatch[] }
  | { status: 'not_found'; matches: SlugMatch[] };

/** Enough candidates to let a person pick, few enough to read in a chat message. */
export const MAX_MATCHES = 10;

/** Case, diacritics, punctuation and spacing never decide a match: "Crème-Finance" is "creme finance". */
export function normalizeQuery(text: string): string {
  return fold(text)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const compact = (normalized: string) => normalized.replace(/ /g, '');

/** Closer matches first; the upstream's ranking is not published. */
const Rank = { Exact: 0, Prefix: 1, Substring: 2, Fuzzy: 3 } as const;

function levenshtein(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      row.push(v);
      best = Math.min(best, v);
    }
    if (best > limit) return limit + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/** Typos are tolerated only on longer queries, where one edit cannot turn a word into another name. */
function typoBudget(length: number): number {
  if (length >= 9) return 2;
  if (length >= 5) return 1;
  return 0;
}

function rankFor(q: string, cq: string, project: SlugMatch): number {
  const names = [normalizeQuery(project.slug), normalizeQuery(project.name)];
  const ticker = normalizeQuery(project.ticker);
  let rank = Infinity;
  for (const key of [...names, ticker]) {
    if (key === q || compact(key) === cq) return Rank.Exact;
  }
  // Tickers are short: only a prefix of one is a meaningful partial match ("sh" is in too many words).
  if (cq.length >= 2 && compact(ticker).startsWith(cq)) rank = Rank.Prefix;
  for (const key of names) {
    const ck = compact(key);
    if (key.startsWith(q) || ck.startsWith(cq)) rank = Math.min(rank, Rank.Prefix);
    else if (key.includes(q) || ck.includes(cq)) rank = Math.min(rank, Rank.Substring);
    else {
      const budget = typoBudget(cq.length);
      if (budget > 0 && levenshtein(cq, ck, budget) <= budget) rank = Math.min(rank, Rank.Fuzzy);
    }
  }
  return rank;
}

/**
 * Exactly one exact match (slug, name or ticker) resolves. Anything else is for a person to
 * confirm: a single partial match is still `ambiguous`, never silently picked.
 */
export function resolveProjectSlug(store: SimStore, query: string): Resolution {
  const q = normalizeQuery(query);
  if (!q) return { status: 'not_found', matches: [] };
  const cq = compact(q);
  const scored: { match: SlugMatch; rank: number }[] = [];
  for (const p of store.data.projects) {
    const match = { slug: p.slug, name: p.name, ticker: p.ticker };
    const rank = rankFor(q, cq, match);
    if (rank !== Infinity) scored.push({ match, rank });
  }
  scored.sort((a, b) => a.rank - b.rank || a.match.name.localeCompare(b.match.name));
  const exact = scored.filter((s) => s.rank === Rank.Exact).map((s) => s.match);
  const only = exact.length === 1 ? exact[0] : undefined;
  if (only) return { status: 'resolved', resolvedSlug: only.slug, resolvedName: only.name, matches: [only] };
  if (exact.length > 1) return { status: 'ambiguous', matches: exact.slice(0, MAX_MATCHES) };
  if (scored.length > 0) return { status: 'ambiguous', matches: scored.slice(0, MAX_MATCHES).map((s) => s.match) };
  return { status: 'not_found', matches: [] };
}
