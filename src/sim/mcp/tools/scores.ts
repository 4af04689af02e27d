import type { SimEntity } from '../../data/model.js';
import { EXCHANGE_CATEGORIES, PROJECT_CATEGORIES } from '../../data/scales.js';
import type { EntityKind } from '../../data/store.js';
import { byCategory, byCategoryChart } from '../../views/entity.js';
import {
  daysInput,
  defineTool,
  entityLabel,
  envelope,
  findExchange,
  findProject,
  isResult,
  ok,
  slugInput,
  toolError,
  type ToolContext,
  type ToolDef,
} from './common.js';

/**
 * Category score tools read the REST `pol/by_category` body and the dynamic tools the REST
 * `pol/by_category/history/chart` body, so both interfaces report the same numbers.
 */

function find(ctx: ToolContext, kind: EntityKind, slug: string) {
  return kind === 'project' ? findProject(ctx, slug) : findExchange(ctx, slug);
}

type ScoreObject = ReturnType<typeof byCategory>['categories'][number]['score'];

const describeScore = (s: ScoreObject) => `${s.score} (${s.rating}, confidence ${s.confidence})`;

export function scoreTool(kind: EntityKind, category: string): ToolDef {
  const metric = `${category}_score`;
  return defineTool({
    name: `get_${kind}_${metric}`,
    title: `${cap(kind)} ${category} score`,
    description:
      `Current ${category} category quality score of a ${kind} (0 to 100, higher is better), with rating (AAA to D) and confidence. ` +
      'Not the overall Probability of Loss.' +
      (kind === 'exchange' ? ' Call only with a confirmed exchange slug.' : ' Resolve the slug first with resolve_project_slug.'),
    input: slugInput,
    run: ({ slug }, ctx) => {
      const e = find(ctx, kind, slug);
      if (isResult(e)) return e;
      const slice = byCategory(ctx.store, e).categories.find((c) => c.category === category);
      if (!slice) return toolError(`No ${category} score for ${kind} '${slug}'.`);
      return ok(
        `${entityLabel(e)} ${category} score: ${describeScore(slice.score)}. ` +
          'Category quality score, higher is better; not overall PoL.',
        { ...envelope(kind, metric, slug, e.slug, category), score: slice.score },
      );
    },
  });
}

export function dynamicTool(kind: EntityKind): ToolDef {
  const categories: readonly string[] = kind === 'project' ? PROJECT_CATEGORIES : EXCHANGE_CATEGORIES;
  const metric = 'categories_scores_dynamic';
  return defineTool({
    name: `get_${kind}_${metric}`,
    title: `${cap(kind)} category scores over time`,
    description:
      `Daily category quality scores of a ${kind} (${categories.join(', ')}), each 0 to 100 with higher better. ` +
      'Optional days (1 to 365) limits the history to the most recent days; omitted returns the whole history.' +
      (kind === 'exchange' ? ' Call only with a confirmed exchange slug.' : ' Resolve the slug first with resolve_project_slug.'),
    input: daysInput,
    run: ({ slug, days }, ctx) => {
      const e = find(ctx, kind, slug);
      if (isResult(e)) return e;
      const chart = byCategoryChart(ctx.store, e, days);
      return ok(summarizePoints(e, chart.points, categories), {
        ...envelope(kind, metric, slug, e.slug, null),
        categories: [...categories],
        days: chart.days,
        points: chart.points,
      });
    },
  });
}

function summarizePoints(e: SimEntity, points: Record<string, unknown>[], categories: readonly string[]): string {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return `${entityLabel(e)}: no category score points in the requested window.`;
  const date = (p: Record<string, unknown>) => new Date((p.timestamp as number) * 1000).toISOString().slice(0, 10);
  const latest = categories.map((c) => `${c} ${describeScore(last[c] as ScoreObject)}`).join('; ');
  return (
    `${entityLabel(e)}: ${points.length} daily category quality score points from ${date(first)} to ${date(last)} ` +
    `(higher is better). Latest: ${latest}.`
  );
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const projectScoreTools: ToolDef[] = [...PROJECT_CATEGORIES.map((c) => scoreTool('project', c)), dynamicTool('project')];
