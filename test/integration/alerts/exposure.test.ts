import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackDeliverer } from '../../../adapters/slack/deliverer.js';
import type { Caller } from '../../../commands/kit/context.js';
import { AlertService } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { ListedReadingStore } from '../../../src/exposure/store.js';
import type { CardReply, ErrorReply } from '../../../src/reply/model.js';
import type { RecordedCall } from '../../fakes/slack/index.js';
import { addRuleBySlash, moveAndDue } from '../../helpers/slack/alerts.js';
import { blocksJson, headerOf, quiesce, startHarness, type Harness } from '../../helpers/slack/harness.js';
import { polText } from '../../helpers/truth.js';

/**
 * Alerts on an exchange's listed assets, end to end in Slack: rules added by slash command, the
 * simulator moved over its admin route (a listed project's PoL moves it on every exchange listing
 * it). A listed asset "downgraded" is its PoL up 1 point or more since the last check (listed
 * assets carry no rating); "above" is any listed asset at or over the level. The message names
 * the assets. However many rules watch an exchange, its listed assets are read once a check,
 * page by page, and kept as a reading that `exposure` compares with.
 */

let h: Harness;
let db: Db;
let service: AlertService;
let listed: ListedReadingStore;

beforeAll(async () => {
  h = await startHarness();
  db = await openPglite();
  await migrate(db);
  listed = new ListedReadingStore(db);
  service = new AlertService({
    store: new AlertStore(db),
    deps: h.core.ctx,
    deliverers: [slackDeliverer(h.slack)],
    complete: h.core.complete,
    leaseMs: 60_000,
    listed,
  });
  h.core.ctx.alerts = service;
  h.core.ctx.listed = listed;
});
afterAll(async () => {
  await quiesce(h);
  await h.close();
  await db.close();
});

const move = (body: Record<string, unknown>) => moveAndDue(h, db, body);
const addRule = (text: string, channel: string) => addRuleBySlash(h, text, channel);

const alertMessages = (channel: string): RecordedCall[] =>
  h.fake
    .calls('chat.postMessage')
    .filter((c) => c.args.channel === channel && !c.args.thread_ts && c.status === 200 && /Alert:/.test(headerOf(c.args) ?? ''));
/** Requests for an exchange's listed assets, every page counted. */
const listedRequests = (exchange: string) =>
  [...h.sim.counter.byPath].filter(([p]) => p.startsWith(`/exchanges_data/v1/${exchange}/listed_assets?`)).reduce((n, [, c]) => n + c, 0);

