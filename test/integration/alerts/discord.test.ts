import type { APIMessage } from 'discord.js';
import { PermissionFlagsBits } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discordDeliverer } from '../../../adapters/discord/deliverer.js';
import { escalationMessage } from '../../../src/alerts/message.js';
import { AlertService } from '../../../src/alerts/service.js';
import type { EscalationStep } from '../../../src/alerts/escalation.js';
import type { EntityRef } from '../../../src/api/domain.js';
import type { Db } from '../../../src/db/connection.js';
import { addRule as addStoredRule, alertsOnPglite, DAY, MINUTE, writeHistory } from '../../helpers/alerts.js';
import { GUILD_ID, startStack, type Stack } from '../../helpers/discord.js';
import { simMove } from '../../helpers/sim.js';

/**
 * Alerts end to end in Discord: the real discord.js client against the fake Discord, the product's
 * alert service and deliverer, a PGlite store, and the simulator moved over its admin route. A
 * server manager adds a rule with /pol-alert; a crossing posts exactly one message; its buttons
 * edit that same message; a further crossing goes in a thread started on it; a level that falls
 * back closes the incident by itself.
 */

/** People clicking the alert's buttons, with their Discord user ids. */
const DANA = { id: '310000000000000001', username: 'dana', globalName: 'Dana' };
const LEE = { id: '310000000000000002', username: 'lee', globalName: 'Lee' };
const SAM = { id: '310000000000000003', username: 'sam', globalName: 'Sam' };

const MANAGER = String(PermissionFlagsBits.ManageGuild | PermissionFlagsBits.UseApplicationCommands | PermissionFlagsBits.SendMessages);
let stack: Stack;
let db: Db;
let service: AlertService;

beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_PER_USER: '0' });
  ({ db, service } = await alertsOnPglite({
    deps: stack.core.ctx,
    deliverers: [discordDeliverer(stack.handle)],
    complete: stack.core.complete,
    leaseMs: 60_000,
  }));
  stack.core.ctx.alerts = service;
});
afterAll(async () => {
  await stack.close();
  await db.close();
  if (replicated) await (await replicated).db.close();
});

async function move(body: Record<string, unknown>): Promise<void> {
  await simMove(stack.core.upstream.sim!, body);
  stack.core.upstream.source.cache.clear();
  await db.query('UPDATE alert_rules SET next_check = now()');
}

