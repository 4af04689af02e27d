import type { EntityKind } from '../../src/api/domain.js';
import { settle, type Settled } from '../../src/api/settle.js';
import type { DataMethod, DataSource, Fetched } from '../../src/api/source.js';
import type { Section } from '../../src/reply/model.js';
import { partMissing } from './card.js';

/** One part of a card, fetched and settled: it fails on its own, never the card. */
export type Part = Settled<Fetched<unknown>>;

/** A part fetched when the configured source has an operation for it; undefined when it has none. */
export function ifSupported<T>(
  source: DataSource,
  kind: EntityKind,
  method: DataMethod,
  fetch: () => Promise<Fetched<T>>,
): Promise<Settled<Fetched<T>> | undefined> {
  return source.supports(method, kind) ? settle(fetch()) : Promise.resolve(undefined);
}

/** A part the configured source has no operation for says so; one that failed says why. */
export function missingPart(title: string, part: Part | undefined): Section {
  return { title, items: [], empty: part ? (part.ok ? 'none reported' : partMissing(part.error)) : 'needs the REST service' };
}
