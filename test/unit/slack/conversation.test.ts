import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS, promptsFor, statusFor } from '../../../adapters/slack/conversation.js';
import { understand } from '../../../src/intents/understand.js';

/** The agent surface's words: the prompts it offers and the status line it shows while answering. */
describe('Slack agent surface', () => {
  it('offers prompts from the names a workspace asks most, the defaults filling the rest, each one polbot follows', () => {
    expect(promptsFor([]).map((p) => p.message)).toEqual([...DEFAULT_PROMPTS]);
    expect(promptsFor(['Pepe', 'Aave', 'Kraken']).map((p) => p.message)).toEqual([
      'Is Pepe safe?',
      'Compare Pepe and Aave',
      'Why is Kraken so risky?',
      'Any red flags on Uniswap?',
    ]);
    expect(promptsFor(['Pepe']).map((p) => p.message)).toEqual([
      'Is Pepe safe?',
      'Compare Binance and Kraken',
      'Any red flags on Uniswap?',
      'Top exchanges',
    ]);
    for (const names of [[], ['Pepe'], ['Pepe', 'Aave', 'Kraken']])
      for (const p of promptsFor(names)) expect(understand(p.message), p.message).not.toBeNull();
  });

  it('says whom it is looking up, and nothing it was not told', () => {
    expect(statusFor('is binance safe?')).toBe('is looking up Binance…');
    expect(statusFor('compare lido dao and kraken')).toBe('is looking up Lido Dao and Kraken…');
    expect(statusFor('top exchanges')).toBe('is looking it up…');
    expect(statusFor('what is the weather')).toBe('is looking it up…');
  });
});
