import type { EntityRef } from '../../src/api/domain.js';
import type { Fetched } from '../../src/api/source.js';
import type { TableReply } from '../../src/reply/model.js';
import { targetRef } from './target.js';

/** "2 rows could not be read and are not listed.", when a list skipped any. */
export function skippedRows(lists: Fetched<unknown>[]): string | undefined {
  const rows = lists.reduce((n, l) => n + (l.meta.unreadable?.rows ?? 0), 0);
  if (rows === 0) return undefined;
  return `${rows} ${rows === 1 ? 'row' : 'rows'} could not be read and ${rows === 1 ? 'is' : 'are'} not listed.`;
}

/** A list of entities, each one a pick that opens its card. */
export function entityTable(title: string, refs: EntityRef[], note: string | undefined): Omit<TableReply, 'footer'> {
  return {
    kind: 'table',
    title,
    ...(note ? { note } : {}),
    columns: [
      { key: 'name', label: 'Name' },
      { key: 'kind', label: 'Kind' },
      { key: 'slug', label: 'Slug' },
    ],
    rows: refs.map((r) => ({ name: `${r.name}${r.ticker ? ` (${r.ticker})` : ''}`, kind: r.kind, slug: r.slug })),
    actions: refs.map((r) => ({ label: r.name, description: r.kind, run: { command: 'card', args: { name: targetRef(r.kind, r.slug) } } })),
  };
}
