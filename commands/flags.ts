import { settle } from '../src/api/settle.js';
import { footerOf } from '../src/reply/footer.js';
import { inline, ref } from '../src/reply/inline.js';
import type { Section } from '../src/reply/model.js';
import { socialFields } from '../src/reply/social.js';
import { flagsSection, partMissing, registrationFields } from './kit/card.js';
import { exchangeInstead } from './kit/exchange-instead.js';
import { resolveTarget } from './kit/resolve-target.js';
import { defineCommand, str } from './kit/spec.js';
import { parseTarget } from './kit/target.js';

export default defineCommand({
  name: 'flags',
  order: 13,
  words: ['flags'],
  summary: 'Red flags, social-fraud signals, registration and jurisdiction of a project',
  examples: ['flags pepe'],
  options: [
    {
      type: 'entity',
      kind: 'project',
      name: 'name',
      description: 'Project (pick from the list, or type a name)',
      required: true,
      missing: 'Which project?',
    },
  ],
  async handler(ctx, args) {
    const target = parseTarget(str(args, 'name'), 'project');
    if (target.explicit?.kind === 'exchange') {
      return {
        kind: 'error',
        message: 'Red flags are published for projects only.',
        hint: inline`See the exchange's card with ${ref('exchange', { name: target.explicit.slug })}.`,
      };
    }
    const resolved = await resolveTarget(ctx, target, (name) => ({ command: 'flags', args: { name } }), 'project');
    if (!resolved.ok)
      return (
        (resolved.reply.reason === 'not_found' &&
          !target.explicit &&
          (await exchangeInstead(ctx, target.text, 'red flags are published for projects only'))) ||
        resolved.reply
      );
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
      sections.push(
        fields.length ? { title: 'Social-fraud signals', fields } : { title: 'Social-fraud signals', items: [], empty: 'none reported' },
      );
    } else {
      sections.push({ title: 'Social-fraud signals', items: [], empty: partMissing(social.error) });
    }
    sections.push(
      registration.ok
        ? { title: 'Registration', fields: registrationFields(registration.value.data) }
        : { title: 'Registration', items: [], empty: partMissing(registration.error) },
    );
    const name = record.ok ? record.value.data.name : entity.name;
    const parts = [flags, social, registration, record].flatMap((s) => (s.ok ? [s.value] : []));
    return { kind: 'text', title: `${name}: red flags and signals`, sections, footer: footerOf(parts, ctx.now()) };
  },
});
