import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { SimExchange, SimProject } from '../../data/model.js';
import type { EntityKind, SimStore } from '../../data/store.js';
import type { Faults } from '../../faults.js';

export interface ToolContext {
  store: SimStore;
  faults: Faults;
}

/** A tool as registered on each server instance; `run` receives arguments already validated by the SDK. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** Built once per process, so registering a tool on a new server does not rebuild its schema. */
  input: z.ZodObject;
  run: (args: unknown, ctx: ToolContext) => CallToolResult;
}

export function defineTool<S extends z.ZodRawShape>(def: {
  name: string;
  title: string;
  description: string;
  input: S;
  run: (args: z.infer<z.ZodObject<S>>, ctx: ToolContext) => CallToolResult;
}): ToolDef {
  return { ...def, input: z.object(def.input), run: def.run as ToolDef['run'] };
}

export const SIMULATED = '(simulated data)';

export const slugInput = {
  slug: z.string().min(1).max(200).describe('Confirmed slug of the entity'),
};

export const daysInput = {
  ...slugInput,
  days: z.number().int().min(1).max(365).optional().describe('Number of most recent days (1 to 365); omit for the whole history'),
};

/** Every structured body says it is simulated, like every REST body does. */
export function ok(text: string, structured: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: `${text} ${SIMULATED}` }],
    structuredContent: { ...structured, simulated: true },
  };
}

export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text: `${text} ${SIMULATED}` }], isError: true };
}

/** What the 'shape' fault answers: valid JSON that matches none of the documented fields. */
export function wrongShape(): CallToolResult {
  return {
    content: [{ type: 'text', text: `Unexpected response ${SIMULATED}` }],
    structuredContent: { status: 'ok', unexpected: true, simulated: true },
  };
}

/**
 * Slugs are matched exactly, as the REST routes match them: the simulator never guesses, so a
 * client that passes a display name instead of a confirmed slug fails here as it would upstream.
 */
export function findProject(ctx: ToolContext, slug: string): SimProject | CallToolResult {
  return ctx.store.project(slug) ?? toolError(`No project with slug '${slug}'. Use resolve_project_slug to find the slug.`);
}

export function findExchange(ctx: ToolContext, slug: string): SimExchange | CallToolResult {
  return (
    ctx.store.exchange(slug) ??
    toolError(`No exchange with slug '${slug}'. No tool resolves exchange slugs; call exchange tools only with a confirmed exchange slug.`)
  );
}

export function isResult(value: SimProject | SimExchange | CallToolResult): value is CallToolResult {
  return 'content' in value;
}

export const yesNo = (b: boolean) => (b ? 'yes' : 'no');

export function describeFindings(findings: string[] | 'none_identified'): string {
  return findings === 'none_identified' ? 'none identified' : findings.join('; ');
}

export function entityLabel(e: { name: string; slug: string }): string {
  return `${e.name} (${e.slug})`;
}

export const SCORE_TYPE = 'category_quality';
export const SCORE_DIRECTION = 'higher_is_better';

export function interpretationHint(category: string | null): string {
  const overall = 'the overall Probability of Loss (PoL), where lower is safer';
  return category
    ? `This is the ${category} category quality score (0 to 100): higher is better. It is not ${overall}.`
    : `These are category quality scores (0 to 100): higher is better. They are not ${overall}.`;
}

export function envelope(kind: EntityKind, metric: string, requestedSlug: string, resolvedSlug: string, category: string | null) {
  return {
    status: 'ok',
    entityType: kind,
    metric,
    requestedSlug,
    resolvedSlug,
    scoreType: SCORE_TYPE,
    scoreDirection: SCORE_DIRECTION,
    interpretationHint: interpretationHint(category),
  };
}
