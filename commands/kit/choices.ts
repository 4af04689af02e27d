import type { EntityKind, EntityRef } from '../../src/api/domain.js';
import { isValidSlug } from '../../src/api/rest/paths.js';
import { MAX_QUERY_LENGTH } from '../../src/resolve/normalize.js';
import type { CompletionContext } from './context.js';
import type { Choice, EntityListOption, EntityOption } from './spec.js';

/**
 * Suggestions as options' `complete` functions return them, best first. They carry no platform's
 * limits: each adapter cuts them to what it can show.
 */

/** A menu's worth of names. */
const NAMES = 25;
/** Asked for when narrowing to one kind, so that a list of exchanges does not crowd out every project. */
const NAMES_OF_ONE_KIND = 200;

export type Suggest = (prefix: string, limit: number) => EntityRef[];

/** Picks are explicit references, so choosing "Lido DAO" never resolves to another "Lido". */
const refValue = (ref: EntityRef) => `${ref.kind}:${ref.slug}`;
const refLabel = (ref: EntityRef) => `${ref.name}${ref.ticker ? ` (${ref.ticker})` : ''} · ${ref.kind}`;

/** Best matches first, each labelled project or exchange; `kind` narrows (flags are project-only). */
export function entityChoices(suggest: Suggest, typed: string, kind?: EntityKind): Choice[] {
  // A pick edited afterwards still reads "project:bitcoin"; its slug is what to match.
  const query = typed.replace(/^\s*(project|exchange):/i, '').slice(0, MAX_QUERY_LENGTH);
  const out: Choice[] = [];
  const seen = new Set<string>();
  for (const ref of suggest(query, kind ? NAMES_OF_ONE_KIND : NAMES)) {
    const value = refValue(ref);
    if ((kind && ref.kind !== kind) || seen.has(value)) continue;
    seen.add(value);
    out.push({ label: refLabel(ref), value });
  }
  return out;
}

/**
 * For a comma-separated list (digest names): completes the last name and keeps the earlier ones,
 * so each pick extends the list.
 */
export function listChoices(suggest: Suggest, typed: string): Choice[] {
  const { prefix, last } = listTail(typed);
  return entityChoices(suggest, last).map((c) => ({ label: `${prefix}${c.label}`, value: `${prefix}${c.value}` }));
}

/**
 * For a comma-separated list of names the operator configured (destinations outside chat):
 * completes the last name from those not given yet, keeping the earlier ones. Only configured
 * names are offered: nothing typed is offered back.
 */
export function namedListChoices(names: readonly string[], typed: string): Choice[] {
  const { head, prefix, last } = listTail(typed.toLowerCase());
  return textChoices(
    matching(
      names.filter((n) => !head.includes(n)),
      last,
    ).map((n) => `${prefix}${n}`),
  );
}

/** A comma-separated list as typed so far: the names before the last (and them written back, to extend), and the last. */
function listTail(typed: string): { head: string[]; prefix: string; last: string } {
  const parts = typed.split(',');
  const last = (parts.pop() ?? '').trim();
  const head = parts.map((p) => p.trim()).filter(Boolean);
  return { head, prefix: head.length ? `${head.join(', ')}, ` : '', last };
}

/** `values` starting with `q` first, then those holding it further on; every value for an empty `q`. Case aside. */
function matching(values: readonly string[], q: string): string[] {
  const starts = values.filter((v) => v.toLowerCase().startsWith(q));
  const contains = q ? values.filter((v) => !v.toLowerCase().startsWith(q) && v.toLowerCase().includes(q)) : [];
  return [...starts, ...contains];
}

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
  return isValidSlug(slug) ? [{ label: `Exchange with the slug “${slug}”`, value: `exchange:${slug}` }] : [];
}

/** Suggestions that are shown as they would be filled in. */
export const textChoices = (values: readonly string[]): Choice[] => values.map((value) => ({ label: value, value }));

let zones: string[] | undefined;

/** IANA time zones known to this runtime, matched anywhere in the name ("berlin" finds Europe/Berlin). */
export function timeZoneChoices(typed: string): Choice[] {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  return textChoices(matching(zones, typed.trim().toLowerCase().replace(/\s+/g, '_')));
}

/**
 * What an entity option suggests without a `complete` of its own: names from the lists at hand,
 * which are reloaded behind the answer for later keystrokes.
 */
export function completeEntities(o: EntityOption | EntityListOption, ctx: CompletionContext, typed: string): Choice[] {
  const kind = o.type === 'entity' ? o.kind : undefined;
  const suggest: Suggest = (prefix, limit) => ctx.suggest(prefix, limit);
  let choices: Choice[];
  if (o.type === 'entities' && o.discord === 'joined') choices = listChoices(suggest, typed);
  else {
    choices = entityChoices(suggest, typed, kind);
    // Without a list of exchanges, a typed slug is how an exchange is named: offer it as one.
    if (kind !== 'project' && !ctx.canList('exchange')) choices = [...slugChoice(typed), ...choices];
  }
  if (kind !== 'exchange') ctx.refreshList('project');
  if (kind !== 'project') ctx.refreshList('exchange');
  return choices;
}
