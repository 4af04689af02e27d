import { UpstreamError, upstreamMessage } from '../src/api/errors.js';
import * as fmt from '../src/reply/format.js';
import { footerOf } from '../src/reply/footer.js';
import type { Reply } from '../src/reply/model.js';
import type { CommandContext } from './kit/context.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'health',
  order: 30,
  words: ['health'],
  summary: 'Is the risk-data service up',
  examples: ['health'],
  options: [],
  audience: 'asker',
  handler: (ctx) => health(ctx),
});

async function health(ctx: CommandContext): Promise<Reply> {
  const stats = ctx.source.cache.stats();
  const cacheLine = {
    label: 'Cache',
    value: `${stats.entries} entries`,
    detail: `${stats.hits + stats.misses > 0 ? fmt.percent((stats.hits / (stats.hits + stats.misses)) * 100, 0) : '—'} hit ratio · circuit ${stats.breaker}`,
  };
  const source = `Source: ${ctx.source.name.toUpperCase()}`;
  try {
    const health = await ctx.source.health();
    const { stale } = health.meta;
    if (stale) {
      // A cached health answer served because the upstream just failed says how it was, not how it
      // is: reporting it as the current state would call a failing service healthy.
      const now = upstreamMessage(stale.reason);
      return {
        kind: 'text',
        title: 'The risk-data service is not reachable',
        text: `${now} Its last health check, ${fmt.age(stale.ageMs)} ago, ${health.data.healthy ? 'passed' : 'failed'}.`,
        sections: [{ title: source, fields: [cacheLine] }],
        footer: footerOf([health], ctx.now()),
      };
    }
    return {
      kind: 'text',
      title: health.data.healthy ? 'The risk-data service is healthy' : 'The risk-data service reports problems',
      sections: [
        {
          title: source,
          fields: [...health.data.checks.map((c) => ({ label: c.name, value: c.ok ? 'ok' : 'failing' })), cacheLine],
        },
      ],
      footer: footerOf([health], ctx.now()),
    };
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    return {
      kind: 'text',
      title: 'The risk-data service is not reachable',
      text: err.message,
      sections: [{ title: source, fields: [cacheLine] }],
    };
  }
}
