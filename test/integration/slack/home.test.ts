import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSlack, type SlackAdapter } from '../../../adapters/slack/index.js';
import type { Core } from '../../../commands/core/core.js';
import type { Caller } from '../../../commands/kit/context.js';
import { AlertService } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { createDigests, type Digests } from '../../../src/digest/index.js';
import { createLogger } from '../../../src/log.js';
import { homeView } from '../../../adapters/slack/home/view.js';
import { RecentLookups } from '../../../src/recent/lookups.js';
import { ratingForPol } from '../../../src/sim/data/scales.js';
import {
  appHomeOpenedBody,
  homeBlockActionsBody,
  homeBlockSuggestionBody,
  postToBolt,
  slashCommandBody,
  startFakeSlack,
  type FakeSlack,
  type RecordedCall,
} from '../../fakes/slack/index.js';
import { demoCore } from '../../helpers/core.js';
import { polText } from '../../helpers/truth.js';
import { validateMessage } from '../../helpers/slack/block-kit-limits.js';
import { headerOf, LogCapture, SIGNING_SECRET } from '../../helpers/slack/harness.js';

/**
 * The Home tab end to end: the real Bolt app in HTTP mode against the fake Slack, the command core
 * on the simulator, and digests, alert rules and recent lookups in PGlite. Events and clicks are
 * signed as Slack signs them; what people would see is read from the views the fake was given.
 */

/** May manage digests (DIGEST_ADMINS); the fake's default user may not. */
const ADMIN = 'U0HOMEADM1';
const BIG = 'U0HOMEBIG1';
const VIEWER = 'U0FAKEUSR1';
const TEAM = 'T0FAKE0001';
const OPS = 'C0HOMEOPS1';
const SECRET = 'G0HOMESEC1';
const WAIT = 10_000;

let fake: FakeSlack;
let core: Core;
let db: Db;
let digests: Digests;
let alerts: AlertService;
let slack: SlackAdapter;
let endpoint: string;

beforeAll(async () => {
  fake = await startFakeSlack();
  core = await demoCore({ RATE_LIMIT_PER_USER: '0', RATE_LIMIT_PER_CHANNEL: '0' });
  db = await openPglite();
  digests = await createDigests({ db, ctx: core.ctx, deliverers: [] });
  core.ctx.digests = digests.service;
  alerts = new AlertService({ store: new AlertStore(db), deps: core.ctx, deliverers: [], complete: core.complete });
  core.ctx.alerts = alerts;
  slack = await startSlack({
    core,
    slack: { botToken: fake.botToken, apiUrl: fake.url, signingSecret: SIGNING_SECRET },
    http: { host: '127.0.0.1', port: 0 },
    log: createLogger({ level: 'debug', destination: new LogCapture() }),
    digestAdmins: [ADMIN, BIG],
  });
  endpoint = `http://127.0.0.1:${slack.port ?? 0}/slack/events`;
  fake.home.join(ADMIN, OPS);
  fake.home.join(VIEWER, OPS);
  // A private channel the admin is not in: its digest is none of their business here.
  fake.home.join(VIEWER, SECRET, 'private_channel');
});

afterAll(async () => {
  await slack.stop();
  await fake.close();
  await digests.stop();
  await db.close();
  await core.close();
});

// ---- what Slack sends ------------------------------------------------------------------------

let responses = 0;
async function command(text: string, user: string, channel: string): Promise<void> {
  const body = slashCommandBody({
    command: '/pol',
    text,
    user_id: user,
    user_name: user.toLowerCase(),
    channel_id: channel,
    response_url: fake.responseUrl(`home-${++responses}`),
  });
  expect((await postToBolt(endpoint, body, SIGNING_SECRET)).status).toBe(200);
}

type Obj = Record<string, unknown>;
interface Element {
  type: string;
  action_id: string;
  value?: string;
  style?: string;
  text?: { text: string };
  confirm?: Obj;
}
interface Block {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: (Element & { text?: { text: string } })[];
  accessory?: Element;
}
interface View {
  type: string;
  blocks: Block[];
}

const viewOf = (call: RecordedCall): View => (typeof call.args.view === 'string' ? JSON.parse(call.args.view) : call.args.view) as View;
const publishedFor = (user: string) => fake.calls('views.publish').filter((c) => c.args.user_id === user);

