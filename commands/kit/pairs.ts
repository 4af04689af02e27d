/**
 * `name=value` pairs as people type them after a command (`categories=DeFi chains="BNB Chain"
 * page=2`), shared by every listing that takes filters (ratings, listed assets).
 */

/** Case, spaces, hyphens and underscores aside: `bnb-chain` is `BNB Chain`, `market-cap` is `market_cap`. */
export const pairKey = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');

/** A value as a pair takes it back: one with a space is quoted (`chains="BNB Chain"`). */
export const pairValue = (v: string): string => (/\s/.test(v) ? `"${v}"` : v);

/** Pairs from text: `a=b c=d,e` and `a = b` alike; a quoted value may hold spaces (`chains="BNB Chain"`). */
export function splitPairs(text: string): { pairs: [string, string][]; stray?: string } {
  const pairs: [string, string][] = [];
  const re = /([^\s=]+)\s*=\s*(?:"([^"]*)"|“([^”]*)”|(\S+))/g;
  let rest = text;
  for (const m of text.matchAll(re)) {
    pairs.push([m[1]!, (m[2] ?? m[3] ?? m[4] ?? '').trim()]);
    rest = rest.replace(m[0], ' ');
  }
  const stray = rest.trim();
  return stray ? { pairs, stray } : { pairs };
}
