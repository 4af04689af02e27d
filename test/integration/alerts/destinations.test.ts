import { PermissionFlagsBits } from 'discord.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBot, type Bot } from '../../../app/bot.js';
import { ConfigError, loadConfig } from '../../../app/config.js';
import { parseDestinations } from '../../../src/alerts/destinations.js';
import { Outbox } from '../../../src/alerts/outbox.js';
import type { Condition } from '../../../src/alerts/condition.js';
import type { Verdict } from '../../../src/alerts/evaluate.js';
import { AlertStore } from '../../../src/alerts/store.js';
import type { EntityRef } from '../../../src/api/domain.js';
import { migrate, type Db } from '../../../src/db/index.js';
import { createLogger } from '../../../src/log.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakePagerDuty, type FakePagerDuty } from '../../fakes/pagerduty/index.js';
import { postToBolt, slashCommandBody, startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { startFakeWebhook, type FakeWebhook } from '../../fakes/webhook/index.js';
import { addRule } from '../../helpers/alerts.js';
import { GUILD_ID } from '../../helpers/discord.js';
import { ENGINES, testDatabase, type TestDatabase } from '../../helpers/digest/helpers.js';
import { blocksJson, headerOf, SIGNING_SECRET } from '../../helpers/slack/harness.js';
import { secretWatch } from '../../helpers/secret-watch.js';

/**
 * Alerts told outside chat: a rule that says `notify oncall, siem` pages PagerDuty and posts signed
 * webhook events on each transition of its incidents, through the product's own senders, against
 * fakes that refuse what PagerDuty and a verifying receiver refuse.
 */

const ROUTING_KEY = 'R0UT1NGKEY0F32CHARACTERSEXACTLY0';
const CHANNEL = 'CDEST0001';

describe('destinations in the configuration', () => {
  const env = { POLBOT_WEBHOOK_SECRET_SIEM: 'a-long-webhook-secret-0123' };
  it('reads PagerDuty and webhook destinations by name', () => {
    const read = parseDestinations(`oncall=pagerduty:${ROUTING_KEY}, siem=webhook:https://siem.example.com/hook`, env);
    expect(read).toEqual({
      ok: true,
      destinations: [
        { name: 'oncall', kind: 'pagerduty', routingKey: ROUTING_KEY, eventsUrl: 'https://events.pagerduty.com/v2/enqueue' },
        { name: 'siem', kind: 'webhook', url: 'https://siem.example.com/hook', secret: 'a-long-webhook-secret-0123' },
      ],
    });
  });

  it('stops start-up with one line naming the variable, never repeating a secret', () => {
    const refused = (value: string, extra: Record<string, string> = {}) => {
      try {
        loadConfig({ POLBOT_DESTINATIONS: value, ...extra });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error(`accepted ${value}`);
    };
    expect(refused('oncall=pagerduty:short')).toBe(
      "POLBOT_DESTINATIONS: the routing key of 'oncall' must be the 32 characters of an Events API v2 integration key",
    );
    expect(refused('siem=webhook:https://siem.example.com/hook')).toBe(
      "POLBOT_WEBHOOK_SECRET_SIEM: required for the webhook destination 'siem' (a long random string)",
    );
    expect(refused('siem=webhook:http://siem.example.com/hook', env)).toBe("POLBOT_DESTINATIONS: the URL of 'siem' must be https");
    expect(refused('oncall=email:ops@example.com')).toBe(
      "POLBOT_DESTINATIONS: 'oncall=…' must read name=pagerduty:<routing key> or name=webhook:<https url>",
    );
    expect(refused(`Oncall=pagerduty:${ROUTING_KEY}`)).toMatch(/^POLBOT_DESTINATIONS: 'Oncall' is not a destination name/);
    expect(refused(`a=pagerduty:${ROUTING_KEY},a=pagerduty:${ROUTING_KEY}`)).toBe("POLBOT_DESTINATIONS: 'a' is named twice");
    expect(refused('siem=webhook:https://siem.example.com/hook', { POLBOT_WEBHOOK_SECRET_SIEM: 'short' })).toBe(
      'POLBOT_WEBHOOK_SECRET_SIEM: must be at least 16 characters',
    );
  });
});

describe('a rule that notifies PagerDuty and a webhook, through polbot start', () => {
  let slack: FakeSlack;
  let pagerduty: FakePagerDuty;
  let hook: FakeWebhook;
  let bot: Bot;
  let dataDir: string;
  let endpoint: string;

  beforeAll(async () => {
    [slack, pagerduty, hook] = await Promise.all([startFakeSlack(), startFakePagerDuty(), startFakeWebhook()]);
    secretWatch.secret(ROUTING_KEY, 'PagerDuty routing key');
    dataDir = await mkdtemp(join(tmpdir(), 'polbot-destinations-'));
    const config = loadConfig({
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
      POLBOT_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT_PER_USER: '0',
      POLBOT_DESTINATIONS: `oncall=pagerduty:${ROUTING_KEY},siem=webhook:${hook.url}`,
      POLBOT_WEBHOOK_SECRET_SIEM: hook.secret,
      PAGERDUTY_EVENTS_URL: pagerduty.eventsUrl,
    });
    bot = await startBot(config, createLogger({ level: 'silent' }));
    endpoint = `http://127.0.0.1:${bot.port}/slack/events`;
  });
  afterAll(async () => {
    await bot?.stop();
    await Promise.all([slack?.close(), pagerduty?.close(), hook?.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  const command = (text: string, responseId: string) =>
    postToBolt(endpoint, slashCommandBody({ text, channel_id: CHANNEL, response_url: slack.responseUrl(responseId) }), SIGNING_SECRET);
  const answer = async (responseId: string) => blocksJson((await slack.waitFor('response_url', (c) => c.id === responseId, 10_000)).args);

  it('refuses a destination the operator did not name, and adds nothing', async () => {
    await command('alert add aave when pol above 9% notify pagers', 'unknown');
    expect(await answer('unknown')).toContain("There is no destination 'pagers'. This polbot can notify oncall, siem.");
    expect(await bot.alerts.store.listChannel('slack', CHANNEL)).toEqual([]);
  });

  it('pages on opening, acknowledges and resolves with the incident, and signs every webhook event', async () => {
    await command('alert add aave when pol above 9% notify oncall, siem', 'add');
    const added = await slack.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === CHANNEL && /^Alert rule #\d+ added$/.test(headerOf(c.args) ?? ''),
      10_000,
    );
    expect(blocksJson(added.args)).toContain('Also telling oncall and siem.');
    const ruleId = Number(/#(\d+)/.exec(headerOf(added.args)!)![1]);
    expect((await bot.alerts.store.getInChannel(ruleId, 'slack', CHANNEL))?.notify).toEqual(['oncall', 'siem']);

    // alert test moves the simulator's Aave to 10.8% and checks at once: the real alert opens.
    await command(`alert test ${ruleId}`, 'test');
    const real = await slack.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === CHANNEL && headerOf(c.args) === '🔔 Alert: Aave (AAVE)',
      30_000,
    );
    const incidentId = Number(/polbot alert #(\d+)/.exec(blocksJson(real.args))![1]);
    await bot.alerts.tick();
    const dedupKey = `polbot-incident-${incidentId}`;
    await expect.poll(() => pagerduty.incidents({ dedupKey }).length, { timeout: 10_000 }).toBe(1);
    const paged = pagerduty.incidents({ routingKey: ROUTING_KEY, dedupKey })[0]!;
    expect(paged.status).toBe('triggered');
    expect(paged.payload).toMatchObject({
      summary: 'Aave: pol above 9% (0.40% → 10.8%)',
      source: 'polbot',
      severity: 'warning',
      component: 'project:aave',
      group: `rule-${ruleId}`,
    });

    await command(`alert ack ${incidentId}`, 'ack');
    await answer('ack');
    await bot.alerts.tick();
    await command(`alert resolve ${incidentId} as real`, 'resolve');
    await answer('resolve');
    await bot.alerts.tick();

    await expect.poll(() => pagerduty.incidents({ dedupKey })[0]?.status, { timeout: 10_000 }).toBe('resolved');
    expect(pagerduty.incidents({ dedupKey })[0]!.log.map((l) => l.action)).toEqual(['trigger', 'acknowledge', 'resolve']);
    expect(pagerduty.incidents()).toHaveLength(1);

    await expect.poll(() => hook.events().length, { timeout: 10_000 }).toBe(3);
    const events = hook.events();
    expect(events.map((e) => e.type)).toEqual(['incident.opened', 'incident.acknowledged', 'incident.resolved']);
    expect(events.every((e) => e.deliveries === 1)).toBe(true);
    expect(JSON.parse(events[0]!.raw)).toMatchObject({
      type: 'incident.opened',
      incident: { id: incidentId, entity: { kind: 'project', slug: 'aave', name: 'Aave' }, change: { from: '0.40%', to: '10.8%' } },
      rule: { id: ruleId, condition: 'pol above 9%', platform: 'slack', channel_id: CHANNEL },
    });
    // The list says where the rule reports, and that nothing failed.
    await command('alert list', 'list');
    const list = await slack.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === CHANNEL && /Alert rules in this channel/.test(blocksJson(c.args)),
      10_000,
    );
    expect(blocksJson(list.args)).toContain('oncall, siem');
    expect(blocksJson(list.args)).not.toContain('Not delivered outside chat');
  });
});

describe("notify's suggestions in Discord, through polbot start", () => {
  const MANAGER = String(PermissionFlagsBits.ManageGuild | PermissionFlagsBits.UseApplicationCommands | PermissionFlagsBits.SendMessages);
  const secrets = {
    POLBOT_WEBHOOK_SECRET_SIEM: 'a-long-webhook-secret-0123',
    POLBOT_WEBHOOK_SECRET_SECOPS: 'another-long-webhook-secret-4567',
  };
  let discord: FakeDiscord;
  let bot: Bot;
  let dataDir: string;

  beforeAll(async () => {
    discord = await startFakeDiscord({ guildIds: [GUILD_ID], heartbeatIntervalMs: 300 });
    secretWatch.secret(ROUTING_KEY, 'PagerDuty routing key');
    for (const secret of Object.values(secrets)) secretWatch.secret(secret, 'webhook signing secret');
    dataDir = await mkdtemp(join(tmpdir(), 'polbot-destinations-discord-'));
    bot = await startBot(
      loadConfig({
        DISCORD_TOKEN: discord.token,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_GUILD_ID: GUILD_ID,
        POLBOT_DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        RATE_LIMIT_PER_USER: '0',
        POLBOT_DESTINATIONS: `oncall=pagerduty:${ROUTING_KEY},siem=webhook:https://siem.example.com/polbot,secops=webhook:https://secops.example.com/hook`,
        ...secrets,
      }),
      createLogger({ level: 'silent' }),
    );
  });
  afterAll(async () => {
    await bot?.stop();
    await discord?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** What Discord shows under the notify option of /pol-alert add as `typed` is in it. */
  const offered = async (typed: string) => {
    const answer = await discord
      .sendAutocomplete({
        name: 'pol-alert',
        subcommand: 'add',
        options: { names: 'binance', when: 'pol above 5%', notify: typed },
        focused: 'notify',
        memberPermissions: MANAGER,
      })
      .callback(3_000);
    expect(answer.type).toBe(8);
    return (answer.data as { choices: { name: string; value: string }[] }).choices;
  };
  const each = (...names: string[]) => names.map((n) => ({ name: n, value: n }));

  it("offers the operator's destination names matching what is typed, the list so far kept, and nothing else", async () => {
    expect(await offered('')).toEqual(each('oncall', 'siem', 'secops'));
    expect(await offered('s')).toEqual(each('siem', 'secops'));
    // Matched anywhere in the name, those that start with it first; case aside.
    expect(await offered('OPS')).toEqual(each('secops'));
    expect(await offered('c')).toEqual(each('oncall', 'secops'));
    // A list goes on from its last name, without the names it has.
    expect(await offered('oncall, s')).toEqual(each('oncall, siem', 'oncall, secops'));
    expect(await offered('siem,')).toEqual(each('siem, oncall', 'siem, secops'));
    // A name nobody configured is never offered back.
    expect(await offered('pagerduty')).toEqual([]);
  });
});

describe.each(ENGINES)('the outbox on %s', (engine) => {
  let database: TestDatabase;
  let db: Db;
  let pagerduty: FakePagerDuty;
  let hook: FakeWebhook;
  beforeAll(async () => {
    database = await testDatabase(engine);
    db = await database.connect();
    await migrate(db);
    [pagerduty, hook] = await Promise.all([startFakePagerDuty(), startFakeWebhook()]);
    secretWatch.secret(ROUTING_KEY, 'PagerDuty routing key');
  });
  afterAll(async () => {
    await Promise.all([pagerduty?.close(), hook?.close()]);
    await database?.dispose();
  });

  const both = () => [
    { name: 'oncall', kind: 'pagerduty' as const, routingKey: ROUTING_KEY, eventsUrl: pagerduty.eventsUrl },
    { name: 'siem', kind: 'webhook' as const, url: hook.url, secret: hook.secret },
  ];
  /** A rule in `channelId` on `entity` telling both destinations, and an incident opened on it at `at`. */
  const openedOn = async (
    channelId: string,
    entity: EntityRef,
    rule: { condition: Condition; text: string },
    change: Verdict['change'],
    at: number,
  ) => {
    const created = await addRule(
      new AlertStore(db),
      { channelId, entities: [entity], condition: rule.condition, conditionText: rule.text, notify: ['oncall', 'siem'] },
      at,
    );
    const { incident } = await new AlertStore(db).openIncident(created.id, entity.kind, entity.slug, { holds: true, change }, at);
    return { rule: created, incident };
  };

  it('retries 429 and 5xx with backoff, sends the same bytes again, gives up with the reason, and two replicas send each event once', async () => {
    const store = new AlertStore(db);
    const destinations = both();
    const t0 = Date.parse('2026-11-20T09:00:00Z');
    const { rule, incident } = await openedOn(
      'COUTBOX01',
      { kind: 'project', slug: 'aave', name: 'Aave' },
      { condition: { kind: 'pol_above', threshold: 0.09 }, text: 'pol above 9%' },
      { from: '8.0%', to: '10.8%', trend: 'worse' },
      t0,
    );

    const a = new Outbox({ db: db, destinations, instance: 'replica-a', backoffMs: 5_000, giveUpAfterMs: 60_000 });
    const b = new Outbox({ db: db, destinations, instance: 'replica-b', backoffMs: 5_000, giveUpAfterMs: 60_000 });

    pagerduty.rateLimitNext();
    hook.failNext({ status: 503 });
    const [first, second] = await Promise.all([a.dispatch(t0), b.dispatch(t0)]);
    // Two events, each claimed by one replica only, each answered with a retryable failure.
    expect(first.retried + second.retried).toBe(2);
    expect(first.sent + second.sent).toBe(0);
    // Before the backoff has passed nothing is due; after it, each is sent once.
    expect(await a.dispatch(t0 + 4_000)).toEqual({ sent: 0, retried: 0, failed: 0, lost: 0 });
    const [third, fourth] = await Promise.all([a.dispatch(t0 + 5_000), b.dispatch(t0 + 5_000)]);
    expect(third.sent + fourth.sent).toBe(2);
    expect(pagerduty.incidents({ dedupKey: `polbot-incident-${incident.id}` })).toHaveLength(1);
    const accepted = hook.events();
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.deliveries).toBe(1);
    // The body that failed with 503 is the body that was accepted: its bytes were stored first.
    const failed = hook.calls().find((c) => c.status === 503)!;
    expect(failed.body).toBe(accepted[0]!.raw);

    // A destination that keeps refusing is given up on after the bound, and the list says why.
    await store.act(incident.id, { platform: 'slack', channelId: 'COUTBOX01' }, { kind: 'acknowledge', by: 'U0ACK0001' }, t0 + 10_000);
    for (let i = 0; i < 20; i++) pagerduty.failNext({ status: 500 });
    for (let at = t0 + 10_000; at <= t0 + 130_000; at += 10_000) await a.dispatch(at);
    const given = await a.failures([rule.id], t0 + 130_000);
    expect(given).toEqual([
      {
        ruleId: rule.id,
        destination: 'oncall',
        reason: expect.stringMatching(/^gave up after \d+ attempts over 1 min: PagerDuty answered 500$/),
        at: expect.any(Number),
      },
    ]);
    expect(hook.events().map((e) => e.type)).toEqual(['incident.opened', 'incident.acknowledged']);
  });

  it("sends an incident's events to each destination in the order they happened: a later one waits for a retried earlier one", async () => {
    for (const fake of [pagerduty, hook]) {
      fake.clear();
      fake.clearFaults();
    }
    const store = new AlertStore(db);
    const t0 = Date.parse('2026-11-21T09:00:00Z');
    const { incident } = await openedOn(
      'COUTBOX02',
      { kind: 'exchange', slug: 'kraken', name: 'Kraken' },
      { condition: { kind: 'pol_above', threshold: 0.05 }, text: 'pol above 5%' },
      { from: '4.0%', to: '6.2%', trend: 'worse' },
      t0,
    );
    const outbox = new Outbox({ db: db, destinations: both(), instance: 'replica-order', backoffMs: 5_000 });
    const where = { platform: 'slack' as const, channelId: 'COUTBOX02' };

    // PagerDuty throttles the trigger; the webhook takes its opening.
    pagerduty.rateLimitNext();
    expect(await outbox.dispatch(t0)).toEqual({ sent: 1, retried: 1, failed: 0, lost: 0 });
    // Acknowledged and resolved while the trigger waits out its backoff: the webhook hears of both
    // at once, PagerDuty of neither, since it would drop them for an incident it does not know.
    await store.act(incident.id, where, { kind: 'acknowledge', by: 'U0ACK0001' }, t0 + 1_000);
    await store.act(incident.id, where, { kind: 'resolve', by: 'U0ACK0001', reason: 'noise' }, t0 + 2_000);
    expect(await outbox.dispatch(t0 + 2_000)).toEqual({ sent: 1, retried: 0, failed: 0, lost: 0 });
    expect(await outbox.dispatch(t0 + 2_000)).toEqual({ sent: 1, retried: 0, failed: 0, lost: 0 });
    expect(pagerduty.calls()).toHaveLength(1);
    // After the backoff: the trigger, then the acknowledge, then the resolve, one pass each.
    for (let pass = 0; pass < 3; pass++) expect(await outbox.dispatch(t0 + 5_000)).toEqual({ sent: 1, retried: 0, failed: 0, lost: 0 });
    expect(await outbox.dispatch(t0 + 5_000)).toEqual({ sent: 0, retried: 0, failed: 0, lost: 0 });
    const dedupKey = `polbot-incident-${incident.id}`;
    expect(pagerduty.incidents({ dedupKey }).map((i) => [i.status, i.log.map((l) => `${l.action}:${l.outcome}`)])).toEqual([
      ['resolved', ['trigger:opened', 'acknowledge:acknowledged', 'resolve:resolved']],
    ]);
    expect(hook.events().map((e) => e.type)).toEqual(['incident.opened', 'incident.acknowledged', 'incident.resolved']);
  });

  it("pages with the rule's severity: high as critical, low as info, and tells the webhook the severity", async () => {
    const store = new AlertStore(db);
    const destinations = [
      { name: 'oncall', kind: 'pagerduty' as const, routingKey: ROUTING_KEY, eventsUrl: pagerduty.eventsUrl },
      { name: 'siem', kind: 'webhook' as const, url: hook.url, secret: hook.secret },
    ];
    const t0 = Date.parse('2026-11-21T09:00:00Z');
    const opened: Record<string, number> = {};
    for (const [slug, name, severity] of [
      ['lido-dao', 'Lido DAO', 'high'],
      ['uniswap', 'Uniswap', 'low'],
    ] as const) {
      const created = await store.create(
        {
          platform: 'slack',
          workspaceId: null,
          channelId: 'COUTBOX03',
          entities: [{ kind: 'project', slug, name }],
          condition: { kind: 'pol_above', threshold: 0.05 },
          conditionText: 'pol above 5%',
          everySec: 300,
          cooldownSec: 0,
          createdBy: 'U0MAKER01',
          notify: ['oncall', 'siem'],
          severity,
        },
        t0,
        { perChannel: 20, perWorkspace: 200 },
      );
      if (!created.ok) throw new Error('rule not created');
      expect(created.rule.severity).toBe(severity);
      opened[severity] = (await store.openIncident(created.rule.id, 'project', slug, { holds: true }, t0)).incident.id;
    }
    // Failures the fake PagerDuty was told of earlier may still be queued: retried until all four are sent.
    const outbox = new Outbox({ db, destinations, instance: 'replica-a', backoffMs: 1_000, giveUpAfterMs: 3_600_000 });
    let sent = 0;
    for (let i = 0; i < 30 && sent < 4; i++) sent += (await outbox.dispatch(t0 + i * 60_000)).sent;
    expect(sent).toBe(4);
    expect(pagerduty.incidents({ dedupKey: `polbot-incident-${opened.high}` })[0]!.payload).toMatchObject({ severity: 'critical' });
    expect(pagerduty.incidents({ dedupKey: `polbot-incident-${opened.low}` })[0]!.payload).toMatchObject({ severity: 'info' });
    const bodies = hook
      .events()
      .map((e) => JSON.parse(e.raw) as { incident: { id: number }; rule: { severity: string } })
      .filter((e) => e.incident.id === opened.high || e.incident.id === opened.low);
    expect(bodies.map((b) => [b.incident.id, b.rule.severity])).toEqual(
      expect.arrayContaining([
        [opened.high, 'high'],
        [opened.low, 'low'],
      ]),
    );
  });
});
