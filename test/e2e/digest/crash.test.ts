import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { buildSchedule } from '../../../src/digest/schedule.js';
import { DigestStore } from '../../../src/digest/store.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { platformEnv, replicaDatabase, startWorker } from '../../helpers/replica.js';
import { discordPost, slackPost, startHoldProxy, type HoldProxy } from '../../helpers/digest/hold-proxy.js';
import { ENGINES, type EngineName } from '../../helpers/digest/helpers.js';

const SLOT = Date.parse('2026-11-20T09:00:00Z');
const LEASE = 60_000;
const GUILD = '1100000000000000001';
/** The replica's Slack adapter runs in HTTP mode, which needs one; one of the suite's fixed secrets (test/helpers/secret-watch.ts). */
const SIGNING_SECRET = 'digest-adapter-test-secret';

describe.each(ENGINES)('a replica killed with SIGKILL in the middle of delivery, on %s', (engine: EngineName) => {
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let slackProxy: HoldProxy;
  let discordProxy: HoldProxy;
  let database: Record<string, string>;
  let cleanup: () => Promise<void>;
  let open: () => Promise<Db>;
  // Per platform, a channel whose post reaches the platform but whose answer is lost, and one
  // whose post never leaves the replica.
  const channels = {
    slack: { reached: 'C-KILL-REACHED', inFlight: 'C-KILL-IN-FLIGHT' },
    discord: { reached: '1200000000000000701', inFlight: '1200000000000000702' },
  } as const;
  const ids = { slack: { reached: 0, inFlight: 0 }, discord: { reached: 0, inFlight: 0 } };

  beforeAll(async () => {
    [slack, discord] = await Promise.all([startFakeSlack(), startFakeDiscord({ guildIds: [GUILD] })]);
    discord.addChannel(channels.discord.reached, GUILD, 'kill-reached');
    discord.addChannel(channels.discord.inFlight, GUILD, 'kill-in-flight');
    [slackProxy, discordProxy] = await Promise.all([
      startHoldProxy(slack.origin, slackPost),
      startHoldProxy(new URL(discord.apiUrl).origin, discordPost),
    ]);
    ({ env: database, open, cleanup } = await replicaDatabase(engine, 'polbot-crash-'));
    const db = await open();
    await migrate(db);
    const store = new DigestStore(db);
    const schedule = buildSchedule({ kind: 'daily', time: '09:00' });
    if (!schedule.ok) throw new Error(schedule.message);
    const entities = [{ kind: 'project' as const, slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' }];
    for (const platform of ['slack', 'discord'] as const) {
      for (const which of ['reached', 'inFlight'] as const) {
        const r = await store.create(
          { platform, channelId: channels[platform][which], entities, schedule: schedule.value, createdBy: 'U1' },
          SLOT - 3_600_000,
          10,
        );
        if (!r.ok) throw new Error('create failed');
        ids[platform][which] = r.digest.id;
      }
    }
    await db.close();
  });

  afterAll(async () => {
    await Promise.all([slackProxy.close(), discordProxy.close()]);
    await Promise.all([slack.close(), discord.close()]);
    await cleanup();
  });

  /** Every post Slack received for the channel, answered or not. */
  const slackPosts = (channel: string) => slack.calls('chat.postMessage').filter((c) => c.args.channel === channel);
  /** The messages in the channel, as Discord holds them. */
  const discordMessages = (channel: string) => discord.messages(channel);
  const workerEnv = (now: number) => ({
    ...database,
    ...platformEnv({
      slack,
      discord,
      origins: { slack: slackProxy.origin, discord: discordProxy.origin },
      guildId: GUILD,
      signingSecret: SIGNING_SECRET,
    }),
    DIGEST_WORKER_NOW: String(now),
    DIGEST_WORKER_LEASE: String(LEASE),
  });
  const allIds = () => [ids.slack.reached, ids.slack.inFlight, ids.discord.reached, ids.discord.inFlight];

  it('neither duplicates nor loses the slot after a restart, on Slack and on Discord', async () => {
    // On each platform one post reaches it but its answer never returns; the other never leaves the proxy.
    slackProxy.hold.set(channels.slack.reached, 'response');
    slackProxy.hold.set(channels.slack.inFlight, 'request');
    discordProxy.hold.set(channels.discord.reached, 'response');
    discordProxy.hold.set(channels.discord.inFlight, 'request');
    const first = startWorker('test/e2e/digest/worker-script.ts', 'digest worker', workerEnv(SLOT));
    await Promise.race([
      Promise.all([
        slack.waitFor('chat.postMessage', (c) => c.args.channel === channels.slack.reached, 30_000),
        discord.waitFor((c) => c.method === 'POST' && c.path === `/channels/${channels.discord.reached}/messages`, 30_000),
        slackProxy.arrived(channels.slack.inFlight),
        discordProxy.arrived(channels.discord.inFlight),
      ]),
      first.exited.then((e) => Promise.reject(new Error(`worker exited early (${JSON.stringify(e)}): ${first.lines.join('\n')}`))),
    ]);
    expect(first.child.kill('SIGKILL')).toBe(true);
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(first.lines).toEqual(['ready']);

    // What the dead replica left: every run claimed, content stored, nothing recorded as sent.
    let db = await open();
    let store = new DigestStore(db);
    for (const id of allIds()) {
      expect(await store.run(id, SLOT)).toMatchObject({
        status: 'claimed',
        partsSent: 0,
        attempts: 1,
        claimedBy: expect.stringMatching(/^worker-\d+$/),
      });
    }
    await db.close();
    expect(slackPosts(channels.slack.reached)).toHaveLength(1);
    expect(slackPosts(channels.slack.inFlight)).toHaveLength(0);
    expect(discordMessages(channels.discord.reached)).toHaveLength(1);
    expect(discordMessages(channels.discord.inFlight)).toHaveLength(0);

    // A new replica after the lease: each platform already has one digest (found in the channel's
    // history), the other is sent now.
    slackProxy.hold.clear();
    discordProxy.hold.clear();
    slack.clear();
    discord.clear();
    const second = startWorker('test/e2e/digest/worker-script.ts', 'digest worker', workerEnv(SLOT + LEASE + 1_000));
    const exit = await second.exited;
    expect(exit, second.lines.join('\n')).toEqual({ code: 0, signal: null });
    const report = JSON.parse(second.lines.find((l) => l.startsWith('report '))!.slice('report '.length)) as Record<string, number>;
    expect(report).toMatchObject({ claimed: 4, confirmed: 2, delivered: 2, failed: 0, lost: 0 });

    // The lookups went to the platforms' own history reads, once per taken-over channel.
    const histories = slack.calls('conversations.history').map((c) => c.args.channel);
    expect(histories.sort()).toEqual([channels.slack.inFlight, channels.slack.reached].sort());
    const listed = discord.calls((c) => c.method === 'GET' && /^\/channels\/\d+\/messages$/.test(c.path)).map((c) => c.path);
    expect(listed.sort()).toEqual(
      [`/channels/${channels.discord.inFlight}/messages`, `/channels/${channels.discord.reached}/messages`].sort(),
    );
    // The reached channels were not posted to again; the others were, once.
    expect(slackPosts(channels.slack.reached)).toHaveLength(0);
    expect(slackPosts(channels.slack.inFlight)).toHaveLength(1);
    const discordPosts = (channel: string) =>
      discord.calls((c) => c.method === 'POST' && c.path === `/channels/${channel}/messages`).map((c) => c.status);
    expect(discordPosts(channels.discord.reached)).toEqual([]);
    expect(discordPosts(channels.discord.inFlight)).toEqual([200]);

    // Exactly one digest in each channel, carrying its own run's key.
    const key = (id: number) => `digest #${id} · 2026-11-20 09:00 UTC`;
    for (const which of ['reached', 'inFlight'] as const) {
      const history = await slackHistory(channels.slack[which]);
      expect(history, which).toHaveLength(1);
      expect(JSON.stringify(history[0]), which).toContain(key(ids.slack[which]));
      const messages = discordMessages(channels.discord[which]);
      expect(messages, which).toHaveLength(1);
      expect(JSON.stringify(messages[0]), which).toContain(key(ids.discord[which]));
    }
    db = await open();
    store = new DigestStore(db);
    for (const id of allIds()) {
      expect(await store.run(id, SLOT)).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(await store.get(id)).toMatchObject({ lastSlot: SLOT, state: 'active' });
    }
    await db.close();
  }, 90_000);

  /** The channel's messages as Slack lists them to anyone reading the channel. */
  async function slackHistory(channel: string): Promise<unknown[]> {
    const res = await fetch(`${slack.url}conversations.history`, {
      method: 'POST',
      headers: { authorization: `Bearer ${slack.botToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ channel, limit: '999' }).toString(),
    });
    const body = (await res.json()) as { ok: boolean; messages?: unknown[] };
    if (!body.ok) throw new Error(`conversations.history: ${JSON.stringify(body)}`);
    return body.messages ?? [];
  }
});