/** Waits for the next Home view published for `user` after `before` of them were seen. */
async function nextView(user: string, before: number): Promise<{ view: View; call: RecordedCall }> {
  const call = await fake.waitFor('views.publish', (c) => c.args.user_id === user && publishedFor(user).indexOf(c) >= before, WAIT);
  expect(call.status).toBe(200);
  expect(call.response).toMatchObject({ ok: true });
  return { view: viewOf(call), call };
}

async function openHome(user: string, tab: 'home' | 'messages' = 'home'): Promise<View> {
  const before = publishedFor(user).length;
  const res = await postToBolt(endpoint, appHomeOpenedBody({ user, tab }), SIGNING_SECRET, { contentType: 'application/json' });
  expect(res.status).toBe(200);
  return (await nextView(user, before)).view;
}

async function click(user: string, view: View, element: Element): Promise<View> {
  const before = publishedFor(user).length;
  const body = homeBlockActionsBody({
    user,
    view: view as unknown as Obj,
    action: { action_id: element.action_id, type: element.type, ...(element.value ? { value: element.value } : {}) },
  });
  expect((await postToBolt(endpoint, body, SIGNING_SECRET)).status).toBe(200);
  return (await nextView(user, before)).view;
}

// ---- reading a view as Slack shows it ---------------------------------------------------------

const texts = (view: View): string[] =>
  view.blocks.flatMap((b) => [
    b.text?.text ?? '',
    ...(b.elements ?? [])
      .map((e) => (e as { text?: unknown }).text as string | undefined)
      .filter((t): t is string => typeof t === 'string'),
  ]);
const shown = (view: View): string => texts(view).join('\n');
const buttons = (view: View): Element[] =>
  view.blocks
    .flatMap((b) => [...(b.type === 'actions' ? (b.elements ?? []) : []), ...(b.accessory ? [b.accessory] : [])])
    .filter((e) => e.type === 'button');
const button = (view: View, label: string, valuePart: string): Element => {
  const found = buttons(view).find((b) => b.text?.text === label && (b.value ?? '').includes(valuePart));
  expect(found, `no ${label} button for ${valuePart} in:\n${shown(view)}`).toBeDefined();
  return found!;
};

/** The recent lookups, as Slack lists them: each name and its View button's target, top to bottom. */
function recentList(view: View): { text: string; target: string }[] {
  return view.blocks
    .filter((b) => b.type === 'section' && b.accessory?.text?.text === 'View')
    .map((b) => ({ text: b.text!.text, target: b.accessory!.value! }));
}

/** The view as an independent check of Block Kit reads it, bar the two limits where a Home tab differs from a message. */
function problems(view: View): string[] {
  return validateMessage({ blocks: view.blocks }).filter(
    (p) => !/^blocks: \d+ blocks, limit 50$/.test(p) && !/characters of visible text/.test(p),
  );
}

