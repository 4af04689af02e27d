import type { EntityRef } from '../src/api/domain.js';
import * as fmt from '../src/reply/format.js';
import type { Reply, TableReply } from '../src/reply/model.js';
import { categoryLabel } from './card.js';
import type { CommandContext } from './context.js';
import { footerOf } from './footer.js';
import type { Target } from './grammar.js';
import { parseTarget, targetRef } from './parse.js';
import { resolveTarget } from './resolve-target.js';
import { settle } from './settle.js';

/** Entities side by side, one column each, in the same units; a row per measure. */
export async function compareCommand(ctx: CommandContext, targets: Target[]): Promise<Reply> {
  const refs = targets.map((t) => t.text);
  // Resolve all names at once; the first one that needs a choice is asked about, the others kept as typed.
  const results = await Promise.all(
    targets.map((t, i) =>
      resolveTarget(ctx, t, (ref) => `compare ${refs.map((r, j) => (j === i ? ref : quote(r))).join(', ')}`),
    ),
  );
  const pending = results.find((r) => !r.ok);
  if (pending && !pending.ok) return pending.reply;
  const entities = results.map((r) => (r as { ok: true; entity: EntityRef }).entity);
  const unique = entities.filter((e, i) => entities.findIndex((o) => o.kind === e.kind && o.slug === e.slug) === i);
  if (unique.length < 2) return { kind: 'error', message: 'Those names are all the same entity; name at least two different ones.' };

  const rows = await Promise.all(
    unique.map(async (e) => {
      const [pol, cats, rec] = await Promise.all([
        ctx.source.polCurrent(e.kind, e.slug),
        settle(ctx.source.byCategory(e.kind, e.slug)),
        settle(ctx.source.record(e.kind, e.slug)),
      ]);
      return { e, pol, cats, rec };
    }),
  );

  const columns = [{ key: 'measure', label: 'Measure' }, ...rows.map((r, i) => ({ key: `e${i}`, label: r.rec.ok ? r.rec.value.data.name : r.e.name, align: 'right' as const }))];
  const line = (measure: string, value: (r: (typeof rows)[number]) => string) =>
    Object.fromEntries([['measure', measure], ...rows.map((r, i) => [`e${i}`, value(r)])]) as Record<string, string>;

  const categories = [...new Set(rows.flatMap((r) => (r.cats.ok ? r.cats.value.data.categories.map((c) => c.category) : [])))];
  const table: TableReply = {
    kind: 'table',
    title: `Compare: ${columns.slice(1).map((c) => c.label).join(' · ')}`,
    note: 'PoL: lower is safer. Category quality scores: higher is better (— where a category does not apply).',
    columns,
    rows: [
      line('Kind', (r) => r.e.kind),
      line('PoL (lower is safer)', (r) => fmt.pol(r.pol.data.pol)),
      line('Rating', (r) => r.pol.data.rating),
      ...categories.map((c) =>
        line(`${categoryLabel(c)} (higher is better)`, (r) => {
          if (!r.cats.ok) return 'unavailable';
          const found = r.cats.value.data.categories.find((x) => x.category === c);
          return found ? `${fmt.score(found.score.score)} ${found.score.rating}` : '—';
        }),
      ),
    ],
    footer: footerOf(rows.flatMap((r) => [r.pol, ...(r.cats.ok ? [r.cats.value] : []), ...(r.rec.ok ? [r.rec.value] : [])]), ctx.now()),
    actions: rows.map((r) => ({ label: r.rec.ok ? r.rec.value.data.name : r.e.name, command: targetRef(r.e.kind, r.e.slug) })),
  };
  return table;
}

function quote(name: string): string {
  // Names from the person go back into a command: keep explicit refs as they are.
  return parseTarget(name).explicit ? name : name.replace(/,/g, ' ');
}
