import type { EntityKind } from '../api/domain.js';

/**
 * Which links name a project or an exchange, as data: a path segment that is exactly a slug, right
 * after one of these. `coins` and `currencies` (the market sites' word) name either kind, which the
 * slug must then settle; `projects` and `exchanges` name their kind. Nothing else in a URL is read:
 * a query string, a fragment or a name in other words never maps a link to an entity.
 */
export const LINK_RULES: readonly { after: string; kind?: EntityKind }[] = [
  { after: 'coins' },
  { after: 'currencies' },
  { after: 'projects', kind: 'project' },
  { after: 'exchanges', kind: 'exchange' },
];

/** A slug as the upstream writes them: lower-case letters, digits and single dashes. */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface LinkTarget {
  slug: string;
  kind?: EntityKind;
}

/** The slug (and kind, where the path says it) a URL names by the rules; null for anything else. */
export function linkTarget(url: string): LinkTarget | null {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  const segments = parsed.pathname.split('/').filter(Boolean);
  const found: LinkTarget[] = [];
  for (const rule of LINK_RULES) {
    segments.forEach((segment, at) => {
      const slug = segments[at + 1];
      if (segment === rule.after && slug !== undefined && SLUG.test(slug)) found.push({ slug, ...(rule.kind ? { kind: rule.kind } : {}) });
    });
  }
  // A path naming two entities (…/exchanges/binance/coins/bitcoin) names no single one.
  return found.length === 1 ? found[0]! : null;
}

/** Whether a URL's host is one of `domains` or under one (`www.coingecko.com` under `coingecko.com`). */
export function inDomains(url: string, domains: readonly string[]): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}
