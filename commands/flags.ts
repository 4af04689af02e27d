import { isUnreadable } from '../src/api/domain.js';
import { settle } from '../src/api/settle.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import { inline, ref } from '../src/reply/inline.js';
import type { Reply, Section } from '../src/reply/model.js';
import { socialFields } from '../src/reply/social.js';
import { flagsSection, partMissing } from './kit/card.js';
import { resolveTarget } from './kit/resolve-target.js';
import { defineCommand, str, type HandlerContext } from './kit/spec.js';
import { parseTarget } from './kit/target.js';

const TIERS: Record<number, string> = { 1: 'tier 1 (strictest)', 2: 'tier 2', 3: 'tier 3', 4: 'tier 4 (least strict)' };

/**
 * A name that is no project but exactly one exchange gets told so, with the exchange's card to
 * ask for instead: flags are published for projects only, and another project is no answer.
 */
async function exchangeInstead(ctx: HandlerContext, text: string): Promise<Reply | undefined> {
  if (!ctx.source.supports('list', 'exchange')) return undefined;
  const r = await ctx.resolver.resolve(text, 'exchange').catch(() => undefined);
  if (r?.status !== 'resolved') return undefined;
  const e = r.entity;
  return {
    kind: 'error',
    message: `${e.name} is an exchange, and red flags are published for projects only.`,
    hint: inline`See the exchange's card with ${ref('exchange', { name: e.slug })}.`,
  };
}

export default defineCommand({
  name: 'flags',
  order: 13,
  words: ['flags'],
  summary: 'Red flags, social-fraud signals, registration and jurisdiction of a project',
  examples: ['flags pepe'],
  options: [{ type: 'entity', kind: 'project', name: 'name', description: 'Project (pick from the list, or type a name)', required: true, missing: 'Which project?' }],
  async handler(ctx, args) {
    const target = parseTarget(str(args, 'name'), 'project');
    if (target.explicit?.kind === 'exchange') {
      return { kind: 'error', message: 'Red flags are published for projects only.', hint: inline`See the exchange's card with ${ref('exchange', { name: target.explicit.slug })}.` };
    }
    const resolved = await resolveTarget(ctx, target, (name) => ({ command: 'flags', args: { name } }), 'project');
    if (!resolved.ok) return (resolved.reply.reason === 'not_found' && !target.explicit && (await exchangeInstead(ctx, target.text))) || resolved.reply;
    const { entity } = resolved;
    const [flags, social, registration, record] = await Promise.all([
      settle(ctx.source.redFlags(entity.slug)),
      settle(ctx.source.socialFraud(entity.slug)),
      settle(ctx.source.registration(entity.slug)),
      settle(ctx.source.record('project', entity.slug)),
    ]);
    if (!flags.ok && !social.ok && !registration.ok) throw flags.error;

    const sections: Section[] = [flagsSection(flags)];
    if (social.ok) {
      const fields = socialFields(social.value.data.metrics);
      sections.push(fields.length ? { title: 'Social-fraud signals', fields } : { title: 'Social-fraud signals', items: [], empty: 'none reported' });
    } else {
      sections.push({ title: 'Social-fraud signals', items: [], empty: partMissing(social.error) });
    }
    if (registration.ok) {
      const r = registration.value.data;
      sections.push({
        title: 'Registration',
        fields: [
          { label: 'Public registration', value: fmt.yesNo(r.publicRegistration, 'present', 'not found') },
          // `not_returned` or empty is "unavailable", never tier 0.
          {
            label: 'Jurisdiction',
            value: r.jurisdictionTier === null ? 'not returned' : isUnreadable(r.jurisdictionTier) ? fmt.count(r.jurisdictionTier) : TIERS[r.jurisdictionTier]!,
            ...(r.jurisdiction ? { detail: r.jurisdiction } : {}),
          },
        ],
      });
    } else {
      sections.push({ title: 'Registration', items: [], empty: partMissing(registration.error) });
    }
    const name = record.ok ? record.value.data.name : entity.name;
    const parts = [flags, social, registration, record].flatMap((s) => (s.ok ? [s.value] : []));
    return { kind: 'text', title: `${name}: red flags and signals`, sections, footer: footerOf(parts, ctx.now()) };
  },
});
