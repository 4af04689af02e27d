import { readable } from '../src/api/domain.js';
import { settle } from '../src/api/settle.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import { change30d } from './kit/card.js';
import { chartImage } from './kit/chart-image.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'index',
  order: 23,
  words: ['index'],
  summary: 'Index-level PoL for projects and exchanges',
  examples: ['index'],
  options: [],
  async handler(ctx) {
    const [projects, exchanges, history] = await Promise.all([
      settle(ctx.source.indexPol('project')),
      settle(ctx.source.indexPol('exchange')),
      settle(ctx.source.indexPolChart(90)),
    ]);
    if (!projects.ok && !exchanges.ok) throw projects.error;
    const fields = [];
    if (projects.ok) {
      const current = readable(projects.value.data.pol);
      const change = history.ok && current !== undefined ? change30d(history.value.data, current) : undefined;
      fields.push({ label: 'Projects', value: fmt.pol(projects.value.data.pol), detail: [fmt.rating(projects.value.data.rating), change?.text].filter(Boolean).join(' · ') });
    }
    if (exchanges.ok) fields.push({ label: 'Exchanges', value: fmt.pol(exchanges.value.data.pol), detail: fmt.rating(exchanges.value.data.rating) });
    const footer = footerOf([projects, exchanges, history].flatMap((s) => (s.ok ? [s.value] : [])), ctx.now());
    const image = history.ok
      ? await chartImage(ctx, { kind: 'pol', entity: { kind: 'project', slug: 'index', name: 'Project index' }, points: history.value.data, days: 90, simulated: footer.simulated })
      : undefined;
    return {
      kind: 'text',
      title: 'Index-level Probability of Loss',
      sections: [{ title: 'Average PoL', direction: 'lower is safer', fields }],
      ...(image ? { image } : {}),
      footer,
    };
  },
});
