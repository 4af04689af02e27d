import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertStore } from '../../../src/alerts/store.js';
import type { Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { discordPost, slackPost, startHoldProxy, type HoldProxy } from '../../helpers/digest/hold-proxy.js';
import { platformEnv, replicaDatabase, started, startWorker, ticks, until, type Worker } from '../../helpers/replica.js';

/**
 * Escalation steps posted exactly once by replicas that die mid-post, on PostgreSQL. Each replica
 * is a process of its own (test/e2e/alerts/worker-script.ts: the real adapters, deliverers and
 * AlertService, wired as `polbot start` wires them) talking to the fake Slack and Discord through a
 * hold proxy. The first replica opens an incident per platform and posts their messages; then the
 * steps are made due (their wait is minutes: the test moves `due_at` rather than the clock) and the
 * first replica's Slack reply is held where it lands in the thread but its answer never comes back,
 * and the replica is killed with SIGKILL in that moment. Its Discord step, claimed behind the held
 * one, never left. The second replica takes both over when the leases lapse: it finds the Slack
 * reply in the thread by its key and records it without posting again, and posts the Discord one.
 * Counted at the platforms: one reply per step, each calling on its group, and nothing else.
 */

const LEASE = 4_000;
const TICK = 200;
const GUILD = '1100000000000000003';
const SIGNING_SECRET = 'digest-adapter-test-secret';
const SLACK_CHANNEL = 'C-ESCAL-CRASH';
const DISCORD_CHANNEL = '1200000000000000901';
const SLACK_GROUP = { id: 'S0CRASHGRP', label: '@risk-oncall' };

interface TickLine {
  posted: number;
  escalated: number;
  confirmed: number;
  failed: number;
  lost: number;
}
const total = (w: Worker, key: keyof TickLine) => ticks<TickLine>(w).reduce((n, t) => n + t[key], 0);

describe('escalation replicas, one killed with SIGKILL mid-post, on postgres', () => {
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let role: string;
  const proxies = {} as Record<'first' | 'second', { slack: HoldProxy; discord: HoldProxy }>;
  let database: Record<string, string>;
  let cleanup: () => Promise<void>;
  let open: () => Promise<Db>;

  beforeAll(async () => {
    [slack, discord] = await Promise.all([startFakeSlack(), startFakeDiscord({ guildIds: [GUILD] })]);
    discord.addChannel(DISCORD_CHANNEL, GUILD, 'alerts-escalation');
    role = discord.addRole(GUILD, 'risk-oncall', { mentionable: true });
    for (const replica of ['first', 'second'] as const) {
      const [s, d] = await Promise.all([
        startHoldProxy(slack.origin, slackPost),
        startHoldProxy(new URL(discord.apiUrl).origin, discordPost),
      ]);
      proxies[replica] = { slack: s, discord: d };
    }
    ({ env: database, open, cleanup } = await replicaDatabase('postgres', 'polbot-escalation-crash-'));
    const db = await open();
    await migrate(db);
    const store = new AlertStore(db);
    // Due at once, on exchanges the simulator puts well above 1%: the first check opens each incident.
    const now = Date.now() - 1_000;
    for (const [platform, channelId, slug, name, group] of [
      ['slack', SLACK_CHANNEL, 'okx', 'OKX', SLACK_GROUP],
      ['discord', DISCORD_CHANNEL, 'bybit', 'Bybit', { id: role, label: '@risk-oncall' }],
    ] as const) {
      const created = await store.create(
        {
          platform,
          workspaceId: platform === 'discord' ? GUILD : 'T-CRASH',
          channelId,
          entities: [{ kind: 'exchange', slug, name }],
          condition: { kind: 'pol_above', threshold: 0.01 },
          conditionText: 'pol above 1%',
          everySec: 3_600,
          cooldownSec: 0,
          createdBy: 'U-CRASH',
          escalation: [{ afterSec: 900, group }],
        },
        now,
        { perChannel: 20, perWorkspace: 200 },
      );
      if (!created.ok) throw new Error(`rule not created: ${created.reason}`);
    }
    await db.close();
  });

  afterAll(async () => {
    for (const w of started.splice(0)) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(Object.values(proxies).flatMap((p) => [p.slack.close(), p.discord.close()]));
    await Promise.all([slack.close(), discord.close()]);
    await cleanup();
  });

  const workerEnv = (through: { slack: HoldProxy; discord: HoldProxy }) => ({
    ...database,
    LOG_LEVEL: 'info',
    ...platformEnv({
      slack,
      discord,
      origins: { slack: through.slack.origin, discord: through.discord.origin },
      guildId: GUILD,
      signingSecret: SIGNING_SECRET,
    }),
    ALERT_WORKER_LEASE: String(LEASE),
    ALERT_WORKER_TICK: String(TICK),
  });

  const slackReplies = (threadTs: string) =>
    slack.calls('chat.postMessage').filter((c) => c.args.channel === SLACK_CHANNEL && c.args.thread_ts === threadTs);
  /** A Discord thread started on a message has that message's id. */
  const discordReplies = (messageId: string) => discord.calls((c) => c.method === 'POST' && c.path === `/channels/${messageId}/messages`);

  it('posts each step once: the reply that landed before the crash is found, the one that never left is posted', async () => {
    const a = startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv(proxies.first));
    const b = startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv(proxies.second));
    await Promise.all([a, b].map((w) => w.line((l) => l === 'ready', 60_000)));
    a.go();
    await until('the first replica to post both alert messages', () => total(a, 'posted') >= 2, 30_000);

    const db = await open();
    const refs = new Map(
      (
        await db.query<{ channel_id: string; message_ref: string }>(
          'SELECT r.channel_id, i.message_ref FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id',
        )
      ).map((r) => [r.channel_id, r.message_ref]),
    );
    const slackTs = refs.get(SLACK_CHANNEL)!;
    const discordId = refs.get(DISCORD_CHANNEL)!;
    expect(slackTs).toMatch(/^\d+\.\d+$/);
    expect(discordId).toMatch(/^\d+$/);
    // The Slack reply will land but its answer never come back; the Discord step waits behind it.
    proxies.first.slack.hold.set(SLACK_CHANNEL, 'response');
    await db.query(
      `UPDATE alert_escalations e SET due_at = now() - CASE WHEN r.platform = 'slack' THEN interval '2 seconds' ELSE interval '1 second' END
         FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id WHERE i.id = e.incident_id`,
    );
    await slack.waitFor('chat.postMessage', (c) => c.args.channel === SLACK_CHANNEL && c.args.thread_ts === slackTs, 20_000);
    expect(a.child.kill('SIGKILL')).toBe(true);
    expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(total(a, 'escalated')).toBe(0);

    b.go();
    await until('the survivor to settle both steps', () => total(b, 'escalated') >= 2, 30_000);
    expect(b.child.kill('SIGTERM')).toBe(true);
    expect(await b.exited).toEqual({ code: 0, signal: null });
    expect({ escalated: total(b, 'escalated'), failed: total(b, 'failed'), lost: total(b, 'lost') }).toEqual({
      escalated: 2,
      failed: 0,
      lost: 0,
    });

    // One reply per step at the platforms, every request counted: the Slack one from the first
    // replica (found, not posted again), the Discord one from the survivor.
    const inSlack = slackReplies(slackTs);
    expect(inSlack).toHaveLength(1);
    // The survivor looked in the thread before deciding, where the first replica's reply was.
    expect(slack.calls('conversations.replies').map((c) => [c.args.channel, c.args.ts])).toContainEqual([SLACK_CHANNEL, slackTs]);
    expect(String(inSlack[0]!.args.text)).toContain(`<!subteam^${SLACK_GROUP.id}>`);
    const inDiscord = discordReplies(discordId);
    expect(inDiscord).toHaveLength(1);
    const body = inDiscord[0]!.body as { content?: string; allowed_mentions?: { roles?: string[]; parse?: string[] } };
    expect(body.content).toContain(`<@&${role}>`);
    expect(body.allowed_mentions).toEqual({ parse: [], roles: [role] });

    const steps = await db.query<{ state: string; attempts: number; claimed_by: string; platform: string }>(
      `SELECT e.state, e.attempts, e.claimed_by, r.platform FROM alert_escalations e
         JOIN alert_incidents i ON i.id = e.incident_id JOIN alert_rules r ON r.id = i.rule_id ORDER BY r.platform`,
    );
    await db.close();
    expect(steps).toEqual([
      { state: 'done', attempts: 2, claimed_by: `worker-${b.child.pid}`, platform: 'discord' },
      { state: 'done', attempts: 2, claimed_by: `worker-${b.child.pid}`, platform: 'slack' },
    ]);
  }, 120_000);
});
