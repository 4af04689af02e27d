import { isUnreadable } from '../../src/api/domain.js';
import { UpstreamError } from '../../src/api/errors.js';
import { plainInline } from '../../src/reply/inline.js';
import { resolveTarget } from '../kit/resolve-target.js';
import { parseTarget } from '../kit/target.js';
import type { CommandContext } from '../kit/context.js';
import type { Registry } from './registry.js';

/**
 * One entity's risk score as data, for a caller that needs values rather than a message (a Slack
 * workflow step's outputs): the name resolved as a person's would be, refusal-first. A name that
 * could be several, or none, is answered with the words a person gets, its candidates named.
 */
export type RiskScore =
  | { ok: true; pol: number; rating: string; summary: string; slug: string; kind: 'project' | 'exchange'; name: string }
  | { ok: false; message: string };

export async function riskScore(ctx: CommandContext, registry: Registry, name: string): Promise<RiskScore> {
  const typed = name.trim();
  if (!typed) return { ok: false, message: 'Which project or exchange? Give a name, such as binance.' };
  const resolved = await resolveTarget(ctx, parseTarget(typed), (ref) => ({ command: 'card', args: { name: ref } }));
  if (!resolved.ok) {
    const { prompt, options } = resolved.reply;
    const said = plainInline(prompt, (r) => registry.text(r)).trim();
    const candidates = options.map((o) => o.description ?? o.label).join('; ');
    return { ok: false, message: candidates ? `${said} ${candidates}.`.replace(/\.\./g, '.') : said };
  }
  const { entity } = resolved;
  try {
    const { data } = await ctx.source.polCurrent(entity.kind, entity.slug);
    if (isUnreadable(data.pol) || isUnreadable(data.rating))
      return { ok: false, message: `The risk service sent an unreadable PoL for ${entity.name}; try again later.` };
    const record = await ctx.source.record(entity.kind, entity.slug).catch(() => null);
    const shown = record?.data.name ?? entity.name;
    const percent = `${(data.pol * 100).toFixed(data.pol < 0.1 ? 2 : 1)}%`;
    return {
      ok: true,
      pol: data.pol,
      rating: data.rating,
      summary: `${shown}: Probability of Loss ${percent}, rated ${data.rating} (lower is safer).`,
      slug: entity.slug,
      kind: entity.kind,
      name: shown,
    };
  } catch (err) {
    if (err instanceof UpstreamError) {
      if (err.kind === 'not_found') return { ok: false, message: `There is no ${entity.kind} ${entity.slug}.` };
      if (err.kind === 'not_available')
        return { ok: false, message: 'The PoL needs the REST service, which this polbot is not configured with.' };
      return { ok: false, message: 'The risk service is not answering right now; try again in a minute.' };
    }
    throw err;
  }
}
