import type { EntityKind, EntityRef } from '../../src/api/domain.js';
import { clip, plainText } from './escape.js';

/**
 * Autocomplete answers, built from whatever entity lists are cached. Pure: the caller passes
 * the lookup, so nothing here can wait on the upstream (Discord gives autocomplete 3 seconds).
 */

export interface Choice {
  name: string;
  value: string;
}

/** Discord's limits for an autocomplete answer. */
export const MAX_CHOICES = 25;
const MAX_CHOICE_TEXT = 100;

export type Suggest = (prefix: string, limit: number) => EntityRef[];

export function choiceLabel(ref: EntityRef): string {
  return clip(plainText(`${ref.name}${ref.ticker ? ` (${ref.ticker})` : ''} · ${ref.kind}`), MAX_CHOICE_TEXT);
}

/** Picks are explicit references, so choosing "Lido DAO" never resolves to another "Lido". */
export function refValue(ref: EntityRef): string {
  return `${ref.kind}:${ref.slug}`;
}

/** Best matches first, each labelled project or exchange; `kind` narrows (flags are project-only). */
export function entityChoices(suggest: Suggest, typed: string, kind?: EntityKind): Choice[] {
  // Ask for more when filtering by kind so a list of exchanges does not crowd out every project.
  // A pick edited afterwards still reads "project:bitcoin"; its slug is what to match.
  const query = typed.replace(/^\s*(project|exchange):/i, '').slice(0, MAX_CHOICE_TEXT);
  const refs = suggest(query, kind ? 200 : MAX_CHOICES);
  const out: Choice[] = [];
  const seen = new Set<string>();
  for (const ref of refs) {
    if (kind && ref.kind !== kind) continue;
    const value = refValue(ref);
    if (value.length > MAX_CHOICE_TEXT || seen.has(value)) continue;
    seen.add(value);
    out.push({ name: choiceLabel(ref), value });
    if (out.length === MAX_CHOICES) break;
  }
  return out;
}

/**
 * For a comma-separated list (digest names): completes the last name and keeps the earlier ones,
 * so each pick extends the list.
 */
export function listChoices(suggest: Suggest, typed: string): Choice[] {
  const parts = typed.split(',');
  const last = parts.pop() ?? '';
  const head = parts.map((p) => p.trim()).filter(Boolean);
  const prefix = head.length ? `${head.join(', ')}, ` : '';
  const out: Choice[] = [];
  for (const c of entityChoices(suggest, last.trim())) {
    const value = `${prefix}${c.value}`;
    if (value.length > MAX_CHOICE_TEXT) continue;
    const name = prefix ? clip(plainText(`${prefix}${c.name}`), MAX_CHOICE_TEXT) : c.name;
    out.push({ name, value });
  }
  return out;
}

/** Completions the core made, as Discord choices: each within Discord's length, at most 25. */
export function textChoices(completions: readonly string[]): Choice[] {
  return completions
    .filter((c) => c.length <= MAX_CHOICE_TEXT)
    .slice(0, MAX_CHOICES)
    .map((c) => ({ name: clip(plainText(c), MAX_CHOICE_TEXT), value: c }));
}

let zones: string[] | undefined;

/** IANA time zones known to this runtime, matched anywhere in the name ("berlin" finds Europe/Berlin). */
export function timeZoneChoices(typed: string): Choice[] {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  const q = typed.trim().toLowerCase().replace(/\s+/g, '_');
  const starts = zones.filter((z) => z.toLowerCase().startsWith(q));
  const contains = q ? zones.filter((z) => !z.toLowerCase().startsWith(q) && z.toLowerCase().includes(q)) : [];
  return [...starts, ...contains].slice(0, MAX_CHOICES).map((z) => ({ name: z, value: z }));
}

const SLUG = /^[a-z0-9][a-z0-9_-]{0,99}$/;

/**
 * Where no list of exchanges exists (the tool server alone), an exchange is named by its slug.
 * What the person typed is offered back as that slug, labelled as such: a confirmation of their
 * own words, never a guess at another exchange.
 */
export function slugChoice(typed: string): Choice[] {
  const slug = typed
    .trim()
    .toLowerCase()
    .replace(/^exchange:/, '')
    .replace(/\s+/g, '-');
  if (!SLUG.test(slug)) return [];
  return [{ name: clip(plainText(`Exchange with the slug “${slug}”`), MAX_CHOICE_TEXT), value: `exchange:${slug}` }];
}
