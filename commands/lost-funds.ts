import { isUnreadable } from '../src/api/domain.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import type { ReplyImage, Section } from '../src/reply/model.js';
import { defineCommand } from './kit/spec.js';

/** The incidents a reply lists, newest first; the rest are counted in the yearly totals. */
const INCIDENTS_SHOWN = 8;

export default defineCommand({
  name: 'lost-funds',
  order: 24,
  words: ['lost-funds'],
  aliases: [['lost', 'funds'], ['lostfunds'], ['hacks']],
  summary: 'Funds lost at exchanges: the total, a year at a time with a chart, and the latest incidents',
  examples: ['lost-funds'],
  options: [],
  async handler(ctx) {
    const title = 'Funds lost at exchanges';
    if (!ctx.source.supports('lostFunds'))
      return { kind: 'text', title, text: 'Lost-funds statistics need the REST service; the tool server has no tool for them.' };
    const fetched = await ctx.source.lostFunds();
    const { totalUsd, incidents, byYear } = fetched.data;
    const footer = footerOf([fetched], ctx.now());
    if (incidents.length === 0 && byYear.length === 0)
      return { kind: 'text', title, text: 'No funds lost at exchanges are on record.', footer };
    const years = [...byYear].sort((a, b) => b.year - a.year);
    const recent = [...incidents].sort((a, b) => b.date.localeCompare(a.date));
    const sections: Section[] = [
      {
        title: 'In all',
        fields: [{ label: 'Lost', value: fmt.usd(totalUsd), detail: `${fmt.count(incidents.length)} incidents on record` }],
      },
      ...(years.length
        ? [
            {
              title: 'By year',
              fields: years.map((y) => ({
                label: fmt.year(y.year),
                value: fmt.usd(y.amountUsd),
                detail: `${fmt.count(y.incidents)} incident${y.incidents === 1 ? '' : 's'}`,
              })),
            },
          ]
        : []),
      {
        title: 'Latest incidents',
        items: recent
          .slice(0, INCIDENTS_SHOWN)
          .map((i) => `${i.date.slice(0, 10)} · ${fmt.oneLine(i.exchange, 40)}: ${fmt.usd(i.amountUsd)}, ${fmt.oneLine(i.cause, 80)}`),
        empty: 'none on record',
      },
    ];
    if (recent.length > INCIDENTS_SHOWN)
      footer.notes = [...(footer.notes ?? []), `${recent.length - INCIDENTS_SHOWN} older incidents are in the yearly totals.`];
    let image: ReplyImage | undefined;
    if (byYear.length) {
      image = await ctx.charts
        .render({ kind: 'lostfunds', range: 'all', years: byYear, simulated: footer.simulated, cacheKey: 'lost-funds' })
        .catch(() => undefined);
    }
    const total = isUnreadable(totalUsd) ? undefined : totalUsd;
    return {
      kind: 'text',
      title,
      ...(total !== undefined
        ? { text: `${fmt.usd(total)} lost in ${fmt.count(incidents.length)} incidents on record (lower is better).` }
        : {}),
      sections,
      ...(image ? { image } : {}),
      ...(years.length ? { series: { label: 'Lost a year, oldest first', values: [...years].reverse().map((y) => y.amountUsd) } } : {}),
      footer,
    };
  },
});
