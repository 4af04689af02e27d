import { describe, expect, it } from 'vitest';
import { inDomains, linkTarget } from '../../../src/links/rules.js';

/** Which links name an entity: a slug right after one of the rule's words, and nothing else. */
describe('link rules', () => {
  it('reads the slug after /coins/, /currencies/, /projects/ and /exchanges/, the last two with their kind', () => {
    expect(linkTarget('https://www.coingecko.com/en/coins/pepe')).toEqual({ slug: 'pepe' });
    expect(linkTarget('https://coinmarketcap.com/currencies/lido-dao/')).toEqual({ slug: 'lido-dao' });
    expect(linkTarget('https://example.org/projects/aave?ref=x#top')).toEqual({ slug: 'aave', kind: 'project' });
    expect(linkTarget('http://example.org/exchanges/gate-io')).toEqual({ slug: 'gate-io', kind: 'exchange' });
  });

  it('names nothing for anything else, and for a path that names two', () => {
    for (const url of [
      'https://example.org/news/pepe',
      'https://example.org/coins/',
      'https://example.org/coins/Pepe',
      'https://example.org/coins/pe%20pe',
      'https://example.org/?coins=pepe',
      'ftp://example.org/coins/pepe',
      'not a url',
      'https://example.org/exchanges/binance/coins/bitcoin',
    ])
      expect(linkTarget(url), url).toBeNull();
  });

  it('takes a listed domain and its subdomains, not a look-alike', () => {
    expect(inDomains('https://www.coingecko.com/en/coins/pepe', ['coingecko.com'])).toBe(true);
    expect(inDomains('https://coingecko.com/coins/pepe', ['coingecko.com'])).toBe(true);
    expect(inDomains('https://notcoingecko.com/coins/pepe', ['coingecko.com'])).toBe(false);
    expect(inDomains('https://coingecko.com.evil.io/coins/pepe', ['coingecko.com'])).toBe(false);
  });
});
