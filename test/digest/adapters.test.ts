import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discordDeliverer } from '../../adapters/discord/index.js';
import { slackDeliverer, startSlack, type SlackAdapter } from '../../adapters/slack/index.js';
import { createLogger } from '../../src/log.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { startStack, type Stack } from '../discord/helpers.js';
import { createHarness, discordCaller, slackCaller, type Harness } from './harness.js';

/**
 * Digests delivered by the real adapters' deliverers (the ones `polbot start` wires in), not by
 * stand-ins: Block Kit with the chart file to the fake Slack, embeds with the attachment to the
 * fake Discord, and refusing channels marked failing.
 */
describe('digests through the real Slack and Discord adapters', () => {
  let h: Harness;
  let fakeSlack: FakeSlack;
  let slack: SlackAdapter;
  let discord: Stack;
  beforeAll(async () => {
    h = await createHarness('pglite', { start: '2026-11-20T07:00:00Z' });
    fakeSlack = await startFakeSlack();
    slack = await startSlack({
      core: h.core,
      slack: { botToken: fakeSlack.botToken, signingSecret: 'digest-adapter-test-secret', apiUrl: fakeSlack.url },
      http: { port: 0, host: '127.0.0.1' },
      log: createLogger({ level: 'silent' }),
      retryConfig: { retries: 0 },
    });
    discord = await startStack({ RATE_LIMIT_PER_USER: '0' });
    fakeSlack.failChannel('C-GONE', 'channel_not_found');
  }, 60_000);
  afterAll(async () => {
    await slack.stop();
    await discord.close();
    await fakeSlack.close();
    await h.close();
  });

  it('posts the watchlist with its chart and marks a refusing channel failing', async () => {
    const ok = await h.add('digest add bitcoin, binance, pepe daily at 09:00 tz Europe/Berlin', slackCaller('C-RISK'));
    const gone = await h.add('digest add bitcoin daily at 09:00 tz Europe/Berlin', slackCaller('C-GONE'));
    const onDiscord = await h.add('digest add kraken, okx daily at 09:00 tz Europe/Berlin', discordCaller(discord.channelId));
    const deliverers = [slackDeliverer(slack), discordDeliverer(discord.handle)] as const;
    const scheduler = h.scheduler(deliverers);
    h.clock.set('2026-11-20T08:00:30Z');
    const report = await scheduler.tick();
    expect(report.delivered).toBe(2);
    expect(report.failed).toBe(1);

    const post = fakeSlack.calls('chat.postMessage').find((c) => c.args.channel === 'C-RISK')!;
    const blocks = JSON.stringify(post.args.blocks);
    expect(blocks).toContain('Pepe (PEPE)');
    expect(blocks).toContain('lower is safer');
    expect(blocks).toContain(`digest #${ok}`);
    expect(fakeSlack.uploads().some((u) => u.bytes.subarray(1, 4).toString() === 'PNG')).toBe(true);

    const posted = discord.fake.calls((c) => c.method === 'POST' && c.path.endsWith(`/channels/${discord.channelId}/messages`));
    expect(posted).toHaveLength(1);
    expect(JSON.stringify(posted[0]!.body)).toContain('Kraken');
    expect(JSON.stringify(posted[0]!.body)).toContain(`digest #${onDiscord}`);
    expect(posted[0]!.files.some((f) => f.bytes.subarray(1, 4).toString() === 'PNG')).toBe(true);

    // After a crash, a run taken over looks its key up in the channel before posting again.
    expect(await deliverers[0].alreadyDelivered!('C-RISK', `digest #${ok} ·`)).toBe(true);
    expect(await deliverers[0].alreadyDelivered!('C-RISK', 'digest #9999 ·')).toBe(false);
    expect(await deliverers[1].alreadyDelivered!(discord.channelId, `digest #${onDiscord} ·`)).toBe(true);
    expect(await deliverers[1].alreadyDelivered!(discord.channelId, 'digest #9999 ·')).toBe(false);

    const digest = await h.store.get(gone);
    expect(digest?.state).toBe('failing');
    const list = JSON.stringify(await h.ask('digest list', slackCaller('C-GONE')));
    expect(list).toMatch(/failing/);
    expect(list).toMatch(/no longer exists/);
  });
});