describe('alerts on listed assets', () => {
  it('opens an incident naming the listed asset, reading each exchange once a check however many rules watch it', async () => {
    // Kraken lists 53 assets (two pages of 50), OKX 22 (one); Bonk and Shiba Inu are on Kraken.
    const kraken = h.sim.store.exchange('kraken')!;
    expect([kraken.listed.length, h.sim.store.exchange('okx')!.listed.length]).toEqual([53, 22]);
    const bonk = h.sim.store.project('bonk')!.pol.at(-1)!;
    const shiba = h.sim.store.project('shiba-inu')!.pol.at(-1)!;
    expect([polText(bonk), polText(shiba)]).toEqual(['30.3%', '27.1%']);

    await addRule('alert add kraken when a listed asset is downgraded', 'CLISTED1');
    await addRule('alert add kraken when a listed asset above 50%', 'CLISTED2');
    await addRule('alert add kraken, okx when a listed asset is downgraded cooldown none', 'CLISTED3');
    await addRule('alert add kraken when listed assets above 49.5%', 'CLISTED4');

    // The first check reads each exchange's list once: two pages of Kraken's, one of OKX's.
    h.core.upstream.source.cache.clear();
    await db.query('UPDATE alert_rules SET next_check = now()');
    const [krakenBefore, okxBefore] = [listedRequests('kraken'), listedRequests('okx')];
    const polBefore = h.sim.counter.route('GET /exchanges_data/v1/{slug}/pol/current');
    const first = await service.tick();
    expect(first.check).toMatchObject({ rules: 4, entities: 2, events: [] });
    expect([listedRequests('kraken') - krakenBefore, listedRequests('okx') - okxBefore]).toEqual([2, 1]);
    // Nothing but the listed assets is asked of the exchanges.
    expect(h.sim.counter.route('GET /exchanges_data/v1/{slug}/pol/current')).toBe(polBefore);
    // Each read is kept as a reading of the exchange.
    expect((await listed.earliest('kraken', 0, Date.now() + 1)).reading?.pols).toMatchObject({
      [String(h.sim.store.data.tokens.find((t) => t.projectSlug === 'bonk')!.id)]: bonk,
    });

    // Bonk up 24.7 points; Shiba Inu up less than one, which is no downgrade.
    await move({ kind: 'project', slug: 'bonk', pol: 0.55 });
    await move({ kind: 'project', slug: 'shiba-inu', pol: 0.275 });
    const [krakenNow] = [listedRequests('kraken')];
    const fired = await service.tick();
    expect(listedRequests('kraken') - krakenNow).toBe(2);
    expect(fired.check.events.map((e) => [e.rule.conditionText, e.entity.slug, e.type, e.verdict.listed]).sort()).toEqual([
      ['a listed asset above 50%', 'kraken', 'opened', { count: 1, assets: ['Bonk (BONK) 55.0%'] }],
      ['a listed asset is downgraded', 'kraken', 'opened', { count: 1, assets: ['Bonk (BONK) 30.3% → 55.0%'] }],
      ['a listed asset is downgraded', 'kraken', 'opened', { count: 1, assets: ['Bonk (BONK) 30.3% → 55.0%'] }],
      ['listed assets above 49.5%', 'kraken', 'opened', { count: 1, assets: ['Bonk (BONK) 55.0%'] }],
    ]);

    // The messages name the asset, its move, and say which way PoL runs.
    const [downgraded] = alertMessages('CLISTED1');
    expect(headerOf(downgraded!.args)).toBe('🔔 Alert: Kraken');
    const shown = blocksJson(downgraded!.args);
    expect(shown).toContain('Kraken: a listed asset downgraded (PoL up 1 point or more since the last check): Bonk (BONK) 30.3% → 55.0%.');
    expect(shown).toContain('Listed assets downgraded');
    expect(shown).toContain('Bonk (BONK) 30.3% → 55.0%');
    expect(shown).toContain(
      'a listed asset downgraded: its PoL up by 1 percentage point or more since the last check (listed assets carry no rating)',
    );
    expect(shown).not.toContain('Shiba Inu');
    const [above] = alertMessages('CLISTED2');
    expect(blocksJson(above!.args)).toContain('Kraken: a listed asset at or above 50.0%: Bonk (BONK) 55.0%.');
    expect(blocksJson(above!.args)).toContain('Listed assets at or above 50.0%');

    // `exposure` compares with what the checks kept: Bonk and Shiba Inu both rose since.
    const exposure = (await h.core.run('exposure kraken')).reply as CardReply;
    expect(exposure.sections.find((s) => s.title.startsWith('Worse since'))?.items).toEqual([
      'Bonk (BONK): 55.0% now, 30.3% then (+24.67 pp)',
      'Shiba Inu (SHIB): 27.5% now, 27.1% then (+0.44 pp)',
    ]);

    // Back under the line: the level clears by itself; the downgrade stays an event.
    await move({ kind: 'project', slug: 'bonk', pol: bonk });
    const cleared = await service.tick();
    expect(cleared.check.events.map((e) => [e.rule.conditionText, e.type]).sort()).toEqual([
      ['a listed asset above 50%', 'cleared'],
      ['listed assets above 49.5%', 'cleared'],
    ]);
    await move({ kind: 'project', slug: 'shiba-inu', pol: shiba });
  });

  it('refuses a condition on listed assets for a project, and adds nothing', async () => {
    const caller: Caller = { platform: 'slack', userId: 'U1', channelId: 'CLISTED5', workspaceId: 'T1', canManageDigests: true };
    for (const text of ['alert add aave when a listed asset is downgraded', 'alert add aave, kraken when a listed asset above 20%']) {
      const reply = (await h.core.run(text, caller)).reply as ErrorReply;
      expect(reply.kind, text).toBe('error');
      expect(reply.message, text).toMatch(
        /^Listed assets are published for exchanges only; watch a project with pol above 5% or downgrade instead\. Conditions: /,
      );
    }
    const level = (await h.core.run('alert add kraken when a listed asset above 150%', caller)).reply as ErrorReply;
    expect(level.message).toMatch(/^A PoL level is between 0% and 100%, not 150%\./);
    expect(await service.store.listChannel('slack', 'CLISTED5')).toEqual([]);
  });
});
