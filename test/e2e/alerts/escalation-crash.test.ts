import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertStore } from '../../../src/alerts/store.js';
import type { EntityRef } from '../../../src/api/domain.js';
import type { Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { startFakeWebhook, type FakeWebhook } from '../../fakes/webhook/index.js';
import { addRule } from '../../helpers/alerts.js';
import { discordPost, slackThreadReply, startHoldProxy, type HoldProxy } from '../../helpers/digest/hold-proxy.js';
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
 * Escalation steps posted exactly once by replicas on PostgreSQL, one killed with SIGKILL while
 * its replies are on the wire. Each replica is a process of its own (worker-script.ts: the real
 * Slack and Discord adapters, their deliverers, the Outbox for a signed webhook and the
 * AlertService, wired as `polbot start` wires them), talking to the fake Slack and Discord through
 * a hold proxy that can hold one alert's thread: its reply never reaches the platform, or lands
 * there and its answer is lost.
 *
 * Every rule calls on two groups (a Slack user group, a Discord role): the first replica checks the
 * rules, posts one alert message per channel, then claims every first step and posts them. Per
 * platform, one reply lands with its answer lost, one never leaves, one goes through. The first
 * replica is killed; the second, alongside from before the kill, takes the held steps over once
 * their leases lapse (finding the one that landed in its thread by its key, posting the other),
 * then posts every second step. Counted where people see them: each step one reply in its
 * alert's thread, mentioning its group, none twice and none lost.
 */

const GUILD = '1100000000000000004';

type Platform = 'slack' | 'discord';
type Which = 'reached' | 'inFlight' | 'free';
const WHICH: readonly Which[] = ['reached', 'inFlight', 'free'];
const PLATFORMS: readonly Platform[] = ['slack', 'discord'];

/** Per platform: a channel whose first step lands but its answer is lost, one whose first step never leaves, one left alone. */
const CHANNELS: Record<Platform, Record<Which, string>> = {
  slack: { reached: 'C-ESC-REACHED', inFlight: 'C-ESC-IN-FLIGHT', free: 'C-ESC-FREE' },
  discord: { reached: '1200000000000000821', inFlight: '1200000000000000822', free: '1200000000000000823' },
};

const exchange = (slug: string, name: string): EntityRef => ({ kind: 'exchange', slug, name });
/** One rule per channel, `pol above 1%` on an exchange the simulator puts at 2 to 12 %: the first check opens its incident. */
const WATCHED: Record<Platform, Record<Which, EntityRef>> = {
  slack: { reached: exchange('okx', 'OKX'), inFlight: exchange('bybit', 'Bybit'), free: exchange('kucoin', 'KuCoin') },
  discord: { reached: exchange('gate-io', 'Gate.io'), inFlight: exchange('bitget', 'Bitget'), free: exchange('binance-us', 'Binance.US') },
};

interface TickLine {
  posted: number;
  confirmed: number;
  escalated: number;
  failed: number;
  lost: number;
  rules: number;
  opened: number;
}
const total = (w: Worker, key: keyof TickLine) => ticks<TickLine>(w).reduce((n, t) => n + t[key], 0);

interface Step {
  id: number;
  incident_id: number;
  step: number;
  group_id: string;
  state: string;
  attempts: number;
  claimed_by: string | null;
  reason: string | null;
  done: boolean;
}

describe('escalation steps from replicas, one killed with SIGKILL mid-reply, on PostgreSQL', () => {
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let hook: FakeWebhook;
  /** The first replica's way to the platforms, where its replies are held; the second's passes everything. */
  const proxies = {} as Record<'first' | 'second', Record<Platform, HoldProxy>>;
  /** The groups each rule calls on, by platform: first the on-call, then the head of risk. */
  const groups = {} as Record<Platform, { oncall: string; head: string }>;
  let database: Record<string, string>;
  let cleanup: () => Promise<void>;
  let db: Db;

  beforeAll(async () => {
    [slack, discord, hook] = await Promise.all([startFakeSlack(), startFakeDiscord({ guildIds: [GUILD] }), startFakeWebhook()]);
    for (const [which, id] of Object.entries(CHANNELS.discord)) discord.addChannel(id, GUILD, `alerts-${which}`);
    // The workspace's user groups and the server's roles, as their admins made them.
    groups.slack = { oncall: slack.addUserGroup('risk-oncall'), head: slack.addUserGroup('head-of-risk') };
    groups.discord = { oncall: discord.addRole(GUILD, 'risk-oncall'), head: discord.addRole(GUILD, 'head-of-risk') };
    for (const replica of ['first', 'second'] as const) {
      const [s, d] = await Promise.all([
        startHoldProxy(slack.origin, slackThreadReply),
        startHoldProxy(new URL(discord.apiUrl).origin, discordPost),
      ]);
      proxies[replica] = { slack: s, discord: d };
    }
    let open: () => Promise<Db>;
    ({ env: database, open, cleanup } = await replicaDatabase('postgres', 'polbot-escalation-crash-'));
    db = await open();
    await migrate(db);
    const store = new AlertStore(db);
    // Due at once: the first replica's first tick checks them all.
    const now = Date.now() - 1_000;
    for (const platform of PLATFORMS)
      for (const which of WHICH)
        await addRule(
          store,
          {
            platform,
            workspaceId: platform === 'discord' ? GUILD : 'T-ESCALATE',
            channelId: CHANNELS[platform][which],
            entities: [WATCHED[platform][which]],
            condition: { kind: 'pol_above', threshold: 0.01 },
            conditionText: 'pol above 1%',
            everySec: 3_600,
            notify: ['siem'],
            escalation: [
              { afterSec: 900, group: { id: groups[platform].oncall, label: '@risk-oncall' } },
              { afterSec: 3_600, group: { id: groups[platform].head, label: '@head-of-risk' } },
            ],
          },
          now,
        );
  });

  afterAll(async () => {
    // Only after a failure is one still running.
    killLeftovers();
    await db?.close();
    await Promise.all(Object.values(proxies).flatMap((p) => [p.slack.close(), p.discord.close()]));
    await Promise.all([slack?.close(), discord?.close(), hook?.close()]);
    await cleanup?.();
  });

  // At info, the service logs each step it records, and whether it found it in the thread.
  const workerEnv = (through: Record<Platform, HoldProxy>) => ({
    ...alertWorkerEnv({ database, slack, discord, through, guildId: GUILD }),
    POLBOT_DESTINATIONS: `siem=webhook:${hook.url}`,
    POLBOT_WEBHOOK_SECRET_SIEM: hook.secret,
  });

  const steps = async () =>
    (
      await db.query<Step>(
        'SELECT id, incident_id, step, group_id, state, attempts, claimed_by, reason, done_at IS NOT NULL AS done FROM alert_escalations ORDER BY id',
      )
    ).map((s) => ({ ...s, id: Number(s.id), incident_id: Number(s.incident_id) }));
  const stepsDone = async (step: number, n: number) => (await steps()).filter((s) => s.step === step && s.state === 'done').length === n;

  /** Every reply each platform received in an alert's thread, answered or not. */
  const slackReplies = (ts: string) => slack.calls('chat.postMessage').filter((c) => c.args.thread_ts === ts);
  const discordReplies = (messageId: string) => discord.calls((c) => c.method === 'POST' && c.path === `/channels/${messageId}/messages`);
  /** Every top-level post into a channel. */
  const slackPosts = (channel: string) => slack.calls('chat.postMessage').filter((c) => c.args.channel === channel && !c.args.thread_ts);
  const discordPosts = (channel: string) => discord.calls((c) => c.method === 'POST' && c.path === `/channels/${channel}/messages`);

  it('posts every step once in its thread, mentioning its group, whichever replica posted or found it', async () => {
    const a = startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv(proxies.first));
    const b = startWorker('test/e2e/alerts/worker-script.ts', 'alert worker', workerEnv(proxies.second));
    await Promise.all([a, b].map((w) => w.line((l) => l === 'ready', 60_000)));
    const dies = a.exited.then((e) => Promise.reject(new Error(`worker exited early (${JSON.stringify(e)}): ${a.logs.join('\n')}`)));
    dies.catch(() => undefined);

    // The first replica alone checks the rules and posts the six alert messages; their steps are
    // written as each is recorded, the first due 15 minutes on.
    a.go();
    await Promise.race([until('the six alert messages and their twelve steps', async () => (await steps()).length === 12, 30_000), dies]);
    const incidents = (
      await db.query<{ id: number; channel_id: string; message_ref: string; delivery_state: string }>(
        `SELECT i.id, r.channel_id, i.message_ref, i.delivery_state FROM alert_incidents i JOIN alert_rules r ON r.id = i.rule_id ORDER BY i.id`,
      )
    ).map((i) => ({ ...i, id: Number(i.id) }));
    expect(incidents.map((i) => i.delivery_state)).toEqual(Array(6).fill('delivered'));
    const at = (platform: Platform, which: Which) => incidents.find((i) => i.channel_id === CHANNELS[platform][which])!;
    // Where each alert's thread is: the Slack message's ts, the Discord message's id (its thread's).
    const thread = (platform: Platform, which: Which) => at(platform, which).message_ref;
    for (const platform of PLATFORMS) {
      proxies.first[platform].hold.set(thread(platform, 'reached'), 'response');
      proxies.first[platform].hold.set(thread(platform, 'inFlight'), 'request');
    }

    // Due now rather than in 15 minutes. The replicas run on the wall clock (the worker has no clock
    // of its own to move), so a step's wait is brought forward where it is kept, in its row. The
    // first replica's next tick claims all six first steps at once and posts them side by side,
    // one channel each.
    const t0 = Date.now();
    await db.query(`UPDATE alert_escalations SET due_at = now() WHERE step = 1`);
    await Promise.race([
      Promise.all([
        ...PLATFORMS.flatMap((p) => [proxies.first[p].arrived(thread(p, 'reached')), proxies.first[p].arrived(thread(p, 'inFlight'))]),
        until('the free channels’ first steps to be done', () => stepsDone(1, 2), 20_000),
      ]),
      dies,
    ]);
    // Held: the two replies that landed are at the platforms, the two that never left are not.
    expect(slackReplies(thread('slack', 'reached'))).toHaveLength(1);
    expect(slackReplies(thread('slack', 'inFlight'))).toHaveLength(0);
    expect(discordReplies(thread('discord', 'reached'))).toHaveLength(1);
    expect(discordReplies(thread('discord', 'inFlight'))).toHaveLength(0);

    // Alongside for longer than a lease: the first renews the claims of its held replies, so the
    // second takes nothing from under it (it may send the events the first queued meanwhile).
    b.go();
    await new Promise((r) => setTimeout(r, ALERT_REPLICA_LEASE_MS + 1_500));
    expect({ escalated: total(b, 'escalated'), lost: total(b, 'lost'), posted: total(b, 'posted') }).toEqual({
      escalated: 0,
      lost: 0,
      posted: 0,
    });
    expect((await steps()).filter((s) => s.step === 1 && s.state === 'claimed').map((s) => s.claimed_by)).toEqual(
      Array(4).fill(`worker-${a.child.pid}`),
    );

    expect(a.child.kill('SIGKILL')).toBe(true);
    expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Well within the platform clients' own 15 s timeouts, which would end the holds by themselves.
    expect(Date.now() - t0).toBeLessThan(12_000);

    // Once the leases lapse, the second replica takes the four held steps over: two found in their
    // threads by their keys and recorded, two posted.
    await until('the survivor to settle the held first steps', () => stepsDone(1, 6), 30_000);
    // The second steps' hour, likewise brought forward; the first steps are done, so they may go.
    await db.query(`UPDATE alert_escalations SET due_at = now() WHERE step = 2 AND state = 'pending'`);
    await until('the survivor to post every second step', () => stepsDone(2, 6), 20_000);
    const escalatedEvents = async () => {
      const rows = await db.query<{ state: string }>(`SELECT state FROM alert_events WHERE transition = 'escalated'`);
      return rows.length === 12 && rows.every((r) => r.state === 'done');
    };
    await until('the webhook to be told of every step', escalatedEvents, 20_000);
    expect(b.child.kill('SIGTERM')).toBe(true);
    expect(await b.exited).toEqual({ code: 0, signal: null });
    expect({
      escalated: total(b, 'escalated'),
      posted: total(b, 'posted'),
      failed: total(b, 'failed'),
      lost: total(b, 'lost'),
      opened: total(b, 'opened'),
    }).toEqual({ escalated: 10, posted: 0, failed: 0, lost: 0, opened: 0 });
    // The survivor says which steps it found in their threads rather than posting: the two that landed.
    const found = b.logs
      .filter((l) => l.includes('"msg":"alert escalated"') && l.includes('"found":true'))
      .map((l) => (JSON.parse(l) as { incident: number }).incident)
      .sort();
    expect(found).toEqual([at('slack', 'reached').id, at('discord', 'reached').id].sort());

    // What the survivor searched, before this test reads any thread itself.
    const searched = {
      slack: slack
        .calls('conversations.replies')
        .map((c) => [c.args.channel, c.args.ts, c.status])
        .sort(),
      discord: discord
        .calls((c) => c.method === 'GET' && /^\/channels\/\d+\/messages$/.test(c.path))
        .map((c) => c.path)
        .sort(),
    };

    const all = await steps();
    expect(all).toHaveLength(12);
    for (const platform of PLATFORMS) {
      const { oncall, head } = groups[platform];
      for (const which of WHICH) {
        const { id: incident, channel_id: channel } = at(platform, which);
        const ref = thread(platform, which);
        const [first, second] = all.filter((s) => s.incident_id === incident);
        const where = `${platform} ${which}`;
        // The store: each step done once, the held ones by the survivor on their second claim.
        const byA = `worker-${a.child.pid}`;
        const byB = `worker-${b.child.pid}`;
        expect([first, second], where).toEqual([
          {
            id: expect.any(Number),
            incident_id: incident,
            step: 1,
            group_id: oncall,
            state: 'done',
            attempts: which === 'free' ? 1 : 2,
            claimed_by: which === 'free' ? byA : byB,
            reason: null,
            done: true,
          },
          {
            id: expect.any(Number),
            incident_id: incident,
            step: 2,
            group_id: head,
            state: 'done',
            attempts: 1,
            claimed_by: byB,
            reason: null,
            done: true,
          },
        ]);
        const name = WATCHED[platform][which].name;
        const words = (step: Step, wait: string, mention: string) =>
          `Still unacknowledged after ${wait}: ${mention}, please look.${platform === 'slack' ? ' ' : '\n'}Alert #${incident}, step ${step.step} of 2 · polbot escalation #${step.id}`;

        if (platform === 'slack') {
          // Every reply Slack received in the thread, answered or not: one per step.
          const replies = slackReplies(ref);
          expect(
            replies.map((c) => [c.args.channel, c.args.text, c.status]),
            where,
          ).toEqual([
            [channel, words(first!, '15 minutes', `<!subteam^${oncall}>`), 200],
            [channel, words(second!, '1 hour 15 minutes', `<!subteam^${head}>`), 200],
          ]);
          // And the thread as anyone reading it sees it: the alert, then one reply per step.
          const seen = await slackThread(channel, ref);
          expect(seen.map((m) => m.ts)[0], where).toBe(ref);
          expect(
            seen.slice(1).map((m) => m.text),
            where,
          ).toEqual([words(first!, '15 minutes', `<!subteam^${oncall}>`), words(second!, '1 hour 15 minutes', `<!subteam^${head}>`)]);
          expect(slackPosts(channel), where).toHaveLength(1);
        } else {
          const replies = discordReplies(ref);
          expect(
            replies.map((c) => {
              const body = c.body as { content?: string; allowed_mentions?: unknown };
              return [body.content, body.allowed_mentions, c.status];
            }),
            where,
          ).toEqual([
            [`**⏫ Escalated: ${name}**\n${words(first!, '15 minutes', `<@&${oncall}>`)}`, { parse: [], roles: [oncall] }, 200],
            [`**⏫ Escalated: ${name}**\n${words(second!, '1 hour 15 minutes', `<@&${head}>`)}`, { parse: [], roles: [head] }, 200],
          ]);
          // The thread started on the alert message holds the two replies, each pinging its role alone.
          expect(
            discord.messages(ref).map((m) => m.mention_roles),
            where,
          ).toEqual([[oncall], [head]]);
          expect(discordPosts(channel), where).toHaveLength(1);
        }
      }
      // The replies each replica sent, counted on its way out: the first sent each first step
      // once (two held, one through), the second the two it had to post and every second step.
      const sent = (replica: 'first' | 'second', which: Which) => proxies[replica][platform].count(thread(platform, which));
      expect(WHICH.map((w) => [w, sent('first', w), sent('second', w)])).toEqual([
        ['reached', 1, 1],
        ['inFlight', 1, 2],
        ['free', 1, 1],
      ]);
    }

    // No reply anywhere else: every thread reply each platform received is one of the twelve above.
    expect(slack.calls('chat.postMessage').filter((c) => c.args.thread_ts)).toHaveLength(6);
    const channelIds = new Set(Object.values(CHANNELS.discord));
    expect(
      discord.calls((c) => c.method === 'POST' && /^\/channels\/\d+\/messages$/.test(c.path) && !channelIds.has(c.path.split('/')[2]!)),
    ).toHaveLength(6);

    // The survivor searched only the threads it took over, once each.
    expect(searched.slack).toEqual(
      [
        [CHANNELS.slack.reached, thread('slack', 'reached'), 200],
        [CHANNELS.slack.inFlight, thread('slack', 'inFlight'), 200],
      ].sort(),
    );
    expect(searched.discord).toEqual(
      [`/channels/${thread('discord', 'reached')}/messages`, `/channels/${thread('discord', 'inFlight')}/messages`].sort(),
    );

    // The webhook: one 'escalated' event queued per step, and each accepted once, saying which step called on whom.
    const events = await db.query<{ id: number; incident_id: number; escalation: { step: number }; state: string; attempts: number }>(
      `SELECT id, incident_id, escalation, state, attempts FROM alert_events WHERE transition = 'escalated' ORDER BY id`,
    );
    expect(events.map((e) => `${e.incident_id}:${e.escalation.step}`).sort()).toEqual(all.map((s) => `${s.incident_id}:${s.step}`).sort());
    const accepted = hook.events().filter((e) => e.type === 'incident.escalated');
    expect(accepted.map((e) => e.id).sort()).toEqual(events.map((e) => `polbot-evt-${e.id}`).sort());
    expect(accepted.map((e) => e.deliveries)).toEqual(Array(12).fill(1));
    const platformOf = (incident: number) =>
      PLATFORMS.find((p) => Object.values(CHANNELS[p]).includes(incidents.find((i) => i.id === incident)!.channel_id))!;
    for (const s of all) {
      const { oncall, head } = groups[platformOf(s.incident_id)];
      const told = accepted.filter((e) => (e.event.incident as { id: number }).id === s.incident_id);
      expect(
        told.map((e) => (JSON.parse(e.raw) as { escalation: unknown }).escalation).find((x) => (x as { step: number }).step === s.step),
        `incident #${s.incident_id} step ${s.step}`,
      ).toEqual({
        step: s.step,
        steps: 2,
        group: s.step === 1 ? { id: oncall, label: '@risk-oncall' } : { id: head, label: '@head-of-risk' },
        after_seconds: s.step === 1 ? 900 : 3_600,
      });
    }
  }, 120_000);

  /** A thread as Slack lists it to anyone reading the channel: the parent, then its replies. */
  const slackThread = async (channel: string, ts: string) =>
    (await slackReads(slack, 'conversations.replies', { channel, ts })) as { ts: string; text: string }[];
});
