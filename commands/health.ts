import { UpstreamError } from '../src/api/errors.js';
import * as fmt from '../src/reply/format.js';
import type { Reply } from '../src/reply/model.js';
import type { CommandContext } from './context.js';
import { footerOf } from './footer.js';

export async function healthCommand(ctx: CommandContext): Promise<Reply> {
  const stats = ctx.source.cache.stats();
  const cacheLine = {
    label: 'Cache',
    value: `${stats.entries} entries`,
    detail: `${stats.hits + stats.misses > 0 ? fmt.percent((stats.hits / (stats.hits + stats.misses)) * 100, 0) : '—'} hit ratio · circuit ${stats.breaker}`,
  };
  try {
    const health = await ctx.source.health();
    return {
      kind: 'text',
      title: health.data.healthy ? 'The risk-data service is healthy' : 'The risk-data service reports problems',
      sections: [
        {
          title: `Source: ${ctx.source.name.toUpperCase()}`,
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
      sections: [{ title: `Source: ${ctx.source.name.toUpperCase()}`, fields: [cacheLine] }],
    };
  }
}