const digestIdFrom = (text: string): number => Number(/Digest #(\d+)/.exec(text)![1]);

async function addDigest(user: string, channel: string, text: string): Promise<number> {
  const seen = new Set(fake.calls('chat.postMessage'));
  await command(text, user, channel);
  const added = await fake.waitFor(
    'chat.postMessage',
    (c) => !seen.has(c) && c.args.channel === channel && /^Digest #\d+ added/.test(headerOf(c.args) ?? ''),
    WAIT,
  );
  return digestIdFrom(headerOf(added.args)!);
}

const caller = (userId: string, channelId: string): Caller => ({
  platform: 'slack',
  userId,
  channelId,
  workspaceId: TEAM,
  canManageDigests: true,
});

// -------------------------------------------------------------------------------------------------

describe('the Home tab', () => {
  it('shows the person’s recent lookups, newest first, each with a View button and its PoL at a glance', async () => {
    await command('binance', ADMIN, OPS);
    await fake.waitFor('chat.postMessage', (c) => c.args.channel === OPS && /Binance/.test(headerOf(c.args) ?? ''), WAIT);
    await command('uniswap', ADMIN, OPS);
    await fake.waitFor('chat.postMessage', (c) => c.args.channel === OPS && /Uniswap/.test(headerOf(c.args) ?? ''), WAIT);
    // Remembered in the database, as every replica would read it.
    const store = new RecentLookups(db);
    await vi.waitFor(
      async () =>
        expect((await store.list({ platform: 'slack', workspaceId: TEAM, userId: ADMIN }, 10)).map((r) => r.slug)).toEqual([
          'uniswap',
          'binance',
        ]),
      { timeout: WAIT },
    );

    const view = await openHome(ADMIN);
    expect(view.type).toBe('home');
    expect(problems(view)).toEqual([]);
    const recent = recentList(view);
    expect(recent.map((r) => r.target)).toEqual(['project:uniswap', 'exchange:binance']);
    const binance = core.upstream.sim!.store.exchange('binance')!;
    const binancePol = binance.pol.at(-1)!;
    expect(recent[1]!.text).toContain('*Binance* · exchange');
    expect(recent[1]!.text).toContain(`PoL ${polText(binancePol)} · ${ratingForPol(binancePol)}`);
    const uniswapPol = core.upstream.sim!.store.project('uniswap')!.pol.at(-1)!;
    expect(recent[0]!.text).toContain('*Uniswap* · project');
    expect(recent[0]!.text).toContain(`PoL ${polText(uniswapPol)} · ${ratingForPol(uniswapPol)}`);
    // Which way PoL runs, and that the numbers are the simulator's.
    expect(shown(view)).toContain('lower is safer');
    expect(shown(view)).toContain('SIMULATED DATA');
    // The Messages tab opening is not the Home tab: nothing is drawn for it. Events are taken in
    // the order they come, so once the Home tab that follows is drawn, the first would have been.
    const before = publishedFor(ADMIN).length;
    await postToBolt(endpoint, appHomeOpenedBody({ user: ADMIN, tab: 'messages' }), SIGNING_SECRET, { contentType: 'application/json' });
    await openHome(ADMIN);
    expect(publishedFor(ADMIN)).toHaveLength(before + 1);
  });

  it('sends the card of a recent lookup to the person’s Messages tab, and says so at the top of Home', async () => {
    const home = await openHome(ADMIN);
    const dm = fake.home.dmOf(ADMIN);
    const after = await click(ADMIN, home, button(home, 'View', 'exchange:binance'));
    const card = await fake.waitFor('chat.postMessage', (c) => c.args.channel === dm && /Binance/.test(headerOf(c.args) ?? ''), WAIT);
    expect(JSON.stringify(card.args.blocks)).toContain(polText(core.upstream.sim!.store.exchange('binance')!.pol.at(-1)!));
    expect(fake.calls('conversations.open').some((c) => c.args.users === ADMIN)).toBe(true);
    // Home says where it went, with a link to the app's conversation; Binance is the newest lookup now.
    const notice = await vi.waitFor(
      () => {
        const latest = viewOf(publishedFor(ADMIN).at(-1)!);
        expect(shown(latest)).toMatch(
          /Binance.* is in your <https:\/\/slack\.com\/app_redirect\?app=A0FAKEAPP1&team=T0FAKE0001\|Messages tab>/,
        );
        return latest;
      },
      { timeout: WAIT },
    );
    expect(problems(after)).toEqual([]);
    await vi.waitFor(async () => expect(recentList(await openHome(ADMIN))[0]!.target).toBe('exchange:binance'), { timeout: WAIT });
    expect(problems(notice)).toEqual([]);
  });

  it('looks names up as the person types in the search box, and opens the one chosen', async () => {
    const res = await postToBolt(
      endpoint,
      homeBlockSuggestionBody({ user: ADMIN, action_id: 'pol_home_search', block_id: 'pol_home_search', value: 'krak' }),
      SIGNING_SECRET,
    );
    expect(res.status).toBe(200);
    const options = (JSON.parse(res.body) as { options: { text: { text: string }; value: string }[] }).options;
    expect(options).toContainEqual({ text: { type: 'plain_text', text: 'Kraken · exchange' }, value: 'exchange:kraken' });
    expect(options.length).toBeLessThanOrEqual(100);

    const home = await openHome(ADMIN);
    const search = home.blocks.find((b) => b.accessory?.type === 'external_select')!;
    expect(search.block_id).toBe('pol_home_search');
    const before = publishedFor(ADMIN).length;
    const body = homeBlockActionsBody({
      user: ADMIN,
      view: home as unknown as Obj,
      action: {
        action_id: search.accessory!.action_id,
        block_id: search.block_id,
        type: 'external_select',
        selected_option: { text: { type: 'plain_text', text: 'Kraken · exchange' }, value: 'exchange:kraken' },
      },
    });
    expect((await postToBolt(endpoint, body, SIGNING_SECRET)).status).toBe(200);
    await fake.waitFor('chat.postMessage', (c) => c.args.channel === fake.home.dmOf(ADMIN) && /Kraken/.test(headerOf(c.args) ?? ''), WAIT);
    await nextView(ADMIN, before);
    await vi.waitFor(async () => expect(recentList(await openHome(ADMIN))[0]!.text).toContain('*Kraken* · exchange'), { timeout: WAIT });
  });

  it('lists the digests and alert rules of the person’s channels; Pause pauses the digest through the command, tells the channel and redraws Home', async () => {
    const digestId = await addDigest(ADMIN, OPS, 'digest add bitcoin, ethereum daily at 09:00 tz Europe/Berlin');
    await command('alert add binance when pol above 5%', ADMIN, OPS);
    await vi.waitFor(async () => expect(await alerts.store.listChannel('slack', OPS)).toHaveLength(1), { timeout: WAIT });
    const ruleId = (await alerts.store.listChannel('slack', OPS))[0]!.id;
    // A digest in a private channel the admin is not in.
    const added = await core.run('digest add kraken weekly monday at 07:00', caller(VIEWER, SECRET));
    const hidden = digestIdFrom(JSON.stringify(added.reply));

    const home = await openHome(ADMIN);
    expect(problems(home)).toEqual([]);
    const text = shown(home);
    expect(text).toContain(`*Digest #${digestId}* in <#${OPS}> · daily at 09:00 Europe/Berlin`);
    expect(text).toContain('Bitcoin, Ethereum');
    expect(text).toContain(`*Alert rule #${ruleId}* in <#${OPS}> · when pol above 5%`);
    expect(text).not.toContain(`Digest #${hidden}*`);
    const remove = button(home, 'Remove', `${OPS} digest remove ${digestId}`);
    expect(remove.confirm).toBeDefined();

    const paused = await click(ADMIN, home, button(home, 'Pause', `${OPS} digest pause ${digestId}`));
    expect((await digests.store.get(digestId))?.state).toBe('paused');
    // The command's own words, at the top of Home and in the channel, as `/pol digest pause` says them there.
    expect(paused.blocks.find((b) => b.type === 'header' && b.text?.text === `Digest #${digestId} paused`)).toBeDefined();
    expect(shown(paused)).toContain(`Also posted in <#${OPS}>.`);
    await fake.waitFor('chat.postMessage', (c) => c.args.channel === OPS && headerOf(c.args) === `Digest #${digestId} paused`, WAIT);
    expect(shown(paused)).toMatch(new RegExp(`Digest #${digestId}\\* in <#${OPS}>[^\\n]*\\n[^\\n]*\\n:double_vertical_bar: Paused`));
    expect(problems(paused)).toEqual([]);

    const resumed = await click(ADMIN, paused, button(paused, 'Resume', `${OPS} digest resume ${digestId}`));
    expect((await digests.store.get(digestId))?.state).toBe('active');
    expect(button(resumed, 'Pause', `${OPS} digest pause ${digestId}`)).toBeDefined();

    const ruleGone = await click(ADMIN, resumed, button(resumed, 'Remove', `${OPS} alert remove ${ruleId}`));
    expect(await alerts.store.getInChannel(ruleId, 'slack', OPS)).toBeNull();
    expect(shown(ruleGone)).not.toContain(`Alert rule #${ruleId}*`);
  });

  it('shows a person without the right to manage digests the same list, without buttons; a click anyway is refused by the command', async () => {
    const digestId = (await digests.store.listChannel('slack', OPS))[0]!.id;
    const home = await openHome(VIEWER);
    expect(problems(home)).toEqual([]);
    expect(shown(home)).toContain(`*Digest #${digestId}* in <#${OPS}>`);
    // Their own private channel's digest is theirs to see.
    expect(shown(home)).toMatch(/\*Digest #\d+\* in <#G0HOMESEC1>/);
    expect(buttons(home).filter((b) => /^pol_home_manage_/.test(b.action_id))).toEqual([]);
    expect(shown(home)).toContain('Only this workspace’s digest admins can pause, resume or remove them.');

    // A forged or stale button: the command core still says no, and nothing changes.
    const refused = await click(VIEWER, home, { type: 'button', action_id: 'pol_home_manage_0', value: `${OPS} digest pause ${digestId}` });
    expect((await digests.store.get(digestId))?.state).toBe('active');
    expect(shown(refused)).toContain('You are not allowed to add, remove, pause or resume digests here.');
  });

  it('draws a valid view for a person with 60 digests, naming how many more there are and where', async () => {
    const channels = Array.from({ length: 6 }, (_, i) => `C0HOMEBIG${i}`);
    for (const c of channels) {
      fake.home.join(BIG, c);
      for (let i = 0; i < 10; i++) {
        const r = await core.run(
          `digest add bitcoin, ethereum, binance, kraken daily at ${String(i).padStart(2, '0')}:30 tz Europe/Berlin`,
          caller(BIG, c),
        );
        expect(r.reply.kind, JSON.stringify(r.reply)).not.toBe('error');
      }
    }
    const rule = await core.run('alert add aave when pol above 9%', caller(BIG, channels[0]!));
    expect(rule.reply.kind).not.toBe('error');

    const view = await openHome(BIG);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(view).length).toBeLessThan(250_000);
    expect(problems(view)).toEqual([]);
    const listed = view.blocks.filter((b) => b.type === 'section' && /^\*Digest #\d+\*/.test(b.text?.text ?? '')).length;
    expect(listed).toBeGreaterThan(10);
    const more = /…and (\d+) more digests in ([^:]+):/.exec(shown(view));
    expect(more, shown(view)).not.toBeNull();
    expect(listed + Number(more![1])).toBe(60);
    expect(more![2]).toContain('<#C0HOMEBIG5>');
    expect(shown(view)).toContain('`/pol digest list`');
    // The alert rule still has its place beside sixty digests.
    expect(shown(view)).toMatch(/\*Alert rule #\d+\* in <#C0HOMEBIG0> · when pol above 9%/);
  });
});

describe('the Home tab when Slack or the data says no', () => {
  it('says why the digests are missing when Slack will not list the person’s channels', async () => {
    const newcomer = 'U0HOMENEW1';
    fake.home.join(newcomer, OPS);
    fake.failNext('users.conversations', { error: 'missing_scope' });
    const view = await openHome(newcomer);
    expect(problems(view)).toEqual([]);
    expect(shown(view)).toContain('polbot needs to be reinstalled from its manifest to read which channels you are in');
    expect(shown(view)).not.toContain('*Digest #');
    // Not remembered: the next look asks Slack again and finds the channel's digest.
    expect(shown(await openHome(newcomer))).toMatch(new RegExp(`\\*Digest #\\d+\\* in <#${OPS}>`));
  });

  it('keeps names from the upstream inert: no mention, link or formatting leaves the builder', () => {
    const view = homeView({
      now: Date.parse('2026-11-22T09:00:00Z'),
      recent: [{ kind: 'project', slug: 'evil', name: '<!channel> *bold* `code` <https://evil.example|bank>', lookedUpAt: 0 }],
      manage: null,
    });
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://evil.example');
    expect(text).not.toContain('`code`');
    expect(problems(view as unknown as View)).toEqual([]);
  });
});

describe('recent lookups', () => {
  it('keep at most 20 a person, one row per entity, newest first, apart for each workspace and person', async () => {
    // The store of the app above, migrated as polbot migrates it; other workspaces' rows, so nothing above is touched.
    const own = db;
    {
      const store = new RecentLookups(own);
      const me = { platform: 'slack' as const, workspaceId: 'T1', userId: 'U1' };
      for (let i = 0; i < 25; i++) await store.record(me, { kind: 'project', slug: `p${i}`, name: `P ${i}` }, 1_000 + i);
      await store.record({ ...me, userId: 'U2' }, { kind: 'exchange', slug: 'kraken', name: 'Kraken' }, 5_000);
      await store.record({ ...me, workspaceId: 'T2' }, { kind: 'exchange', slug: 'okx', name: 'OKX' }, 5_000);
      const [kept] = await own.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM recent_lookups WHERE workspace_id = 'T1' AND user_id = 'U1'`,
      );
      expect(kept?.n).toBe(20);
      // Looking one up again moves it to the top instead of adding a row.
      await store.record(me, { kind: 'project', slug: 'p10', name: 'P 10' }, 9_000);
      const list = await store.list(me, 10);
      expect(list.map((r) => r.slug)).toEqual(['p10', 'p24', 'p23', 'p22', 'p21', 'p20', 'p19', 'p18', 'p17', 'p16']);
      expect(list[0]!.lookedUpAt).toBe(9_000);
      expect((await store.list({ ...me, userId: 'U2' }, 10)).map((r) => r.slug)).toEqual(['kraken']);
      expect((await store.list({ ...me, workspaceId: 'T2' }, 10)).map((r) => r.slug)).toEqual(['okx']);
    }
  });
});
