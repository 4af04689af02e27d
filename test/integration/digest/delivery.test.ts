import { tableRowsOf } from '../../helpers/slack/harness.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { discordDeliverer, startDiscord, type DiscordHandle } from '../../../adapters/discord/index.js';
import { slackDeliverer, startSlack, type SlackAdapter } from '../../../adapters/slack/index.js';
import type { Deliverer } from '../../../src/delivery/port.js';
import { createLogger } from '../../../src/log.js';
import type { TableReply } from '../../../src/reply/model.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { createHarness, discordCaller, slackCaller, type Harness } from '../../helpers/digest/harness.js';
import { ENGINES } from '../../helpers/digest/helpers.js';

/**
 * Digests delivered as `polbot start` delivers them: the product's Slack and Discord deliverers on
 * the real adapters (Bolt's Web API client, discord.js REST), against the fake platforms on
 * loopback. What reached a channel is read back from the fake's channel, never from the renderer.
 */

const at = Date.parse;
const GUILD = '1100000000000000001';
const MISSING_CHANNEL = '1200000000000000404';
const LOCKED_CHANNEL = '1200000000000000403';
/** HTTP mode needs one; nothing here signs with it. One of the suite's fixed secrets (test/helpers/secret-watch.ts). */
const SIGNING_SECRET = 'digest-adapter-test-secret';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe.each(ENGINES)('digest delivery through the Slack and Discord adapters on %s', (engine) => {
  let h: Harness;
  let fakeSlack: FakeSlack;
  let fakeDiscord: FakeDiscord;
  let slack: SlackAdapter;
  let discord: DiscordHandle;
  let deliverers: [Deliverer, Deliverer];
  let discordChannel: string;

  beforeAll(async () => {
    [h, fakeSlack, fakeDiscord] = await Promise.all([createHarness(engine), startFakeSlack(), startFakeDiscord({ guildIds: [GUILD] })]);
    discordChannel = fakeDiscord.channelIds[GUILD]!;
    fakeDiscord.addChannel(LOCKED_CHANNEL, GUILD, 'locked');
    fakeDiscord.failChannel(LOCKED_CHANNEL, { status: 403, code: 50013, message: 'Missing Permissions' });
    fakeSlack.failChannel('C-ARCHIVED', 'is_archived');
    fakeSlack.failChannel('C-KICKED', 'not_in_channel');
    fakeSlack.failChannel('C-GONE', 'channel_not_found');
    const log = createLogger({ level: 'silent' });
    [slack, discord] = await Promise.all([
      startSlack({
        core: h.core,
        slack: { botToken: fakeSlack.botToken, signingSecret: SIGNING_SECRET, apiUrl: fakeSlack.url },
        http: { host: '127.0.0.1', port: 0 },
        log,
      }),
      startDiscord({
        core: h.core,
        discord: { token: fakeDiscord.token, applicationId: fakeDiscord.applicationId, apiUrl: fakeDiscord.apiUrl, guildId: GUILD },
        log,
        readyTimeoutMs: 10_000,
      }),
    ]);
    deliverers = [slackDeliverer(slack), discordDeliverer(discord)];
  });
  afterEach(() => h.reset());
  afterAll(async () => {
    await Promise.all([slack?.stop(), discord?.stop()]);
    await Promise.all([h.close(), fakeSlack.close(), fakeDiscord.close()]);
  });

  /** The channel's messages as Slack lists them (newest first), read straight from the fake. */
  const slackChannel = async (channel: string) => {
    const res = await fetch(`${fakeSlack.url}conversations.history`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fakeSlack.botToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ channel, limit: '999' }).toString(),
    });
    const body = (await res.json()) as { ok: boolean; messages?: { text: string; blocks?: unknown[] }[] };
    if (!body.ok) throw new Error(`conversations.history: ${JSON.stringify(body)}`);
    return body.messages ?? [];
  };
  /** Slack calls that post into or read the channel, in the order they arrived. */
  const slackTraffic = (channel: string) =>
    fakeSlack
      .calls()
      .filter((c) => (c.method === 'chat.postMessage' || c.method === 'conversations.history') && c.args.channel === channel)
      .map((c) => `${c.method} ${(c.response as { ok?: boolean }).ok ? 'ok' : (c.response as { error?: string }).error}`);
  /** Discord requests on the channel's messages, in the order they arrived. */
  const discordTraffic = (channel: string) =>
    fakeDiscord.calls({ path: `/channels/${channel}/messages` }).map((c) => `${c.method} ${c.status}`);

  it('posts each digest once, retries a transient error after looking in the channel, and marks refusing channels failing', async () => {
    h.clock.set('2026-11-20T07:00:00Z');
    const ok = {
      slack: await h.add('digest add bitcoin, binance, pepe daily at 09:00', slackCaller('C-RISK')),
      discord: await h.add('digest add bitcoin, kraken daily at 10:00 tz Europe/Berlin', discordCaller(discordChannel)),
    };
    const failing = {
      archived: await h.add('digest add bitcoin daily at 09:00', slackCaller('C-ARCHIVED')),
      kicked: await h.add('digest add bitcoin daily at 09:00', slackCaller('C-KICKED')),
      gone: await h.add('digest add bitcoin daily at 09:00', slackCaller('C-GONE')),
      missing: await h.add('digest add bitcoin daily at 09:00', discordCaller(MISSING_CHANNEL)),
      locked: await h.add('digest add bitcoin daily at 09:00', discordCaller(LOCKED_CHANNEL)),
    };
    const keys = {
      slack: `digest #${ok.slack} · 2026-11-20 09:00 UTC`,
      discord: `digest #${ok.discord} · 2026-11-20 10:00 Europe/Berlin (GMT+1)`,
    };
    // A transient failure on each platform's first post. discord.js itself retries a 5xx three
    // times, so the fourth 502 is the one the scheduler sees.
    fakeSlack.failNext('chat.postMessage', { error: 'service_unavailable' });
    fakeDiscord.failNext('POST /channels/:channelId/messages', { status: 502, message: 'Bad Gateway', times: 4 });

    const report = await h.scheduler(deliverers, { concurrency: 1 }).tick(at('2026-11-20T09:00:00Z'));
    expect(report).toMatchObject({ claimed: 7, delivered: 2, failed: 5, lost: 0 });
    // Each first post refused; the retry looked for the key in the channel before posting again.
    expect(slackTraffic('C-RISK')).toEqual(['chat.postMessage service_unavailable', 'conversations.history ok', 'chat.postMessage ok']);
    expect(discordTraffic(discordChannel)).toEqual(['POST 502', 'POST 502', 'POST 502', 'POST 502', 'GET 200', 'POST 200']);

    // Slack: one message in the channel, with the table, the key and the simulated-data label.
    const [slackMessage, ...moreSlack] = await slackChannel('C-RISK');
    expect(moreSlack).toEqual([]);
    const slackTexts = (slackMessage!.blocks as { text?: { text?: string }; elements?: { text?: string }[] }[]).flatMap((b) => [
      b.text?.text ?? '',
      ...(b.elements ?? []).map((e) => e.text ?? ''),
    ]);
    expect(slackTexts[0]).toBe(`Watchlist digest #${ok.slack}`);
    expect(slackTexts).toContain(keys.slack);
    // The watchlist as Slack's own table: its header, then a row per name.
    expect(tableRowsOf(slackMessage!.blocks)?.map((r) => r[0])).toEqual(['Name', 'Bitcoin (BTC)', 'Binance', 'Pepe (PEPE)']);
    expect(tableRowsOf(slackMessage!.blocks)?.[0]).toEqual(['Name', 'PoL', 'Change', 'Rating']);
    expect(slackTexts.join('\n')).toContain('PoL: lower is safer');
    expect(slackMessage!.text).toContain('SIMULATED DATA');
    // Its chart is inside it: an image block showing the PNG, uploaded once (the retry showed the
    // same file) and shared into no channel, so it is not a message of its own. The channels that
    // refused the digest cost an upload nobody sees, never a message.
    const charts = fakeSlack.uploads().filter((u) => u.filename === `digest-${ok.slack}-watchlist-30d.png`);
    expect(charts.map((u) => u.bytes.subarray(0, 8).equals(PNG))).toEqual([true]);
    expect((slackMessage!.blocks as { type: string }[]).filter((b) => b.type === 'image')).toEqual([
      { type: 'image', slack_file: { id: charts[0]!.file_id }, alt_text: expect.stringContaining('PoL') },
    ]);
    expect(fakeSlack.files().filter((f) => f.channels.length > 0)).toEqual([]);

    // Discord: one message with its embed, the key and the chart attached.
    const [discordMessage, ...moreDiscord] = fakeDiscord.messages(discordChannel);
    expect(moreDiscord).toEqual([]);
    const [embed, ...moreEmbeds] = discordMessage!.embeds;
    expect(moreEmbeds).toEqual([]);
    expect(embed).toMatchObject({
      title: `Watchlist digest #${ok.discord}`,
      image: { url: `attachment://digest-${ok.discord}-watchlist-30d.png` },
    });
    expect(embed!.description).toMatch(/```\nName +PoL +Change +Rating\n[- ]+\nBitcoin \(BTC\) .+\nKraken .+\n```/);
    expect(embed!.footer?.text).toContain(keys.discord);
    expect(embed!.footer?.text).toContain('SIMULATED DATA');
    expect(discordMessage!.attachments.map((a) => a.filename)).toEqual([`digest-${ok.discord}-watchlist-30d.png`]);
    const accepted = fakeDiscord.calls({ method: 'POST', path: `/channels/${discordChannel}/messages` }).filter((c) => c.status === 200);
    expect(accepted.flatMap((c) => c.files.map((f) => f.bytes.subarray(0, 8).equals(PNG)))).toEqual([true]);

    // What a replica taking the run over would ask: the keys are found in the channels, through
    // the adapters' own history reads; another digest's key or another day's is not.
    const [viaSlack, viaDiscord] = deliverers;
    expect(await landed(viaSlack, 'C-RISK', keys.slack)).toBe(true);
    expect(await landed(viaSlack, 'C-RISK', `digest #${ok.slack} · 2026-11-21 09:00 UTC`)).toBe(false);
    expect(await landed(viaSlack, 'C-RISK', `digest #${ok.discord} · 2026-11-20 09:00 UTC`)).toBe(false);
    expect(await landed(viaDiscord, discordChannel, keys.discord)).toBe(true);
    expect(await landed(viaDiscord, discordChannel, `digest #${ok.discord} · 2026-11-21 10:00 Europe/Berlin (GMT+1)`)).toBe(false);
    expect(await landed(viaDiscord, discordChannel, `digest #${ok.slack} · 2026-11-20 10:00 Europe/Berlin (GMT+1)`)).toBe(false);

    // Refusing channels: one attempt each, never retried nor looked into, and the digest is
    // failing with the reason.
    for (const channel of ['C-ARCHIVED', 'C-KICKED', 'C-GONE'])
      expect(slackTraffic(channel), channel).toEqual([expect.stringMatching(/^chat\.postMessage (?!ok)/)]);
    expect(discordTraffic(MISSING_CHANNEL)).toEqual(['POST 404']);
    expect(discordTraffic(LOCKED_CHANNEL)).toEqual(['POST 403']);
    const reasons = Object.fromEntries(await Promise.all(Object.entries(failing).map(async ([k, id]) => [k, await h.store.get(id)])));
    expect(reasons).toMatchObject({
      archived: { state: 'failing', stateReason: 'the channel is archived' },
      kicked: { state: 'failing', stateReason: 'polbot is not a member of this channel (invite it with /invite)' },
      gone: { state: 'failing', stateReason: 'the channel no longer exists or polbot cannot see it' },
      missing: { state: 'failing', stateReason: 'the channel no longer exists' },
      locked: { state: 'failing', stateReason: 'the bot lacks permission to post there (Send Messages, Embed Links, Attach Files)' },
    });
    const list = (await h.ask('digest list', discordCaller(LOCKED_CHANNEL, '300000000000000002', false))) as TableReply;
    expect(list.rows[0]).toMatchObject({
      id: String(failing.locked),
      state: 'failing: the bot lacks permission to post there (Send Messages, Embed Links, Attach Files)',
    });

    // The next day: the healthy digests again, once each, the failing ones not at all.
    fakeSlack.clear();
    fakeDiscord.clear();
    h.expireCache();
    expect(await h.scheduler(deliverers).tick(at('2026-11-21T09:00:00Z'))).toMatchObject({ claimed: 2, delivered: 2, failed: 0 });
    expect(fakeSlack.calls('chat.postMessage').map((c) => c.args.channel)).toEqual(['C-RISK']);
    expect(fakeDiscord.calls({ method: 'POST' }).map((c) => c.path)).toEqual([`/channels/${discordChannel}/messages`]);
    const slackNow = await slackChannel('C-RISK');
    expect(slackNow).toHaveLength(2);
    expect(JSON.stringify(slackNow[0])).toContain(`digest #${ok.slack} · 2026-11-21 09:00 UTC`);
    expect(fakeDiscord.messages(discordChannel)).toHaveLength(2);
    expect(JSON.stringify(fakeDiscord.messages(discordChannel)[1])).toContain(
      `digest #${ok.discord} · 2026-11-21 10:00 Europe/Berlin (GMT+1)`,
    );
  });
});

/** Whether the deliverer finds a message carrying `key` in the channel. */
async function landed(deliverer: Deliverer, channelId: string, key: string): Promise<boolean> {
  return (await deliverer.find!(channelId, key)) !== null;
}
