import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../app/config.js';
import { ConfigError } from '../../../src/config-error.js';
import { messageTs, postToBolt } from '../../fakes/slack/index.js';
import { SIGNING_SECRET, quiesce, startHarness, type Harness } from '../../helpers/slack/harness.js';
import { polText } from '../../helpers/truth.js';

/**
 * Link unfurls, through the real Bolt app and the fake Slack: a link to one of the operator's
 * domains whose path names a project or an exchange by its slug is unfurled once with a compact
 * card (the simulator's own PoL, a Full card button); the same link pasted again is answered from
 * the cache; a link naming nothing, or to another domain, is left alone; Slack refuses an unfurl
 * of a link it did not send.
 */

let h: Harness;
const WAIT = 10_000;
beforeAll(async () => {
  h = await startHarness({ unfurlDomains: ['coingecko.com', 'example.org'] });
});
afterAll(async () => {
  await quiesce(h);
  await h.close();
});

const share = (channel: string, ts: string, urls: string[]) =>
  postToBolt(h.endpoint, h.fake.links.share({ channel, ts, urls }), SIGNING_SECRET, { contentType: 'application/json' });
const upstreamCalls = () => h.sim.counter.total;

describe('link unfurls', () => {
  it('unfurls a link naming a project with its compact card, and the same link again from the cache', async () => {
    const url = 'https://www.coingecko.com/en/coins/pepe';
    const ts = messageTs();
    const cold = upstreamCalls();
    await share('CUNFURL01', ts, [url, 'https://www.coingecko.com/en/news/today', 'https://elsewhere.com/coins/pepe']);
    const call = await h.fake.waitFor('chat.unfurl', (c) => c.args.ts === ts, WAIT);
    expect((call.response as { ok: boolean }).ok).toBe(true);
    const unfurls = (typeof call.args.unfurls === 'string' ? JSON.parse(call.args.unfurls) : call.args.unfurls) as Record<string, unknown>;
    // Only the link that names an entity, on a listed domain.
    expect(Object.keys(unfurls)).toEqual([url]);
    const shown = JSON.stringify(unfurls[url]);
    expect(shown).toContain('Pepe (PEPE)');
    expect(shown).toContain(polText(h.sim.store.project('pepe')!.pol.at(-1)!));
    expect(shown).toContain('Full card');

    const before = upstreamCalls();
    // The first look asked the upstream; the second asks it nothing.
    expect(before).toBeGreaterThan(cold);
    const again = messageTs();
    await share('CUNFURL01', again, [url]);
    await h.fake.waitFor('chat.unfurl', (c) => c.args.ts === again, WAIT);
    expect(upstreamCalls()).toBe(before);
  });

  it('leaves alone a link that names nothing, or more than one entity', async () => {
    const ts = messageTs();
    await share('CUNFURL02', ts, ['https://example.org/coins/zzqxcoin', 'https://example.org/coins/lido']);
    await quiesce(h);
    expect(h.fake.calls('chat.unfurl').filter((c) => c.args.ts === ts)).toEqual([]);
  });

  it('is refused by Slack for a link it was not told of', async () => {
    const ts = messageTs();
    h.fake.links.share({ channel: 'CUNFURL03', ts, urls: ['https://example.org/exchanges/kraken'] });
    const res = await fetch(`${h.fake.url}chat.unfurl`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.fake.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'CUNFURL03', ts, unfurls: { 'https://example.org/exchanges/okx': { blocks: [] } } }),
    });
    expect(await res.json()).toMatchObject({ ok: false, error: 'cannot_unfurl_url' });
  });

  it('reads POLBOT_UNFURL_DOMAINS, refusing what is not a domain with one line', () => {
    const base = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: 'secret-of-sixteen-chars' };
    expect(loadConfig({ ...base, POLBOT_UNFURL_DOMAINS: 'CoinGecko.com, example.org' }).slack?.unfurlDomains).toEqual([
      'coingecko.com',
      'example.org',
    ]);
    expect(() => loadConfig({ ...base, POLBOT_UNFURL_DOMAINS: 'https://coingecko.com/' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, POLBOT_UNFURL_DOMAINS: 'https://coingecko.com/' })).toThrow(
      /POLBOT_UNFURL_DOMAINS: 'https:\/\/coingecko.com\/' is not a domain/,
    );
  });
});
