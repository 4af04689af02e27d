import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey } from '../../src/digest/content.js';
import type { TableReply } from '../../src/reply/model.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { testDiscordDeliverer, testSlackDeliverer } from './deliverers.js';
import { createHarness, discordCaller, slackCaller, type Harness } from './harness.js';
import { ENGINES } from './helpers.js';

const at = Date.parse;
const GUILD = '1100000000000000001';
const MISSING_CHANNEL = '1200000000000000404';
const LOCKED_CHANNEL = '1200000000000000403';

describe.each(ENGINES)('digest delivery to the fake Slack and Discord on %s', (engine) => {
  let h: Harness;
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let discordChannel: string;
  let discordRest: { rest: { clearHashSweeper(): void; clearHandlerSweeper(): void } } | undefined;

  beforeAll(async () => {
    [h, slack, discord] = await Promise.all([createHarness(engine), startFakeSlack(), startFakeDiscord({ guildIds: [GUILD] })]);
    discordChannel = discord.channelIds[GUILD]!;
    discord.addChannel(LOCKED_CHANNEL, GUILD, 'locked');
    discord.failChannel(LOCKED_CHANNEL, { status: 403, code: 50013, message: 'Missing Permissions' });
    slack.failChannel('C-ARCHIVED', 'is_archived');
    slack.failChannel('C-KICKED', 'not_in_channel');
  });
  afterEach(() => h.reset());
  afterAll(async () => {
    discordRest?.rest.clearHashSweeper();
    discordRest?.rest.clearHandlerSweeper();
    await Promise.all([h.close(), slack.close(), discord.close()]);
  });

  const slackTexts = (channel: string) =>
    slack
      .calls('chat.postMessage')
      .filter((c) => c.args.channel === channel && (c.response as { ok?: boolean }).ok)
      .map((c) => String(c.args.text));

  it('posts through the real client libraries, retries a transient error, and marks refusing channels failing', async () => {
    const slackDeliverer = testSlackDeliverer({ apiUrl: slack.url, token: slack.botToken });
    const discordDeliverer = testDiscordDeliverer({ apiUrl: discord.apiUrl, token: discord.token });
    discordRest = discordDeliverer;
    h.clock.set('2026-11-20T07:00:00Z');
    const ok = {
      slack: await h.add('digest add bitcoin, binance, pepe daily at 09:00', slackCaller('C-RISK')),
      discord: await h.add('digest add bitcoin, kraken daily at 09:00', discordCaller(discordChannel)),
    };
    const failing = {
      archived: await h.add('digest add bitcoin daily at 09:00', slackCaller('C-ARCHIVED')),
      kicked: await h.add('digest add bitcoin daily at 09:00', slackCaller('C-KICKED')),
      missing: await h.add('digest add bitcoin daily at 09:00', discordCaller(MISSING_CHANNEL)),
      locked: await h.add('digest add bitcoin daily at 09:00', discordCaller(LOCKED_CHANNEL)),
    };
    // One transient failure on each platform, on the first attempt.
    slack.failNext('chat.postMessage', { error: 'service_unavailable' });
    discord.failNext('POST /channels/:channelId/messages', { status: 502, message: 'Bad Gateway' });

    const slot = at('2026-11-20T09:00:00Z');
    const report = await h.scheduler([slackDeliverer, discordDeliverer], { concurrency: 1 }).tick(slot);
    expect(report).toMatchObject({ claimed: 6, delivered: 2, failed: 4 });

    const [slackText] = slackTexts('C-RISK');
    expect(slackTexts('C-RISK')).toHaveLength(1);
    expect(slackText).toContain(`*Watchlist digest #${ok.slack}*`);
    expect(slackText).toContain(deliveryKey({ id: ok.slack, timezone: 'UTC' }, slot));
    expect(slackText).toMatch(/```\nName +PoL +Change +Rating\nBitcoin \(BTC\) /);
    expect(slackText).toContain('SIMULATED DATA');

    const messages = discord.messages(discordChannel);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.embeds[0]).toMatchObject({ title: `Watchlist digest #${ok.discord}` });
    expect(messages[0]!.embeds[0]!.description).toContain(deliveryKey({ id: ok.discord, timezone: 'UTC' }, slot));
    expect(messages[0]!.attachments.map((a) => a.filename)).toEqual([`digest-${ok.discord}-watchlist-30d.png`]);

    // The transient errors were retried: two attempts each, one message each.
    expect(slack.calls('chat.postMessage').filter((c) => c.args.channel === 'C-RISK')).toHaveLength(2);
    expect(discord.calls({ method: 'POST', path: `/channels/${discordChannel}/messages` }).map((c) => c.status)).toEqual([502, 200]);

    // Refusing channels: one attempt each, never retried, and the digest is failing with the reason.
    expect(slack.calls('chat.postMessage').filter((c) => c.args.channel === 'C-ARCHIVED')).toHaveLength(1);
    expect(discord.calls({ method: 'POST', path: `/channels/${MISSING_CHANNEL}/messages` })).toHaveLength(1);
    const reasons = Object.fromEntries(await Promise.all(Object.entries(failing).map(async ([k, id]) => [k, await h.store.get(id)])));
    expect(reasons).toMatchObject({
      archived: { state: 'failing', stateReason: 'Slack: the channel is archived' },
      kicked: { state: 'failing', stateReason: 'Slack: the bot is not a member of the channel; invite it, then resume the digest' },
      missing: { state: 'failing', stateReason: 'Discord: the channel no longer exists' },
      locked: { state: 'failing', stateReason: 'Discord: the bot lacks permission to post in the channel' },
    });
    const list = (await h.ask('digest list', discordCaller(LOCKED_CHANNEL, '300000000000000002', false))) as TableReply;
    expect(list.rows[0]).toMatchObject({ id: String(failing.locked), state: 'failing: Discord: the bot lacks permission to post in the channel' });

    // The next day: the healthy digests again, the failing ones not at all.
    slack.clear();
    discord.clear();
    h.expireCache();
    expect(await h.scheduler([slackDeliverer, discordDeliverer]).tick(at('2026-11-21T09:00:00Z'))).toMatchObject({ claimed: 2, delivered: 2 });
    expect(slack.calls('chat.postMessage').map((c) => c.args.channel)).toEqual(['C-RISK']);
    expect(discord.calls({ method: 'POST' }).map((c) => c.path)).toEqual([`/channels/${discordChannel}/messages`]);
    expect(discord.messages(discordChannel)).toHaveLength(2);
  });
});
