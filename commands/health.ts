import { checkSources, type SourceCheck } from '../src/api/diagnose.js';
import * as fmt from '../src/reply/format.js';
import type { Field, Reply } from '../src/reply/model.js';
import type { CommandContext } from './kit/context.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'health',
  order: 30,
  words: ['health'],
  summary: 'Is the risk-data service up, and if not, what is wrong',
  examples: ['health'],
  options: [],
  audience: 'asker',
  handler: (ctx) => health(ctx),
});

const NETWORK = new Set(['dns', 'refused', 'tls', 'timeout', 'unreachable']);

/** Every configured source checked now, past the cache: a health answer from the cache would describe the past. */
async function health(ctx: CommandContext): Promise<Reply> {
  const stats = ctx.source.cache.stats();
  const checks = await checkSources(ctx.source.cache.inner.members);
  const lookups = stats.hits + stats.misses;
  const cacheLine: Field = {
    label: 'Cache',
    value: `${stats.entries} entries`,
    detail: `${lookups > 0 ? fmt.percent((stats.hits / lookups) * 100, 0) : '—'} hit ratio`,
  };
  const down = checks.filter((c) => !c.ok);
  const unreachable = down.length === checks.length && checks.every((c) => c.problems.some((p) => NETWORK.has(p.kind)));
  const title =
    down.length === 0
      ? 'The risk-data service is healthy'
      : unreachable
        ? 'The risk-data service is not reachable'
        : down.length < checks.length
          ? `The risk-data service answers through the ${checks.find((c) => c.ok)!.label.toLowerCase()} only`
          : 'The risk-data service has problems';
  return {
    kind: 'text',
    title,
    sections: [...checks.map((c) => sourceSection(c, stats.breakers[c.source])), { title: 'polbot', fields: [cacheLine] }],
  };
}

function sourceSection(check: SourceCheck, circuit: string | undefined): { title: string; fields: Field[] } {
  const fields: Field[] = check.ok
    ? [{ label: 'Status', value: 'ok' }]
    : check.problems.map((p, i) => ({ label: i === 0 ? 'Problem' : 'Also', value: p.summary }));
  if (circuit)
    fields.push({
      label: 'Circuit',
      value: circuit,
      detail: circuit === 'closed' ? 'calls go through' : 'calls are held back for a while after repeated failures',
    });
  return { title: check.label, fields };
}