const posted = (channelId: string) =>
  stack.fake
    .calls((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages` && c.status === 200)
    .map((c) => c.body as Record<string, unknown>);
const titleOf = (body: Record<string, unknown>) => ((body.embeds as { title?: string }[] | undefined)?.[0]?.title ?? '').toString();
const alertPosts = (channelId: string) => posted(channelId).filter((b) => /Alert:|\d alerts:/.test(titleOf(b)));
const edits = (channelId: string, id: string) =>
  stack.fake.calls((c) => c.method === 'PATCH' && c.path === `/channels/${channelId}/messages/${id}` && c.status === 200);
/** The footer of a message's embed: its as-of time, source and simulated label. */
const footerOf = (m: { embeds?: unknown }) =>
  ((m.embeds as { footer?: { text?: string } }[] | undefined)?.[0]?.footer?.text ?? '').toString();

interface Button {
  type: number;
  label?: string;
  custom_id?: string;
}
interface StringSelect {
  type: number;
  custom_id: string;
  placeholder?: string;
  options: { label: string; value: string; description?: string }[];
}
const componentsOf = (m: { components?: unknown }) =>
  ((m.components ?? []) as { components: (Button | StringSelect)[] }[]).flatMap((row) => row.components);
const buttonsOf = (m: { components?: unknown }) => componentsOf(m).filter((c): c is Button => c.type === 2);
/** The alert's "Resolve as…" menu: a string select whose options carry the whole command. */
const resolveMenuOf = (m: { components?: unknown }) =>
  componentsOf(m).find((c): c is StringSelect => c.type === 3 && (c as StringSelect).placeholder === 'Resolve as…');

type Person = { id?: string; username: string; globalName: string };

/** Uses a component of an alert message as `user`, and waits for the edit of that message it causes. */
async function use(
  channelId: string,
  messageId: string,
  component: (message: APIMessage) => { custom_id: string; component_type: 2 | 3; values?: string[] },
  user: Person,
): Promise<Record<string, unknown>> {
  const message = stack.fake.messages(channelId).find((m) => m.id === messageId) as APIMessage;
  const before = edits(channelId, messageId).length;
  const h = stack.fake.sendComponent({ ...component(message), message, user, guildId: stack.discord.guildId, channelId });
  await h.waitForEdit(8_000);
  const deadline = Date.now() + 8_000;
  while (edits(channelId, messageId).length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return edits(channelId, messageId).at(-1)!.body as Record<string, unknown>;
}

function click(channelId: string, messageId: string, label: string, user: Person = DANA) {
  return use(
    channelId,
    messageId,
    (message) => {
      const button = buttonsOf(message).find((b) => b.label === label);
      expect(button, `no ${label} button on the message`).toBeDefined();
      return { custom_id: button!.custom_id!, component_type: 2 };
    },
    user,
  );
}

/** Picks a reason from the alert's "Resolve as…" menu, as Discord sends a string select's pick. */
function resolveAs(channelId: string, messageId: string, label: string, user: Person) {
  return use(
    channelId,
    messageId,
    (message) => {
      const menu = resolveMenuOf(message);
      const option = menu?.options.find((o) => o.label === label);
      expect(option, `no ${label} in the Resolve as… menu`).toBeDefined();
      return { custom_id: menu!.custom_id, component_type: 3, values: [option!.value] };
    },
    user,
  );
}

/** /pol-alert add as a server manager sends it: its answer as Discord shows it. */
async function addAnswer(options: Record<string, string>): Promise<string> {
  const h = stack.fake.sendCommand({
    name: 'pol-alert',
    subcommand: 'add',
    options,
    memberPermissions: MANAGER,
    channelId: stack.channelId,
  });
  return JSON.stringify(await h.waitForEdit(10_000).then((c) => c.body));
}

async function addRule(options: Record<string, string>): Promise<number> {
  const answer = await addAnswer(options);
  const m = /Alert rule #(\d+) added/.exec(answer);
  expect(m, answer.slice(0, 400)).not.toBeNull();
  return Number(m![1]);
}

/** The lease of the two replicas below: short, on the wall clock, renewed every second. */
const REPLICA_LEASE = 3_000;

/** The store the two replicas share, opened once for the tests that use them (each reads its own rules' rows). */
let replicated: Promise<{ db: Db; service: AlertService }> | undefined;

/**
 * Two replicas on a store of their own, on the wall clock with short leases, and a way to add a
 * rule to it, checked at its next tick: `pol above 1%` (the simulator's exchanges are above it
 * until moved), severity low.
 */
async function twoReplicas() {
  replicated ??= alertsOnPglite({
    deps: stack.core.ctx,
    deliverers: [discordDeliverer(stack.handle)],
    complete: stack.core.complete,
    leaseMs: REPLICA_LEASE,
    instanceId: 'replica-a',
  });
  const own = await replicated;
  const other = new AlertService({
    store: own.service.store,
    deps: stack.core.ctx,
    deliverers: [discordDeliverer(stack.handle)],
    complete: stack.core.complete,
    leaseMs: REPLICA_LEASE,
    instanceId: 'replica-b',
  });
  const rule = (channelId: string, entities: EntityRef[], escalation: EscalationStep[] = []) =>
    addStoredRule(
      own.service.store,
      {
        platform: 'discord',
        workspaceId: GUILD_ID,
        channelId,
        entities,
        condition: { kind: 'pol_above', threshold: 0.01 },
        conditionText: 'pol above 1%',
        everySec: 3_600,
        // Compact, without a chart to draw: what is timed here is the replies in threads.
        severity: 'low',
        escalation,
      },
      Date.now() - 1_000,
    );
  return { own, other, rule };
}

describe('alerts in Discord', () => {
  it('posts one message per incident, edits it in place for each step, follows up in a thread, and closes when the level falls back', async () => {
    const channel = stack.channelId;
    const start = stack.core.upstream.sim!.store.exchange('bybit')!.pol.at(-1)!;
    const line = Math.round((start + 0.03) * 1000) / 10;
    const id = await addRule({ names: 'bybit', when: `pol above ${line}%`, cooldown: 'none' });
    expect((await service.store.getInChannel(id, 'discord', channel))?.workspaceId).toBe(stack.discord.guildId);

    await service.tick();
    expect(alertPosts(channel)).toHaveLength(0);
    await move({ kind: 'exchange', slug: 'bybit', pol: (line + 1) / 100 });
    expect((await service.tick()).posted).toBe(1);
    expect(alertPosts(channel)).toHaveLength(1);
    const message = stack.fake.messages(channel).find((m) => m.embeds[0]?.title === '🔔 Alert: Bybit')!;
    expect(message).toBeDefined();
    // The chart of the last 30 days is attached, and the embed shows it.
    expect(message.attachments.map((a) => a.filename)).toEqual([expect.stringMatching(/\.png$/)]);
    expect(message.embeds[0]!.image?.url).toMatch(/^attachment:\/\//);
    expect(JSON.stringify(message.embeds[0])).toContain(`${(line + 1).toFixed(1)}%`);
    expect(buttonsOf(message).map((b) => b.label)).toEqual(['Acknowledge', 'Snooze 1h', 'Snooze 24h', 'View card']);
    // Resolving says why: a menu after the buttons, each option the whole command.
    expect(resolveMenuOf(message)!.options.map((o) => o.label)).toEqual(['Real', 'Noise', 'Duplicate', 'Expected']);
    expect(resolveMenuOf(message)!.options.map((o) => o.value)).toEqual(
      ['real', 'noise', 'duplicate', 'expected'].map((r) => expect.stringMatching(new RegExp(`^alert-resolve\\?id=\\d+&reason=${r}$`))),
    );

    // Still above at the next check: nothing new.
    await db.query('UPDATE alert_rules SET next_check = now()');
    expect((await service.tick()).posted).toBe(0);

    const postedFooter = footerOf(message);
    expect(postedFooter).toMatch(/^as of \d{4}-\d\d-\d\d \d\d:\d\d UTC · source REST · SIMULATED DATA · /);

    // The person is a user mention (Discord shows their current name), and nobody is pinged by it.
    const acknowledged = await click(channel, message.id, 'Acknowledge');
    expect(JSON.stringify(acknowledged)).toContain(`Acknowledged by <@${DANA.id}>`);
    expect(JSON.stringify(acknowledged)).not.toContain('Dana');
    expect(acknowledged.allowed_mentions).toEqual({ parse: [] });
    // The redraw still says where and when its data came from.
    expect(footerOf(acknowledged)).toBe(postedFooter);
    expect(buttonsOf(acknowledged).map((b) => b.label)).toEqual(['Snooze 1h', 'Snooze 24h', 'View card']);
    expect(resolveMenuOf(acknowledged)).toBeDefined();
    // The edit keeps the chart: no new files, the embed still points at the attachment.
    expect(stack.fake.messages(channel).find((m) => m.id === message.id)!.attachments).toHaveLength(1);

    await move({ kind: 'exchange', slug: 'bybit', pol: (line + 3) / 100 });
    expect((await service.tick()).followups).toBe(1);
    const thread = stack.fake.calls((c) => c.method === 'POST' && c.path === `/channels/${channel}/messages/${message.id}/threads`);
    expect(thread.map((c) => c.status)).toEqual([201]);
    const inThread = posted(message.id);
    expect(inThread).toHaveLength(1);
    expect(JSON.stringify(inThread[0])).toContain(`to ${(line + 3).toFixed(1)}%`);
    expect(alertPosts(channel)).toHaveLength(1);
    // The message itself now shows where the value is, the worst it reached and where it opened.
    const again = edits(channel, message.id).at(-1)!.body as Record<string, unknown>;
    expect(JSON.stringify(again)).toContain(
      `now ${(line + 3).toFixed(1)}% · worst ${(line + 3).toFixed(1)}% · opened at ${(line + 1).toFixed(1)}%`,
    );
    expect(again.allowed_mentions).toEqual({ parse: [] });
    expect(footerOf(again)).toMatch(/source REST · SIMULATED DATA/);

    const snoozed = await click(channel, message.id, 'Snooze 24h', LEE);
    expect(JSON.stringify(snoozed)).toMatch(
      new RegExp(`Snoozed by <@${LEE.id}> until \\d+ \\w+ \\d\\d:\\d\\d UTC \\(acknowledged by <@${DANA.id}>\\)`),
    );

    // The level falls back: the message says so, the thread hears it, the incident closes.
    await move({ kind: 'exchange', slug: 'bybit', pol: start });
    const cleared = await service.tick();
    expect(cleared.check.events.map((e) => e.type)).toEqual(['cleared']);
    const last = edits(channel, message.id).at(-1)!.body as Record<string, unknown>;
    expect(JSON.stringify(last)).toContain('Cleared by itself at');
    expect(footerOf(last)).toBe(postedFooter);
    expect(buttonsOf(last).map((b) => b.label)).toEqual(['View card']);
    expect(resolveMenuOf(last)).toBeUndefined();
    expect(posted(message.id)).toHaveLength(2);
    expect(alertPosts(channel)).toHaveLength(1);
  });

  it('lets anyone in the channel resolve from the menu, saying why, and keeps rule management to server managers', async () => {
    const channel = stack.channelId;
    await addRule({ names: 'kucoin', when: 'downgrade' });
    await service.tick();
    await move({ kind: 'exchange', slug: 'kucoin', rating: 'CC' });
    expect((await service.tick()).posted).toBe(1);
    const message = stack.fake.messages(channel).find((m) => m.embeds[0]?.title === '🔔 Alert: KuCoin')!;
    const resolved = await resolveAs(channel, message.id, 'Duplicate', SAM);
    expect(JSON.stringify(resolved)).toMatch(new RegExp(`Resolved as duplicate by <@${SAM.id}> at \\d+ \\w+ \\d\\d:\\d\\d UTC`));
    expect(resolved.allowed_mentions).toEqual({ parse: [] });
    expect((resolved.embeds as { title: string }[])[0]!.title).toBe('✅ Alert: KuCoin');
    expect(resolveMenuOf(resolved)).toBeUndefined();
    const [stored] = await db.query<{ status: string; closed_reason: string; closed_by: string; closed_at: Date }>(
      `SELECT status, closed_reason, closed_by, closed_at FROM alert_incidents WHERE slug = 'kucoin'`,
    );
    expect(stored).toMatchObject({ status: 'resolved', closed_reason: 'duplicate', closed_by: 'Sam' });
    expect(Date.now() - stored!.closed_at.getTime()).toBeLessThan(60_000);

    // Rule management is /pol-alert, which Discord offers only to members who can manage the
    // server; the buttons above were for everyone.
    expect(() => stack.fake.sendCommand({ name: 'pol-alert', subcommand: 'remove', options: { id: 1 }, channelId: channel })).toThrow(
      /not available to a member/,
    );
    expect(await service.store.listChannel('discord', channel)).toHaveLength(2);
  });

  it('keeps the follow-ups waiting behind a slow one claimed, so no other replica posts them too', async () => {
    const { own, other, rule } = await twoReplicas();
    let ticking: Promise<unknown> | undefined;
    try {
      // Two incidents sharing one message, and so one thread.
      const { id } = await rule(stack.channelId, [
        { kind: 'exchange', slug: 'bitmart', name: 'BitMart' },
        { kind: 'exchange', slug: 'lbank', name: 'LBank' },
      ]);
      expect(await own.service.tick()).toMatchObject({ posted: 1 });
      const [{ message_ref: ref }] = (await own.db.query<{ message_ref: string }>(
        'SELECT DISTINCT message_ref FROM alert_incidents WHERE rule_id = $1',
        [id],
      )) as [{ message_ref: string }];
      // Both fall back under the line: each incident clears, with a reply in the thread.
      for (const slug of ['bitmart', 'lbank']) await simMove(stack.core.upstream.sim!, { kind: 'exchange', slug, pol: 0.005 });
      stack.core.upstream.source.cache.clear();
      await own.db.query('UPDATE alert_rules SET next_check = now() WHERE id = $1', [id]);
      // Discord answers the thread's first reply with a 429: that post waits out its Retry-After.
      stack.fake.rateLimitNext(`POST /channels/${ref}/messages`, { retryAfterSec: 6 });
      const started = Date.now();
      ticking = own.service.tick();
      await stack.fake.waitFor((c) => c.method === 'POST' && c.path === `/channels/${ref}/messages` && c.status === 429, 4_000);
      // Past a lease, while the first reply still waits: the second is still held, so another replica takes neither.
      await new Promise((r) => setTimeout(r, REPLICA_LEASE + 1_000 - (Date.now() - started)));
      expect(await other.tick()).toMatchObject({ followups: 0, lost: 0 });
      expect(await ticking).toMatchObject({ followups: 2, lost: 0, failed: 0 });
      const replies = stack.fake.calls((c) => c.method === 'POST' && c.path === `/channels/${ref}/messages` && c.status === 200);
      expect(replies.map((c) => (c.body as { embeds?: { title?: string }[] }).embeds?.[0]?.title).sort()).toEqual([
        '✅ Cleared: BitMart',
        '✅ Cleared: LBank',
      ]);
      const followups = await own.db.query<{ state: string; attempts: number; claimed_by: string }>(
        `SELECT f.state, f.attempts, f.claimed_by FROM alert_followups f JOIN alert_incidents i ON i.id = f.incident_id
          WHERE i.rule_id = $1 ORDER BY f.id`,
        [id],
      );
      expect(followups).toEqual([
        { state: 'done', attempts: 1, claimed_by: 'replica-a' },
        { state: 'done', attempts: 1, claimed_by: 'replica-a' },
      ]);
    } finally {
      await ticking?.catch(() => undefined);
    }
  }, 30_000);
});

describe('alert stats in Discord', () => {
  it('answers /pol-alert stats with each rule’s alerts, median time to acknowledge and noise, and flags the noisy one', async () => {
    const channel = stack.channelId;
    // The rules of the tests above: Bybit's level (one alert, cleared by itself) and KuCoin's
    // downgrades (one alert, resolved as a duplicate); KuCoin's earlier week written with its times.
    const [bybit, kucoin] = await service.store.listChannel('discord', channel);
    const now = Date.now();
    await writeHistory(
      service.store,
      kucoin!,
      [
        { openedAt: now - 6 * DAY, ackAfterMin: 2, reason: 'noise' },
        { openedAt: now - 5 * DAY, ackAfterMin: 6, reason: 'noise' },
        { openedAt: now - 4 * DAY, reason: 'noise' },
        { openedAt: now - 3 * DAY, reason: 'real' },
      ],
      'Lee',
    );
    const h = stack.fake.sendCommand({
      name: 'pol-alert',
      subcommand: 'stats',
      options: { window: '7d' },
      memberPermissions: MANAGER,
      channelId: channel,
    });
    const answer = (await h.waitForEdit(10_000)).body as { embeds: { title: string; description: string }[] };
    const [embed] = answer.embeds;
    expect(embed!.title).toBe('Alert rules over the last 7 days');
    const rows = Object.fromEntries(
      /```\n([\s\S]*?)\n```/
        .exec(embed!.description)![1]!
        .split('\n')
        .slice(2)
        .map((line) => {
          const [id, ...cells] = line.trim().split(/ {2,}/);
          return [id!, cells];
        }),
    );
    // KuCoin: five alerts, three of them noise, acknowledged after 2 and 6 minutes.
    expect(rows[String(kucoin!.id)]).toEqual(['KuCoin', 'downgrade', '5', '4 min', '60% of 5', 'longer cooldown: 1h']);
    expect(rows[String(bybit!.id)]).toEqual([
      'Bybit',
      expect.stringMatching(/^pol above [\d.]+%$/),
      '1',
      expect.stringMatching(/^\d+ (s|min)$/),
      '—',
    ]);
    // The suggestion is the command to run, written as Discord takes it: the subcommand and its options.
    expect(embed!.description).toMatch(
      new RegExp(
        `#${kucoin!.id}, a longer cooldown: </pol-alert add:\\d+> \`names: exchange:kucoin\` \`when: downgrade\` \`cooldown: 1h\`, then </pol-alert remove:\\d+> \`id: ${kucoin!.id}\`\\.`,
      ),
    );
  });
});

