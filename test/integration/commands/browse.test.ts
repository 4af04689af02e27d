import { describe, expect, it } from 'vitest';
import type { TableReply } from '../../../src/reply/model.js';
import { ask, useRestAndToolsOnly } from '../../helpers/core.js';

/** Browsing every project a page at a time, against the simulator's catalogue. */

const cores = useRestAndToolsOnly();

describe.each(['REST', 'the tool server alone'] as const)('browse projects through %s', (via) => {
  const core = () => (via === 'REST' ? cores.rest : cores.tools);

  it('pages through every project of the dataset, A to Z, 20 at a time, with Next and Previous', async () => {
    const names = cores.toolSim.store.data.projects.map((p) => p.name).sort((a, b) => a.localeCompare(b, 'en'));
    const pages = Math.ceil(names.length / 20);
    const seen: string[] = [];
    for (let page = 1; page <= pages; page++) {
      const r = (await ask(core(), `browse projects page ${page}`)) as TableReply;
      expect(r.kind).toBe('table');
      expect(r.note).toContain(`Page ${page} of ${pages} · ${names.length} projects`);
      seen.push(...r.rows.map((row) => row.name!.replace(/ \([^)]*\)$/, '')));
      const nav = (r.actions ?? []).filter((a) => a.run.command === 'browse').map((a) => [a.label, a.command]);
      expect(nav).toEqual([
        ...(page > 1 ? [['Previous page', `browse projects page ${page - 1}`]] : []),
        ...(page < pages ? [['Next page', `browse projects page ${page + 1}`]] : []),
      ]);
    }
    expect(seen).toEqual(names);
  });

  it('a page past the last says how many there are', async () => {
    const r = await ask(core(), 'browse projects page 99');
    expect(r).toMatchObject({ kind: 'error', message: 'There are 4 pages of projects; page 99 is past the last.' });
  });
});

describe('browse exchanges', () => {
  it('lists them through REST, and says plainly that the tool server alone has no list', async () => {
    const r = (await ask(cores.rest, 'list exchanges')) as TableReply;
    expect(r.note).toContain(`${cores.rest.upstream.sim!.store.data.exchanges.length} exchanges`);
    expect(await ask(cores.tools, 'browse exchanges')).toMatchObject({
      kind: 'text',
      text: 'The list of exchanges needs the REST service; the tool server has no tool for it.',
    });
  });
});
