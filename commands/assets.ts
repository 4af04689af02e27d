import { showAssets } from './kit/assets.js';
import { defineCommand, EXCHANGE_NAME } from './kit/spec.js';

export default defineCommand({
  name: 'assets',
  order: 14,
  words: ['assets'],
  summary: 'The assets an exchange lists, each with its PoL: search, category and sort, a page at a time',
  examples: ['assets binance', 'assets kraken category=DeFi sort=polScore order=asc', 'assets coinbase search=sol'],
  options: [
    EXCHANGE_NAME,
    {
      type: 'text',
      name: 'filters',
      description: 'name=value pairs: search=sol category=DeFi sort=polScore order=asc page=2',
      maxLength: 200,
    },
  ],
  // `assets binance category=DeFi`: the exchange's name first, then the pairs.
  text: {
    usage: '<exchange> [search=… category=… sort=name|marketCap|polScore order=asc|desc]',
    parse(rest) {
      const at = rest.search(/\S+\s*=/);
      const name = (at < 0 ? rest : rest.slice(0, at)).trim();
      const filters = at < 0 ? '' : rest.slice(at).trim();
      if (!name) return { ok: false, message: 'Which exchange?' };
      return { ok: true, args: { name, ...(filters ? { filters } : {}) } };
    },
    format: (args) =>
      [typeof args.name === 'string' ? args.name : '', typeof args.filters === 'string' ? args.filters : ''].filter(Boolean).join(' '),
  },
  handler: (ctx, args) => showAssets(ctx, args),
});