describe('alerts in Discord, compact', () => {
  it('posts a low rule as one line with its buttons and no chart, and keeps it so when acknowledged', async () => {
    const channel = stack.channelId;
    const start = stack.core.upstream.sim!.store.exchange('gate-io')!.pol.at(-1)!;
    const line = Math.round((start + 0.03) * 1000) / 10;
    const id = await addRule({ names: 'gate-io', when: `pol above ${line}%`, severity: 'low' });
    expect((await service.store.getInChannel(id, 'discord', channel))?.severity).toBe('low');
    await service.tick();
    await move({ kind: 'exchange', slug: 'gate-io', pol: (line + 1) / 100 });
    await service.tick();
    const message = stack.fake.messages(channel).find((m) => (m.embeds[0]?.description ?? '').includes(`(rule #${id}) Gate.io`))!;
    expect(message).toBeDefined();
    expect(message.embeds[0]!.title).toBeUndefined();
    expect(message.embeds[0]!.description).toContain(
      `Gate.io: PoL worsened from ${(start * 100).toFixed(1)}% to ${(line + 1).toFixed(1)}%`,
    );
    expect(message.attachments).toEqual([]);
    expect(message.embeds[0]!.image).toBeUndefined();
    expect(buttonsOf(message).map((b) => b.label)).toEqual(['Acknowledge', 'Snooze 1h', 'Snooze 24h', 'View card']);
    expect(resolveMenuOf(message)!.options.map((o) => o.label)).toEqual(['Real', 'Noise', 'Duplicate', 'Expected']);
    expect(footerOf(message)).toMatch(/source REST · SIMULATED DATA/);

    const acknowledged = await click(channel, message.id, 'Acknowledge');
    const embed = (acknowledged.embeds as { title?: string; description?: string; image?: unknown }[])[0]!;
    expect(embed.title).toBeUndefined();
    expect(embed.image).toBeUndefined();
    expect(embed.description).toContain(`Acknowledged by <@${DANA.id}>`);
    expect(acknowledged.allowed_mentions).toEqual({ parse: [] });
  });

  it('mutes a name for a while with /pol-alert mute, lists the mute, and ends it with /pol-alert unmute', async () => {
    const run = async (subcommand: string, options: Record<string, string>) =>
      JSON.stringify(
        (
          await stack.fake
            .sendCommand({ name: 'pol-alert', subcommand, options, memberPermissions: MANAGER, channelId: stack.channelId })
            .waitForEdit(10_000)
        ).body,
      );
    expect(await run('mute', { target: 'gate-io', for: '2h' })).toMatch(/🔕 Muted Gate\.io until \d+ \w+ \d\d:\d\d UTC/);
    expect((await service.store.mutes.active('discord', stack.channelId, Date.now())).map((m) => m.target)).toEqual([
      { scope: 'entity', entity: { kind: 'exchange', slug: 'gate-io', name: 'Gate.io' } },
    ]);
    expect(await run('list', {})).toContain('Muted (crossings recorded, not posted)');
    expect(await run('mute', { target: 'gate-io', for: '400d' })).toContain('A mute lasts 30 days at most.');
    expect(await run('unmute', { target: 'gate-io' })).toContain('🔔 Unmuted Gate.io');
    expect(await service.store.mutes.active('discord', stack.channelId, Date.now())).toEqual([]);
  });
});

