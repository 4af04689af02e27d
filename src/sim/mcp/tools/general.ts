import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { health } from '../../views/entity.js';
import { list } from '../../views/listing.js';
import { defineTool, ok, SIMULATED, toolError, type ToolDef } from './common.js';
import { resolveProjectSlug } from './resolve.js';

const checkHealth = defineTool({
  name: 'check_health',
  title: 'Check upstream health',
  description: 'Checks that the risk-intelligence API is reachable and healthy.',
  input: {},
  run: (_args, ctx): CallToolResult => {
    // Same body and failure switch as REST `/projects_data/v1/health`.
    const body = health('projects_data', ctx.faults.current.healthFailing);
    if (body.status !== 'ok') {
      const failing = body.checks.filter((c) => c.status !== 'ok').map((c) => c.name);
      return toolError(`The API is unhealthy: failing checks: ${failing.join(', ')}.`);
    }
    return { content: [{ type: 'text', text: `The API is healthy: all checks pass. ${SIMULATED}` }] };
  },
});

const resolveSlug = defineTool({
  name: 'resolve_project_slug',
  title: 'Resolve a project slug',
  description:
    'Finds the slug of a project from its name, ticker or slug. Returns status resolved (one exact match), ' +
    'ambiguous (several candidates, or a single partial match to confirm) or not_found. On ambiguous or ' +
    'not_found, do not guess a slug and do not answer for a different project.',
  input: { query: z.string().max(200).describe('Project name, ticker or slug as the person wrote it') },
  run: ({ query }, ctx) => {
    const r = resolveProjectSlug(ctx.store, query);
    const listed = r.matches.map((m) => `${m.name} (${m.slug}, ${m.ticker})`).join(', ');
    const text =
      r.status === 'resolved'
        ? `'${query}' resolved to ${r.resolvedName} (slug ${r.resolvedSlug}).`
        : r.status === 'ambiguous'
          ? `'${query}' is ambiguous; candidates: ${listed}. Confirm which project is meant; do not guess.`
          : `No project matches '${query}'. Do not answer for a different project.`;
    return ok(text, { entityType: 'project', query, ...r });
  },
});

const projectsList = defineTool({
  name: 'get_projects_list',
  title: 'List projects',
  description: 'Lists every rated project with its name and slug.',
  input: {},
  run: (_args, ctx) => {
    const { items, total } = list(ctx.store, 'project');
    const projects = items.map((p) => ({ name: p.name, slug: p.slug }));
    return ok(`${total} rated projects.`, { status: 'ok', projects, totalProjects: total });
  },
});

export const generalTools: ToolDef[] = [checkHealth, resolveSlug, projectsList];
