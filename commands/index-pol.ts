import { readable } from '../src/api/domain.js';
import { settle } from '../src/api/settle.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import { change30d } from './kit/card.js';
import { chartImage } from './kit/chart-image.js';
import { DATE_OPTIONS, daysBack, windowOf } from './kit/date-range.js';
import { defineCommand, str } from './kit/spec.js';

const RANGES = ['30d', '90d', '180d', '365d', 'all'] as const;

export default defineCommand({
  name: 'index',
  order: 23,
  words: ['index'],
  summary: 'Index-level PoL for projects and exchanges',
  examples: ['index', 'index 365d', 'index from 2026-03-01 to 2026-06-30'],
  options: [
    {
      type: 'choice',
      name: 'range',
      description: 'Time range of the project index history (default 90 days)',
      choices: RANGES.map((r) => ({ value: r, label: r === 'all' ? 'all history' : r })),
      aliases: { '1y': '365d', '6m': '180d', '3m': '90d', '1m': '30d', max: 'all' },
      near: /^\d+[dwmy]$/,
    },
    ...DATE_OPTIONS,
  ],
  async handler(ctx, args) {
    const read = windowOf(args, ctx.now(), 'index');
    if (!read.ok) return { kind: 'error', message: read.message, hint: read.hint };
    const window = read.window;
    const range = str(args, 'range') || '90d';
    const days = range === 'all' ? undefined : Number(range.slice(0, -1));
    const [projects, exchanges, history] = await Promise.all([
      settle(ctx.source.indexPol('project')),
      settle(ctx.source.indexPol('exchange')),
      settle(window ? ctx.source.indexPolHistory(window.from, window.to) : ctx.source.indexPolChart(days)),
    ]);
    if (!projects.ok && !exchanges.ok) throw projects.error;
    const fields = [];
    if (projects.ok) {
      const current = readable(projects.value.data.pol);
      // A window of dates in the past says nothing about the last 30 days.
      const change = history.ok && !window && current !== undefined ? change30d(history.value.data, current) : undefined;
      fields.push({
        label: 'Projects',
        value: fmt.pol(projects.value.data.pol),
        detail: [fmt.rating(projects.value.data.rating), change?.text].filter(Boolean).join(' · '),
      });
    }
    // The documents give the exchange index its current value only; the chart is the project index's.
    if (exchanges.ok)
      fields.push({
        label: 'Exchanges',
        value: fmt.pol(exchanges.value.data.pol),
        detail: `${fmt.rating(exchanges.value.data.rating)} · now only, the service keeps no history of it`,
      });
    const footer = footerOf(
      [projects, exchanges, history].flatMap((s) => (s.ok ? [s.value] : [])),
      ctx.now(),
    );
    const image =
      history.ok && history.value.data.length > 0
        ? await chartImage(ctx, {
            kind: 'pol',
            entity: { kind: 'project', slug: 'index', name: 'Project index' },
            points: history.value.data,
            days: window ? daysBack(window.from, ctx.now()) : days,
            ...(window ? { rangeLabel: window.label } : {}),
            simulated: footer.simulated,
          })
        : undefined;
    if (history.ok && history.value.data.length === 0)
      footer.notes = [...(footer.notes ?? []), `No project index history ${window ? `for ${window.label}` : `in the last ${range}`}.`];
    if (!history.ok)
      footer.notes = [
        ...(footer.notes ?? []),
        `Project index history ${history.error.kind === 'not_available' ? 'needs the REST service' : 'unavailable right now'}.`,
      ];
    return {
      kind: 'text',
      title: 'Index-level Probability of Loss',
      sections: [{ title: 'Average PoL', direction: 'lower is safer', fields }],
      ...(image ? { image } : {}),
      ...(history.ok && history.value.data.length > 0
        ? { series: { label: 'Project index PoL', values: history.value.data.map((p) => p.pol), direction: 'lower is safer' as const } }
        : {}),
      footer,
    };
  },
});
