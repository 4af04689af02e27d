import { isUnreadable, type EntityRef } from '../src/api/domain.js';
import { settle } from '../src/api/settle.js';
import { linkTarget } from '../src/links/rules.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import type { CardReply, ErrorReply, Field, Reply } from '../src/reply/model.js';
import { categoryLabel, headline } from './kit/card.js';
import type { HandlerContext } from './kit/spec.js';
import { defineCommand, str } from './kit/spec.js';
import { targetRef } from './kit/target.js';

const CHART_DAYS = 31;

/**
 * The entity a link names, in short: what a pasted link unfurls to in Slack, and what anyone can
 * ask of a link anywhere. A link maps to an entity only through the rules of src/links/rules.ts and
 * an exact slug; one that maps to nothing, or to more than one entity, is said so and not guessed.
 */
export default defineCommand({
  name: 'link',
  order: 20,
  words: ['link'],
  summary: 'What a link to a project or an exchange shows in short: PoL and rating, the weakest category, red flags',
  examples: ['link https://www.coingecko.com/en/coins/pepe', 'link https://example.com/exchanges/kraken'],
  options: [
    {
      type: 'text',
      name: 'url',
      description: 'A link whose path names a project or exchange by its slug (…/coins/pepe, …/exchanges/kraken)',
      required: true,
      maxLength: 2000,
      missing: 'Which link? Paste it after link.',
    },
  ],
  handler: async (ctx, args): Promise<Reply> => {
    const url = str(args, 'url');
    const entity = await linkedEntity(ctx, url);
    if (!entity) return notNamed();
    return compactCard(ctx, entity);
  },
});

function notNamed(): ErrorReply {
  return {
    kind: 'error',
    message: 'That link names no single project or exchange polbot knows.',
    hint: 'A link maps to one when its path has a slug after /coins/, /currencies/, /projects/ or /exchanges/ (…/exchanges/kraken).',
  };
}

/** The one entity whose slug is exactly the link's (of the kind the link says, if it says one); null for none or several. */
export async function linkedEntity(ctx: HandlerContext, url: string): Promise<EntityRef | null> {
  const target = linkTarget(url);
  if (!target) return null;
  const resolution = await ctx.resolver.resolve(target.slug, target.kind).catch(() => null);
  const candidates =
    resolution?.status === 'resolved' ? [resolution.entity] : resolution?.status === 'ambiguous' ? resolution.candidates : [];
  const exact = candidates.filter((e) => e.slug === target.slug && (!target.kind || e.kind === target.kind));
  return exact.length === 1 ? exact[0]! : null;
}

/** PoL with rating and direction, the weakest category, the red flags counted; one parallel round. */
async function compactCard(ctx: HandlerContext, entity: EntityRef): Promise<CardReply> {
  const { source } = ctx;
  const [pol, chart, cats, flags] = await Promise.all([
    settle(source.polCurrent(entity.kind, entity.slug)),
    settle(source.polChart(entity.kind, entity.slug, CHART_DAYS)),
    settle(source.byCategory(entity.kind, entity.slug)),
    entity.kind === 'project' ? settle(source.redFlags(entity.slug)) : Promise.resolve(null),
  ]);
  if (!pol.ok && (pol.error.kind === 'not_found' || pol.error.kind === 'unauthorized')) throw pol.error;
  const fields: Field[] = [];
  if (cats.ok) {
    const scored = cats.value.data.categories.flatMap((c) =>
      isUnreadable(c.score.score) ? [] : [{ category: c.category, score: c.score.score as number }],
    );
    const weakest = scored.reduce<{ category: string; score: number } | undefined>((w, c) => (!w || c.score < w.score ? c : w), undefined);
    if (weakest)
      fields.push({
        label: 'Weakest category',
        value: `${categoryLabel(weakest.category)} ${fmt.score(weakest.score)}`,
        detail: 'higher is better',
      });
  }
  if (flags) {
    const count = flags.ok
      ? [flags.value.data.marketMaker, flags.value.data.investor].reduce((n, f) => n + (isUnreadable(f) ? 0 : (f as string[]).length), 0)
      : null;
    fields.push({
      label: 'Red flags',
      value: count === null ? 'unavailable' : count === 0 ? 'none identified' : String(count),
      detail: 'lower is safer',
    });
  }
  const parts = [pol, chart, cats, ...(flags ? [flags] : [])].flatMap((s) => (s.ok ? [s.value] : []));
  return {
    kind: 'card',
    entity,
    title: `${entity.name}${entity.ticker ? ` (${entity.ticker})` : ''}`,
    subtitle: entity.kind === 'project' ? 'Project, in short' : 'Exchange, in short',
    headline: headline(pol, chart),
    sections: fields.length ? [{ title: 'In short', fields }] : [],
    footer: footerOf(parts, ctx.now()),
    actions: [{ label: 'Full card', run: { command: 'card', args: { name: targetRef(entity.kind, entity.slug) } } }],
  };
}
