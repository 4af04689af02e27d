import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/index.js';
import type { CardReply, ChoiceReply, Reply, TableReply, TextReply } from '../../../src/reply/model.js';
import type { SimStore } from '../../../src/sim/data/store.js';
import { demoCore, useRestAndToolsOnly, visibleText } from '../../helpers/core.js';
import { polText } from '../../helpers/truth.js';

/**
 * Plain words, through the core against the simulator: questions become their commands and answer
 * with the dataset's own values; names go through the same resolution as typed commands (an
 * ambiguous one asks, an unknown one says so); a sentence that maps to nothing gets three
 * runnable questions. And whatever name a question carries, an answer is never about an entity
 * other than one that name is: checked against the dataset's names, slugs and tickers.
 */

let core: Core;
let store: SimStore;
beforeAll(async () => {
  core = await demoCore({ RATE_LIMIT_PER_USER: '0' });
  store = core.upstream.sim!.store;
});
afterAll(() => core.close());

const say = async (text: string): Promise<Reply> => (await core.converse(text)).reply;

describe('plain words', () => {
  it('answers "is binance safe?" with Binance’s card and the dataset’s PoL', async () => {
    const card = (await say('Is Binance safe?')) as CardReply;
    expect(card.kind).toBe('card');
    expect(card.entity).toMatchObject({ kind: 'exchange', slug: 'binance' });
    expect(card.headline.value).toBe(polText(store.exchange('binance')!.pol.at(-1)!));
  });

  it('compares two names, explains one, shows reserves and red flags, and lists the top', async () => {
    const compared = await say('binance vs okx');
    expect(visibleText(compared)).toContain('Binance');
    expect(visibleText(compared)).toContain('OKX');
    expect(((await say('why is pepe so risky')) as CardReply | TextReply).kind).not.toBe('error');
    expect(visibleText(await say('why is pepe so risky'))).toContain('Pepe');
    expect(visibleText(await say("show me kraken's reserves"))).toMatch(/Kraken/);
    expect(visibleText(await say('any red flags on uniswap?'))).toContain('Uniswap');
    const top = (await say('top exchanges')) as TableReply;
    expect(top.kind).toBe('table');
  });

  it('takes the slash grammar as written', async () => {
    const section = (await say('binance solvency')) as CardReply;
    expect(section.entity).toMatchObject({ kind: 'exchange', slug: 'binance' });
    expect(visibleText(section)).toMatch(/[Ss]olvency/);
  });

  it('asks which one when a name could be several, and says so when it is unknown', async () => {
    const choice = (await say('is lido safe?')) as ChoiceReply;
    expect(choice.kind).toBe('choice');
    expect(choice.reason).toBe('ambiguous');
    expect(choice.options.map((o) => o.run.args?.name)).toEqual(expect.arrayContaining(['project:lido-dao', 'project:lido-staked-ether']));
    const unknown = (await say('is zzqxcoin safe?')) as ChoiceReply;
    expect(unknown.kind).toBe('choice');
    expect(unknown.reason).toBe('not_found');
  });

  it('answers a sentence that maps to nothing with three runnable questions close to it', async () => {
    const result = await core.converse('tell me something about the reserves of kraken please');
    expect(result.command).toBe('not_understood');
    const reply = result.reply as TextReply;
    expect(reply.audience).toBe('asker');
    expect(reply.actions?.map((a) => [a.label, a.command])).toEqual([
      ["show me kraken's reserves", 'section kraken solvency'],
      ['compare binance and kraken', 'compare binance, kraken'],
      ['why is kraken so risky', 'why kraken'],
    ]);
  });

  it('never answers for an entity that was not named', async () => {
    const named = [...store.data.projects, ...store.data.exchanges];
    const spellings = named.flatMap((e) => [e.name, e.slug, ...('ticker' in e && e.ticker ? [e.ticker] : [])]);
    const templates = ['is {} safe?', 'how risky is {}', "what's the pol of {}", 'why is {} so risky', 'any red flags on {}?'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...templates),
        fc.oneof(fc.constantFrom(...spellings), fc.stringMatching(/^[a-z]{3,10}$/)),
        async (template, name) => {
          const reply = await say(template.replace('{}', name));
          if (reply.kind !== 'card') return;
          // The answer's entity is one that this name is: its name, slug or ticker, as the dataset has them.
          const it = named.find((e) => e.slug === reply.entity.slug)!;
          const is = [it.name, it.slug, ...('ticker' in it && it.ticker ? [it.ticker] : [])].map((s) => s.toLowerCase());
          expect(is, `${template} ${name} -> ${reply.entity.slug}`).toContain(name.toLowerCase());
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('plain words with the tool server alone', () => {
  const cores = useRestAndToolsOnly();
  it('answers the same questions, saying plainly what needs the REST service', async () => {
    const card = (await cores.tools.converse('is aave safe?')).reply as CardReply;
    expect(card.kind).toBe('card');
    expect(card.entity).toMatchObject({ kind: 'project', slug: 'aave' });
    expect(visibleText(card)).toContain('Overall PoL is not available through the tool server.');
    expect(visibleText((await cores.tools.converse('any red flags on pepe?')).reply)).toContain('Pepe');
  });
});