describe('notify in Discord where the operator named no destinations', () => {
  it('offers nothing as notify is typed, whatever is typed', async () => {
    for (const typed of ['', 'o', 'oncall, ']) {
      const h = stack.fake.sendAutocomplete({
        name: 'pol-alert',
        subcommand: 'add',
        options: { names: 'binance', when: 'pol above 5%', notify: typed },
        focused: 'notify',
        memberPermissions: MANAGER,
        channelId: stack.channelId,
      });
      const answer = await h.callback(3_000);
      expect(answer.type, typed).toBe(8);
      expect((answer.data as { choices: unknown[] }).choices, typed).toEqual([]);
    }
  });
});

describe('escalation in Discord', () => {
  /** The service's clock, moved on by the test: escalation waits are minutes and hours. */
  let clock = Date.now();
  let escDb: Db;
  let escalating: AlertService;
  let oncall: string;
  let head: string;
  let quiet: string;

  beforeAll(async () => {
    ({ db: escDb, service: escalating } = await alertsOnPglite({
      deps: stack.core.ctx,
      deliverers: [discordDeliverer(stack.handle)],
      complete: stack.core.complete,
      leaseMs: 60_000,
      now: () => clock,
    }));
    stack.core.ctx.alerts = escalating;
    // The server's roles, as its managers made them.
    oncall = stack.fake.addRole(GUILD_ID, 'risk-oncall');
    head = stack.fake.addRole(GUILD_ID, 'head-of-risk');
    quiet = stack.fake.addRole(GUILD_ID, 'auditors', { mentionable: false });
  });
  afterAll(async () => {
    stack.core.ctx.alerts = service;
    await escDb.close();
  });

  /** A rule on `slug` 2 points above where it stands, checked once, then crossed: its message is posted. */
  async function crossing(slug: string, escalate: string): Promise<{ messageId: string; incident: number; answer: string }> {
    const sim = stack.core.upstream.sim!;
    const line = Math.round((sim.store.exchange(slug)!.pol.at(-1)! + 0.02) * 1000) / 10;
    const answer = await addAnswer({ names: slug, when: `pol above ${line}%`, cooldown: 'none', escalate });
    expect(answer).toMatch(/Alert rule #\d+ added/);
    clock = Date.now() + 1_000;
    await escalating.tick();
    await simMove(sim, { kind: 'exchange', slug, pol: (line + 5) / 100 });
    stack.core.upstream.source.cache.clear();
    await escDb.query('UPDATE alert_rules SET next_check = $1', [new Date(clock)]);
    expect(await escalating.tick()).toMatchObject({ posted: 1 });
    const [row] = await escDb.query<{ id: number; message_ref: string }>(
      'SELECT id, message_ref FROM alert_incidents WHERE slug = $1 ORDER BY id DESC LIMIT 1',
      [slug],
    );
    return { messageId: row!.message_ref, incident: row!.id, answer };
  }

  async function minutesOn(minutes: number) {
    clock += minutes * MINUTE;
    return escalating.tick();
  }

  /** What polbot posted in the thread started on the message that calls on a role. */
  const escalations = (messageId: string) => posted(messageId).filter((b) => String(b.content ?? '').includes('Still unacknowledged'));

  it('calls on the role in the thread once the delay passes unacknowledged, pinging that role alone, then on the next', async () => {
    const { messageId, incident, answer } = await crossing('upbit', `after 15m to <@&${oncall}> then after 1h to <@&${head}>`);
    expect(answer).toContain(
      'An alert still unacknowledged after 15 minutes calls on @risk-oncall in its thread, then @head-of-risk 1 hour later.',
    );

    expect((await minutesOn(14)).escalated).toBe(0);
    expect(escalations(messageId)).toEqual([]);
    expect((await minutesOn(1)).escalated).toBe(1);
    const [first, ...more] = escalations(messageId);
    expect(more).toEqual([]);
    expect(first!.content).toBe(
      `**⏫ Escalated: Upbit**\nStill unacknowledged after 15 minutes: <@&${oncall}>, please look.\nAlert #${incident}, step 1 of 2 · polbot escalation #1`,
    );
    // Only that role may be pinged, and Discord pings it: nobody else, whatever the message says.
    expect(first!.allowed_mentions).toEqual({ parse: [], roles: [oncall] });
    const stored = stack.fake.messages(messageId).filter((m) => m.content.includes('Still unacknowledged'));
    expect(stored.map((m) => m.mention_roles)).toEqual([[oncall]]);
    // The alert message says so in words, its mentions still allowed to ping nobody.
    const redrawn = edits(stack.channelId, messageId).at(-1)!.body as Record<string, unknown>;
    expect(JSON.stringify(redrawn)).toContain('to @risk-oncall');
    expect(redrawn.allowed_mentions).toEqual({ parse: [] });

    expect((await minutesOn(59)).escalated).toBe(0);
    expect((await minutesOn(1)).escalated).toBe(1);
    const replies = escalations(messageId);
    expect(replies).toHaveLength(2);
    expect(String(replies[1]!.content)).toContain(`Still unacknowledged after 1 hour 15 minutes: <@&${head}>, please look.`);
    expect(replies[1]!.allowed_mentions).toEqual({ parse: [], roles: [head] });
    expect((await minutesOn(180)).escalated).toBe(0);
    expect(escalations(messageId)).toHaveLength(2);
  });

  it('stops when the alert is acknowledged before the delay', async () => {
    const { messageId, incident } = await crossing('bithumb', `after 15m to <@&${oncall}>`);
    expect((await minutesOn(5)).escalated).toBe(0);
    const acknowledged = await click(stack.channelId, messageId, 'Acknowledge');
    expect(JSON.stringify(acknowledged)).toContain(`Acknowledged by <@${DANA.id}>`);
    expect((await minutesOn(30)).escalated).toBe(0);
    expect(escalations(messageId)).toEqual([]);
    expect((await escalating.store.escalations(incident)).map((e) => [e.state, e.reason])).toEqual([['stopped', 'acknowledged']]);
  });

  it('takes over a step whose replica died after posting it: the reply is found in the thread, and not posted again', async () => {
    const { messageId, incident } = await crossing('bitvavo', `after 15m to <@&${oncall}>`);
    clock += 15 * MINUTE;
    const store = escalating.store;
    const [due] = await store.claimEscalations({ now: clock, instance: 'dying', leaseMs: 60_000, limit: 10, platforms: ['discord'] });
    expect(await store.escalationFence(due!.id, 'dying', clock, 60_000)).toBe('go');
    await discordDeliverer(stack.handle).followUp(
      stack.channelId,
      messageId,
      escalationMessage({ incident: due!.incident, rule: due!.rule }, due!),
    );
    expect(escalations(messageId)).toHaveLength(1);
    clock += 61_000;
    expect(await escalating.tick()).toMatchObject({ escalated: 1, lost: 0 });
    expect(escalations(messageId)).toHaveLength(1);
    expect(await store.escalations(incident)).toMatchObject([{ state: 'done', attempts: 2 }]);
  });

  it('posts the steps of other channels while one thread is slow, and keeps the steps waiting behind it claimed', async () => {
    // A second channel of the server.
    const second = '1200000000000000931';
    stack.fake.addChannel(second, GUILD_ID, 'alerts-second');
    const { own, other, rule } = await twoReplicas();
    let ticking: Promise<unknown> | undefined;
    try {
      const escalation = [{ afterSec: 900, group: { id: oncall, label: '@risk-oncall' } }];
      // Two incidents sharing one message (and so one thread) in the first channel, one in the second.
      const rules = [
        await rule(
          stack.channelId,
          [
            { kind: 'exchange', slug: 'okx', name: 'OKX' },
            { kind: 'exchange', slug: 'gate-io', name: 'Gate.io' },
          ],
          escalation,
        ),
        await rule(second, [{ kind: 'exchange', slug: 'bitget', name: 'Bitget' }], escalation),
      ].map((r) => r.id);
      expect(await own.service.tick()).toMatchObject({ posted: 2 });
      const incidents = await own.db.query<{ id: number; slug: string; message_ref: string }>(
        'SELECT id, slug, message_ref FROM alert_incidents WHERE rule_id = ANY($1::int[]) ORDER BY id',
        [rules],
      );
      const refOf = (slug: string) => incidents.find((i) => i.slug === slug)!.message_ref;
      const [slow, fast] = [refOf('okx'), refOf('bitget')];
      expect(refOf('gate-io')).toBe(slow);
      // Due now rather than in 15 minutes, the slow thread's steps first in the queue.
      await own.db.query(
        `UPDATE alert_escalations e SET due_at = now() - CASE WHEN i.message_ref = $1 THEN interval '1 minute' ELSE interval '0' END
           FROM alert_incidents i WHERE i.id = e.incident_id AND i.rule_id = ANY($2::int[])`,
        [slow, rules],
      );
      // Discord answers the slow thread's first reply with a 429: that post waits out its Retry-After.
      stack.fake.rateLimitNext(`POST /channels/${slow}/messages`, { retryAfterSec: 6 });
      const started = Date.now();
      ticking = own.service.tick();
      // The other channel's step does not wait behind it.
      await stack.fake.waitFor((c) => c.method === 'POST' && c.path === `/channels/${fast}/messages` && c.status === 200, 4_000);
      expect(Date.now() - started).toBeLessThan(4_000);
      // Past a lease, while the slow post still waits: every step is still held (renewed), so another replica takes none.
      await new Promise((r) => setTimeout(r, REPLICA_LEASE + 1_000 - (Date.now() - started)));
      expect(await other.tick()).toMatchObject({ escalated: 0, lost: 0 });
      expect(await ticking).toMatchObject({ escalated: 3, lost: 0, failed: 0 });
      expect(Date.now() - started).toBeGreaterThan(5_000);
      const replies = (ref: string) =>
        stack.fake.calls((c) => c.method === 'POST' && c.path === `/channels/${ref}/messages` && c.status === 200);
      expect(replies(slow)).toHaveLength(2);
      expect(replies(fast)).toHaveLength(1);
      const steps = await own.db.query<{ state: string; attempts: number; claimed_by: string }>(
        `SELECT e.state, e.attempts, e.claimed_by FROM alert_escalations e JOIN alert_incidents i ON i.id = e.incident_id
          WHERE i.rule_id = ANY($1::int[]) ORDER BY e.id`,
        [rules],
      );
      expect(steps).toEqual(incidents.map(() => ({ state: 'done', attempts: 1, claimed_by: 'replica-a' })));
    } finally {
      await ticking?.catch(() => undefined);
    }
  }, 30_000);

  it('takes a role typed by name, warns of one nobody may mention, and refuses what is no role of the server, adding nothing', async () => {
    const before = (await escalating.store.listChannel('discord', stack.channelId)).length;
    const refused = async (escalate: string) => addAnswer({ names: 'bitso', when: 'pol above 60%', escalate });
    expect(await refused('after 15m to @risk-on-call')).toContain(
      'There is no role @risk-on-call in this server. Create it in Server Settings › Roles',
    );
    expect(await refused('after 15m to <@&1234567890123456789>')).toContain("That role is not one of this server's.");
    expect(await refused(`after 15m to <@${DANA.id}>`)).toContain('That is a person: an escalation calls on a role.');
    expect(await refused('after 15m to @everyone')).toContain('An escalation calls on a role, never everyone');
    expect(await refused(`after 400d to <@&${oncall}>`)).toContain('An escalation step waits between 5 minutes and 24 hours, not 400d.');
    expect(
      await refused(
        `after 15m to <@&${oncall}> then after 15m to <@&${oncall}> then after 15m to <@&${head}> then after 1h to <@&${head}>`,
      ),
    ).toContain('An escalation has at most 3 steps; this one has 4.');
    expect(await escalating.store.listChannel('discord', stack.channelId)).toHaveLength(before);

    // Typed by name without picking it from the list, and a role nobody may @mention: taken, with a word of warning.
    const added = await addAnswer({
      names: 'bitso',
      when: 'pol above 60%',
      escalate: 'after 30m to @risk-oncall then after 1h to @auditors',
    });
    expect(added).toContain('calls on @risk-oncall in its thread, then @auditors 1 hour later.');
    expect(added).toContain('@auditors does not allow anyone to @mention it');
    const rules = await escalating.store.listChannel('discord', stack.channelId);
    expect(rules.at(-1)!.escalation).toEqual([
      { afterSec: 1800, group: { id: oncall, label: '@risk-oncall' } },
      { afterSec: 3600, group: { id: quiet, label: '@auditors' } },
    ]);
    // The roles were read from the server, as Discord lists them.
    expect(stack.fake.calls((c) => c.method === 'GET' && c.path === `/guilds/${GUILD_ID}/roles`).every((c) => c.status === 200)).toBe(true);
  });
});
