import type { EntityRef } from '../src/api/domain.js';
import { settle } from '../src/api/settle.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import type { TableReply } from '../src/reply/model.js';
import { categoryLabel, partMissing } from './kit/card.js';
import { resolveTarget } from './kit/resolve-target.js';
import { defineCommand, list } from './kit/spec.js';
import { parseTarget, targetRef } from './kit/target.js';

const MAX_COMPARE = 5;

/** Entities side by side, one column each, in the same units; a row per measure. */
export default defineCommand({
  name: 'compare',
  order: 15,
  words: ['compare'],
  summary: `Up to ${MAX_COMPARE} projects or exchanges side by side`,
  examples: ['compare binance, kraken, okx'],
  options: [
    {
      type: 'entities',
      name: 'names',
      description: 'Projects or exchanges',
      required: true,
      min: 2,
      max: MAX_COMPARE,
      discord: 'slots',
      missing: 'Name at least two projects or exchanges to compare.',
    },
  ],
  async handler(ctx, args) {
    const names = list(args, 'names');
    if (names.length < 2) return { kind: 'error', message: 'Name at least two projects or exchanges to compare.' };
    // Resolve all names at once; the first one that needs a choice is asked about, the others kept as typed.
    const results = await Promise.all(
      names.map((n, i) =>
        resolveTarget(ctx, parseTarget(n), (ref) => ({ command: 'compare', args: { names: names.map((m, j) => (j === i ? ref : m)) } })),
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
          settle(ctx.source.polCurrent(e.kind, e.slug)),
          settle(ctx.source.byCategory(e.kind, e.slug)),
          settle(ctx.source.record(e.kind, e.slug)),
        ]);
        return { e, pol, cats, rec };
      }),
    );
    // A column whose entity is gone, or a key refused, is not a comparison; anything else shows what could be read.
    const fatal = rows.find((r) => !r.pol.ok && ['not_found', 'unauthorized'].includes(r.pol.error.kind));
    if (fatal && !fatal.pol.ok) throw fatal.pol.error;
    const firstFailure = rows.find((r) => !r.pol.ok);
    if (firstFailure && !firstFailure.pol.ok && rows.every((r) => !r.pol.ok && !r.cats.ok && !r.rec.ok)) throw firstFailure.pol.error;

    const columns = [
      { key: 'measure', label: 'Measure' },
      ...rows.map((r, i) => ({ key: `e${i}`, label: r.rec.ok ? r.rec.value.data.name : r.e.name, align: 'right' as const })),
    ];
    const line = (measure: string, value: (r: (typeof rows)[number]) => string) =>
      Object.fromEntries([['measure', measure], ...rows.map((r, i) => [`e${i}`, value(r)])]) as Record<string, string>;

    const categories = [...new Set(rows.flatMap((r) => (r.cats.ok ? r.cats.value.data.categories.map((c) => c.category) : [])))];
    const table: TableReply = {
      kind: 'table',
      title: `Compare: ${columns
        .slice(1)
        .map((c) => c.label)
        .join(' · ')}`,
      note: 'PoL: lower is safer. Category quality scores: higher is better (— where a category does not apply).',
      columns,
      rows: [
        line('Kind', (r) => r.e.kind),
        line('PoL (lower is safer)', (r) => (r.pol.ok ? fmt.pol(r.pol.value.data.pol) : partMissing(r.pol.error))),
        line('Rating', (r) => (r.pol.ok ? fmt.rating(r.pol.value.data.rating) : '—')),
        ...categories.map((c) =>
          line(`${categoryLabel(c)} (higher is better)`, (r) => {
            if (!r.cats.ok) return partMissing(r.cats.error);
            const found = r.cats.value.data.categories.find((x) => x.category === c);
            return found ? `${fmt.score(found.score.score)} ${fmt.rating(found.score.rating)}` : '—';
          }),
        ),
      ],
      footer: footerOf(
        rows.flatMap((r) => [...(r.pol.ok ? [r.pol.value] : []), ...(r.cats.ok ? [r.cats.value] : []), ...(r.rec.ok ? [r.rec.value] : [])]),
        ctx.now(),
      ),
      actions: rows.map((r) => ({
        label: r.rec.ok ? r.rec.value.data.name : r.e.name,
        run: { command: 'card', args: { name: targetRef(r.e.kind, r.e.slug) } },
      })),
    };
    return table;
  },
});
