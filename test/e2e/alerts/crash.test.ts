import type { APIMessage } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertKey } from '../../../src/alerts/key.js';
import { carriesKey } from '../../../src/delivery/port.js';
import { AlertStore, type NewRule } from '../../../src/alerts/store.js';
import type { EntityRef } from '../../../src/api/domain.js';
import type { Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { discordPost, slackPost, startHoldProxy, type HoldProxy } from '../../helpers/digest/hold-proxy.js';
import { ENGINES, type EngineName } from '../../helpers/digest/helpers.js';
import {
  ALERT_REPLICA_LEASE_MS,
  alertWorkerEnv,
  killLeftovers,
  replicaDatabase,
  slackReads,
  startWorker,
  ticks,
  until,
  type Worker,
} from '../../helpers/replica.js';

/**
 * Alerts delivered exactly once by replicas that die mid-post. Each replica is a process of its own
 * (test/e2e/alerts/worker-script.ts: the real adapters, alert deliverers and AlertService, wired as
 * `polbot start` wires them) talking to the fake Slack and Discord through a hold proxy, so a post
 * can be held where it never reaches the platform, or where it lands and its answer is lost. The
 * first replica checks every rule (the real checker opens the incidents), posts, and is killed
 * with SIGKILL while its posts into two channels per platform are held; the second takes the
 * deliveries over once their leases lapse. Counted in the platforms' channels: one message per
 * channel, carrying every incident of it, none twice and none lost.
 */

const GUILD = '1100000000000000002';

type Platform = 'slack' | 'discord';
type Which = 'reached' | 'inFlight' | 'free';

/** Per platform: a channel whose post lands but whose answer is lost, one whose post never leaves, one left alone. */
const CHANNELS: Record<Platform, Record<Which, string>> = {
  slack: { reached: 'C-ALERT-REACHED', inFlight: 'C-ALERT-IN-FLIGHT', free: 'C-ALERT-FREE' },
  discord: { reached: '1200000000000000801', inFlight: '1200000000000000802', free: '1200000000000000803' },
};

const exchange = (slug: string, name: string): EntityRef => ({ kind: 'exchange', slug, name });
const project = (slug: string, name: string, ticker: string): EntityRef => ({ kind: 'project', slug, name, ticker });

/**
 * The rules, each "PoL above 1%" on entities the simulator puts at 2 to 12 %: the first check
 * opens an incident per rule and entity. Several in one channel share its message.
 */
const RULES: { platform: Platform; which: Which; entities: EntityRef[] }[] = [
  { platform: 'slack', which: 'reached', entities: [exchange('okx', 'OKX')] },
  { platform: 'slack', which: 'reached', entities: [exchange('bybit', 'Bybit')] },
  { platform: 'slack', which: 'inFlight', entities: [exchange('kucoin', 'KuCoin'), exchange('gate-io', 'Gate.io')] },
  { platform: 'slack', which: 'free', entities: [project('solana', 'Solana', 'SOL')] },
  { platform: 'discord', which: 'reached', entities: [project('bnb', 'BNB', 'BNB')] },
  { platform: 'discord', which: 'inFlight', entities: [project('xrp', 'XRP', 'XRP')] },
  { platform: 'discord', which: 'inFlight', entities: [project('cardano', 'Cardano', 'ADA')] },
  { platform: 'discord', which: 'free', entities: [exchange('binance-us', 'Binance.US')] },
];
/** Incidents per channel, as the rules above open them. */
const EXPECTED: Record<Platform, Record<Which, number>> = {
  slack: { reached: 2, inFlight: 2, free: 1 },
  discord: { reached: 1, inFlight: 2, free: 1 },
};

/** A log line of the service saying it recorded a message for `channel` (posted, or found already there). */
const settledIn = (channel: string) => (l: string) =>
  l.includes(`"channel":"${channel}"`) && /"msg":"alert (posted|message was already in the channel)/.test(l);

interface TickLine {
  posted: number;
  confirmed: number;
  failed: number;
  lost: number;
  suppressed: number;
  rules: number;
  opened: number;
}
const total = (w: Worker, key: keyof TickLine) => ticks<TickLine>(w).reduce((n, t) => n + t[key], 0);

// Replicas side by side need PostgreSQL (PGlite is one process's database, which replicas can only
// take turns on); a crash and restart on PGlite is the digest crash test's, and the store's claims
// run on PGlite in store.test.ts and recovery.test.ts. Kept parameterised: ENGINES runs both.
const REPLICA_ENGINES: EngineName[] = ENGINES.filter((e) => e === 'postgres');

describe.each(REPLICA_ENGINES)('alert replicas, one killed with SIGKILL mid-delivery, on %s', (engine: EngineName) => {
  let slack: FakeSlack;
  let discord: FakeDiscord;
  /** The first replica's way to the platforms, where its posts are held; the second's passes everything. */
  const proxies = {} as Record<'first' | 'second', { slack: HoldProxy; discord: HoldProxy }>;
  let database: Record<string, string>;
  let cleanup: () => Promise<void>;
  let open: () => Promise<Db>;

  beforeAll(async () => {
    [slack, discord] = await Promise.all([startFakeSlack(), startFakeDiscord({ guildIds: [GUILD] })]);
    for (const [which, id] of Object.entries(CHANNELS.discord)) discord.addChannel(id, GUILD, `alerts-${which}`);
    for (const replica of ['first', 'second'] as const) {
      const [s, d] = await Promise.all([
        startHoldProxy(slack.origin, slackPost),
        startHoldProxy(new URL(discord.apiUrl).origin, discordPost),
      ]);
      proxies[replica] = { slack: s, discord: d };
    }
    ({ env: database, open, cleanup } = await replicaDatabase(engine, 'polbot-alert-crash-'));
    const db = await open();
    await migrate(db);
    const store = new AlertStore(db);
    // Due at once: the first replica's first tick checks them all.
    const now = Date.now() - 1_000;
    for (const r of RULES) {
      const rule: NewRule = {
        platform: r.platform,
        workspaceId: r.platform === 'discord' ? GUILD : 'T-CRASH',
        channelId: CHANNELS[r.platform][r.which],
        entities: r.entities,
        condition: { kind: 'pol_above', threshold: 0.01 },
        conditionText: 'pol above 1%',
        everySec: 3_600,
        cooldownSec: 0,
        createdBy: 'U-CRASH',
      };
      const created = await store.create(rule, now, { perChannel: 20, perWorkspace: 200 });
      if (!created.ok) throw new Error(`rule not created: ${created.reason}`);
    }
    await db.close();
  });

  afterAll(async () => {
    // Only after a failure is one still running.
    killLeftovers();
    await Promise.all(Object.values(proxies).flatMap((p) => [p.slack.close(), p.discord.close()]));
    await Promise.all([slack.close(), discord.close()]);
    await cleanup();
  });

  // At info, the service logs each message it records, which says when a post is settled.
  const workerEnv = (through: { slack: HoldProxy; discord: HoldProxy }) =>
    alertWorkerEnv({ database, slack, discord, through, guildId: GUILD });

  /** Every post each platform received for the channel, answered or not (thread replies aside). */
  const slackPosts = (channel: string) => slack.calls('chat.postMessage').filter((c) => c.args.channel === channel && !c.args.thread_ts);
  const discordPosts = (channel: string) => discord.calls((c) => c.method === 'POST' && c.path === `/channels/${channel}/messages`);

  it('delivers every incident exactly once: nothing lost, nothing posted twice, the store pointing at the one message', async () => {
    const first = proxies.first;
    first.slack.hold.set(CHANNELS.slack.reached, 'response');
    first.slack.hold.set(CHANNELS.slack.inFlight, 'request');
    first.discord.hold.set(CHANNELS.discord.reached, 'response');
    first.discord.hold.set(CHANNELS.discord.inFlight, 'request');

    const a = startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv(first));
    // PostgreSQL: the second replica is up alongside from the start. PGlite, one process's
    // database, has it start on the data directory the first one leaves.
    let b = engine === 'postgres' ? startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv(proxies.second)) : undefined;
    await Promise.all([a, ...(b ? [b] : [])].map((w) => w.line((l) => l === 'ready', 60_000)));
    const t0 = Date.now();
    a.go();
    // The first replica checks every rule, opens the incidents and posts: the free channels get
    // theirs; of the held ones, two posts land (their answers lost) and two never leave.
    await Promise.race([
      Promise.all([
        slack.waitFor('chat.postMessage', (c) => c.args.channel === CHANNELS.slack.reached, 20_000),
        discord.waitFor((c) => c.method === 'POST' && c.path === `/channels/${CHANNELS.discord.reached}/messages`, 20_000),
        first.slack.arrived(CHANNELS.slack.inFlight),
        first.discord.arrived(CHANNELS.discord.inFlight),
        a.line(settledIn(CHANNELS.slack.free), 20_000, 'log'),
        a.line(settledIn(CHANNELS.discord.free), 20_000, 'log'),
      ]),
      a.exited.then((e) => Promise.reject(new Error(`worker exited early (${JSON.stringify(e)}): ${a.lines.join('\n')}`))),
    ]);
    if (b) {
      // Alongside for longer than a lease: the first renews its claims while its posts hang, so
      // nothing is taken from under it.
      b.go();
      await new Promise((r) => setTimeout(r, ALERT_REPLICA_LEASE_MS + 1_500));
      expect(b.lines).toEqual(['ready']);
    }
    // The first tick is still under way (four posts hang): nothing reported yet.
    expect(a.lines).toEqual(['ready']);
    expect(slackPosts(CHANNELS.slack.reached)).toHaveLength(1);
    expect(slackPosts(CHANNELS.slack.inFlight)).toHaveLength(0);
    expect(discordPosts(CHANNELS.discord.reached)).toHaveLength(1);
    expect(discordPosts(CHANNELS.discord.inFlight)).toHaveLength(0);

    expect(a.child.kill('SIGKILL')).toBe(true);
    expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Well within the Web API clients' own 15 s timeouts, which would end the hold by themselves.
    expect(Date.now() - t0).toBeLessThan(12_000);
    if (!b) {
      b = startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv(proxies.second));
      await b.line((l) => l === 'ready', 60_000);
      b.go();
    }
    // After the lease, the second replica claims the four held messages: two found in the
    // channels' history and recorded, two posted.
    await until('the survivor to settle the four held messages', () => total(b!, 'confirmed') + total(b!, 'posted') >= 4, 30_000);
    expect(b.child.kill('SIGTERM')).toBe(true);
    expect(await b.exited).toEqual({ code: 0, signal: null });
    expect({
      posted: total(b, 'posted'),
      confirmed: total(b, 'confirmed'),
      failed: total(b, 'failed'),
      lost: total(b, 'lost'),
      opened: total(b, 'opened'),
    }).toEqual({
      posted: 2,
      confirmed: 2,
      failed: 0,
      lost: 0,
      opened: 0,
    });

    // Exactly one message in each channel, every post the platforms received counted.
    for (const which of ['reached', 'inFlight', 'free'] as const) {
      expect(slackPosts(CHANNELS.slack[which]), which).toHaveLength(1);
      expect(discordPosts(CHANNELS.discord[which]), which).toHaveLength(1);
    }
    // The survivor searched only where it took over, once per channel.
    expect(
      slack
        .calls('conversations.history')
        .map((c) => c.args.channel)
        .sort(),
    ).toEqual([CHANNELS.slack.inFlight, CHANNELS.slack.reached].sort());
    expect(
      discord
        .calls((c) => c.method === 'GET' && /^\/channels\/\d+\/messages$/.test(c.path))
        .map((c) => c.path)
        .sort(),
    ).toEqual([`/channels/${CHANNELS.discord.inFlight}/messages`, `/channels/${CHANNELS.discord.reached}/messages`].sort());

    // The store: every incident delivered, pointing at its channel's one message, the first of
    // each channel leading it; the held ones settled by the survivor on their second claim.
    const db = await open();
    const rows = await db.query<{
      id: number;
      slug: string;
      channel_id: string;
      delivery_state: string;
      delivery_attempts: number;
      delivery_by: string;
      message_ref: string | null;
      lead_id: number | null;
    }>(
      `SELECT i.id, i.slug, r.channel_id, i.delivery_state, i.delivery_attempts, i.delivery_by, i.message_ref, i.lead_id
         FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id ORDER BY i.id`,
    );
    await db.close();
    expect(rows).toHaveLength(9);
    const nameOf = new Map(RULES.flatMap((r) => r.entities.map((e) => [e.slug, e.name] as const)));
    let shown = 0;
    for (const platform of ['slack', 'discord'] as const) {
      for (const which of ['reached', 'inFlight', 'free'] as const) {
        const channel = CHANNELS[platform][which];
        const mine = rows.filter((r) => r.channel_id === channel);
        expect(mine, channel).toHaveLength(EXPECTED[platform][which]);
        const messages = platform === 'slack' ? await slackHistory(channel) : discord.messages(channel);
        expect(messages, channel).toHaveLength(1);
        const message = messages[0]!;
        const ref = platform === 'slack' ? (message as { ts: string }).ts : (message as APIMessage).id;
        const lead = mine[0]!.id;
        const text = JSON.stringify(message);
        // The message carries its lead's key, and no other incident's.
        expect(carriesKey(text, alertKey(lead)), channel).toBe(true);
        for (const other of rows.filter((r) => r.id !== lead))
          expect(carriesKey(text, alertKey(other.id)), `${channel} #${other.id}`).toBe(false);
        // Every incident of the channel is in it: a card of its own, or a line of the shared one.
        for (const r of mine)
          expect(text, `${channel} #${r.id}`).toContain(mine.length === 1 ? `Alert #${r.id}` : `#${r.id} ${nameOf.get(r.slug)}`);
        shown += mine.length;
        const taken = which !== 'free';
        expect(
          mine.map((r) => ({
            state: r.delivery_state,
            ref: r.message_ref,
            lead: r.lead_id,
            attempts: r.delivery_attempts,
            by: r.delivery_by,
          })),
          channel,
        ).toEqual(
          mine.map((r) => ({
            state: 'delivered',
            ref,
            lead: r.id === lead ? null : lead,
            attempts: taken ? 2 : 1,
            by: `worker-${taken ? b!.child.pid : a.child.pid}`,
          })),
        );
      }
    }
    // Nine incidents in six messages, one per channel: none lost, none twice.
    expect(shown).toBe(9);
  }, 120_000);

  /** The channel's top-level messages as Slack lists them to anyone reading the channel. */
  const slackHistory = (channel: string) => slackReads(slack, 'conversations.history', { channel, limit: '999' });
});
