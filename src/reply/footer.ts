import type { SourceName } from '../api/domain.js';
import type { Fetched, Meta } from '../api/source.js';
import * as fmt from './format.js';
import type { Footer } from './model.js';

/**
 * What a footer is drawn from, of one answer of the upstream: enough to say it again later (an
 * alert message redrawn hours on says where and when its data came from, not where it is now).
 */
export interface Provenance {
  source: SourceName;
  fetchedAt: number;
  simulated: boolean;
  stale?: { ageMs: number };
}

/** The part of an answer's metadata a footer shows; the reason it went stale stays out of storage. */
export function provenanceOf(meta: Meta): Provenance {
  return {
    source: meta.source,
    fetchedAt: meta.fetchedAt,
    simulated: meta.simulated,
    ...(meta.stale ? { stale: { ageMs: meta.stale.ageMs } } : {}),
  };
}

/** One footer for everything a reply was built from: oldest as-of, every source, any staleness. */
export function footerOf(parts: readonly (Fetched<unknown> | Provenance | undefined)[], now: number): Footer {
  const metas = parts.filter((p): p is Fetched<unknown> | Provenance => p !== undefined).map((p) => ('meta' in p ? p.meta : p));
  const sources = [...new Set(metas.map((m) => m.source))].sort() as SourceName[];
  const stale = metas.filter((m) => m.stale).map((m) => m.stale!.ageMs);
  return {
    asOf: metas.length ? Math.min(...metas.map((m) => m.fetchedAt)) : now,
    sources,
    ...(stale.length ? { stale: { ageMs: Math.max(...stale) } } : {}),
    simulated: metas.some((m) => m.simulated),
  };
}

/** What a footer says, in the same words on every surface; each adapter styles and joins them. */
export interface FooterWords {
  asOf: string;
  source: string;
  stale?: string;
  simulated?: string;
  notes: string[];
}

export function footerWords(f: Footer): FooterWords {
  return {
    asOf: `as of ${fmt.utc(f.asOf)}`,
    source: `source ${f.sources.map((s) => s.toUpperCase()).join('+') || '—'}`,
    ...(f.stale ? { stale: `stale (${fmt.age(f.stale.ageMs)} old)` } : {}),
    ...(f.simulated ? { simulated: 'SIMULATED DATA' } : {}),
    notes: f.notes ?? [],
  };
}
