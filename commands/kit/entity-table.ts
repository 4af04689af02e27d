import type { EntityRef } from '../../src/api/domain.js';
import type { TableReply } from '../../src/reply/model.js';
import { targetRef } from './target.js';

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
