import { footerOf } from '../src/reply/footer.js';
import type { Reply } from '../src/reply/model.js';
import { entityTable, skippedRows } from './kit/entity-table.js';
import { defineCommand, str } from './kit/spec.js';

/** Rows per page: a table a chat window shows whole, with room for the picks and the page buttons. */
const PAGE_SIZE = 20;

export default defineCommand({
  name: 'browse',
  order: 24,
  words: ['browse'],
  aliases: [['list']],
  summary: 'Every project (or exchange) the service rates, a page at a time',
  examples: ['browse projects', 'browse projects page 2', 'browse exchanges'],
  options: [
    {
      type: 'choice',
      name: 'kind',
      description: 'Projects or exchanges (default projects)',
      choices: [{ value: 'projects' }, { value: 'exchanges' }],
      aliases: { project: 'projects', exchange: 'exchanges' },
    },
    { type: 'text', name: 'page', label: 'page number', keywords: ['page'], description: 'Page number (default 1)', maxLength: 4 },
  ],
  async handler(ctx, args): Promise<Reply> {
    const plural = str(args, 'kind') === 'exchanges' ? 'exchanges' : 'projects';
    const kind = plural === 'exchanges' ? 'exchange' : 'project';
    const typed = str(args, 'page') || '1';
    const page = /^\d{1,4}$/.test(typed) ? Number(typed) : Number.NaN;
    if (!(page >= 1))
      return { kind: 'error', message: `'${typed.slice(0, 10)}' is not a page number.`, hint: `For example: browse ${plural} page 2.` };
    if (!ctx.source.supports('list', kind)) {
      return {
        kind: 'text',
        title: `All ${plural}`,
        text: `The list of ${plural} needs the REST service; the tool server has no tool for it.`,
      };
    }
    const fetched = await ctx.source.list(kind);
    const all = [...fetched.data].sort((a, b) => a.name.localeCompare(b.name, 'en'));
    const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
    if (page > pages) {
      return {
        kind: 'error',
        message: `There ${pages === 1 ? 'is 1 page' : `are ${pages} pages`} of ${plural}; page ${page} is past the last.`,
        hint: `For example: browse ${plural} page ${pages}.`,
      };
    }
    const shown = all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    const note = [`Page ${page} of ${pages} · ${all.length} ${plural}, A to Z.`, skippedRows([fetched])].filter(Boolean).join(' ');
    const table = entityTable(`All ${plural}`, shown, note);
    const nav = [
      ...(page > 1 ? [{ label: 'Previous page', run: { command: 'browse', args: { kind: plural, page: String(page - 1) } } }] : []),
      ...(page < pages ? [{ label: 'Next page', run: { command: 'browse', args: { kind: plural, page: String(page + 1) } } }] : []),
    ];
    return {
      ...table,
      columns: table.columns.filter((c) => c.key !== 'kind'),
      actions: [...nav, ...(table.actions ?? [])],
      footer: footerOf([fetched], ctx.now()),
    };
  },
});
