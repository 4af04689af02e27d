import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeenEvents } from '../../../adapters/slack/events-seen.js';
import { SealedInstallationStore } from '../../../adapters/slack/oauth/installation-store.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, openPostgres, type Db, type DbOptions } from '../../../src/db/connection.js';
import { openDatabase } from '../../../src/db/index.js';
import { migrate, MIGRATIONS } from '../../../src/db/migrations.js';
import { DigestStore, type RunContent } from '../../../src/digest/store.js';
import { RecentLookups } from '../../../src/recent/lookups.js';
import { createSealer } from '../../../src/secrets/seal.js';
import { createPostgresDatabase, ENGINES, MINUTE, type EngineName } from '../../helpers/digest/helpers.js';

/**
 * An install made with the previous release (820eb6e) starts on this one with its digests, rules
 * and incidents intact. test/fixtures/db-820eb6e.json is that release's database, written by its
 * own code (test/fixtures/db-820eb6e.generate.mjs): the migrations it shipped, word for word, the
 * schema they made and every row. Each engine gets that database back, and today's polbot opens it.
 */

interface Fixture {
  release: string;
  sealingKey: string;
  migrations: { version: number; name: string; statements: string[] }[];
  schema: { columns: Record<string, string[]>; indexes: string[]; constraints: string[] };
  sequences: { table: string; column: string; lastValue: number }[];
  rows: Record<string, Record<string, unknown>[]>;
}

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/db-820eb6e.json', import.meta.url), 'utf8')) as Fixture;
const released = (fixture.rows.schema_migrations ?? []).map((r) => Number(r.version));
const newest = Math.max(...released);

const t = (iso: string) => Date.parse(iso);
const SLACK = { platform: 'slack', channel: 'C0OLDSLACK', workspace: 'T0OLDTEAM' } as const;
const DISCORD = { platform: 'discord', channel: '1100000000000000001', guild: '1300000000000000001' } as const;
const SLOT = t('2026-11-20T08:00:00Z');
const NEXT_SLOT = t('2026-11-21T08:00:00Z');
const SLACK_MESSAGE = '1795165202.000100';
const NEW = 'replica-today';

/** The schema as the generator described it: columns, indexes and constraints, from the catalog. */
async function schemaOf(db: Db): Promise<Fixture['schema']> {
  const columns = await db.query<Record<string, string | null>>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const byTable: Record<string, string[]> = {};
  for (const c of columns) {
    const line = [
      c.column_name,
      c.data_type,
      c.is_nullable === 'NO' ? 'not null' : null,
      c.is_identity === 'YES' ? 'identity' : null,
      c.column_default === null ? null : `default ${c.column_default}`,
    ];
    const table = String(c.table_name);
    byTable[table] = [...(byTable[table] ?? []), line.filter(Boolean).join(' ')];
  }
  const indexes = await db.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`);
  const constraints = await db.query<{ c: string }>(
    `SELECT conrelid::regclass::text || ' ' || conname || ': ' || pg_get_constraintdef(oid) AS c FROM pg_constraint
      WHERE connamespace = 'public'::regnamespace AND contype <> 'n' ORDER BY conrelid::regclass::text, conname`,
  );
  return { columns: byTable, indexes: indexes.map((r) => r.indexdef), constraints: constraints.map((r) => r.c) };
}

/**
 * The release's database, rebuilt: its migrations applied by version from today's list (the test
 * above holds them equal to the released text), schema_migrations as that release's migrate()
 * makes it, every row as it was, and the identity sequences where they stood.
 */
async function restore(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`CREATE TABLE schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    for (const version of released) {
      const m = MIGRATIONS.find((x) => x.version === version);
      if (!m) throw new Error(`released migration ${version} is missing from MIGRATIONS`);
      for (const sql of m.statements) await tx.query(sql);
    }
    for (const [table, rows] of Object.entries(fixture.rows)) {
      if (!rows.length) continue;
      await tx.query(`INSERT INTO ${table} OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [
        JSON.stringify(rows),
      ]);
    }
    for (const s of fixture.sequences) {
      await tx.query('SELECT setval(pg_get_serial_sequence($1, $2), $3)', [s.table, s.column, s.lastValue]);
    }
  });
}

/** A place for the old install: a PGlite data directory, or a database of its own on the test server. */
async function installation(engine: EngineName): Promise<{ options: DbOptions; open(): Promise<Db>; dispose(): Promise<void> }> {
  if (engine === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'polbot-upgrade-'));
    return { options: { dataDir: dir }, open: () => openPglite(dir), dispose: () => rm(dir, { recursive: true, force: true }) };
  }
  const { url, drop } = await createPostgresDatabase();
  return { options: { databaseUrl: url, poolSize: 2 }, open: () => openPostgres(url, 2), dispose: drop };
}

describe('the migrations released in 820eb6e', () => {
  it('are in the fixture, one to six, and today every one of them reads exactly as released', () => {
    expect(fixture.release).toBe('820eb6e');
    expect(released).toEqual([1, 2, 3, 4, 5, 6]);
    expect(fixture.migrations.map((m) => m.version)).toEqual(released);
    for (const m of fixture.migrations) {
      const today = MIGRATIONS.find((x) => x.version === m.version);
      expect(today, `migration ${m.version}`).toBeDefined();
      expect({ version: today!.version, name: today!.name, statements: [...today!.statements] }).toEqual(m);
    }
  });
});

describe.each(ENGINES)('an install made with 820eb6e, upgraded on %s', (engine) => {
  let place: Awaited<ReturnType<typeof installation>>;
  let schemaBefore: Fixture['schema'];
  let db: Db;
  let digests: DigestStore;
  let alerts: AlertStore;

  beforeAll(async () => {
    place = await installation(engine);
    const old = await place.open();
    try {
      await restore(old);
      schemaBefore = await schemaOf(old);
    } finally {
      await old.close();
    }
    // Today's polbot starts on it, as `polbot start` opens its database.
    db = await openDatabase(place.options);
    digests = new DigestStore(db);
    alerts = new AlertStore(db);
  });
  afterAll(async () => {
    await db?.close();
    await place?.dispose();
  });

  it("is rebuilt with the release's own schema", () => {
    expect(schemaBefore).toEqual(fixture.schema);
  });

  it('starts without applying a released migration again', async () => {
    const versions = await db.query<{ version: number; name: string; applied_at: Date }>(
      'SELECT version, name, applied_at FROM schema_migrations ORDER BY version',
    );
    const old = versions.filter((v) => v.version <= newest);
    expect(old.map((v) => ({ version: v.version, name: v.name, applied_at: v.applied_at.toISOString() }))).toEqual(
      fixture.rows.schema_migrations!.map((r) => ({
        version: r.version,
        name: r.name,
        applied_at: new Date(String(r.applied_at)).toISOString(),
      })),
    );
    // Only migrations newer than the release were applied at start-up, and now nothing is left to do.
    expect(versions.filter((v) => v.version > newest).map((v) => v.version)).toEqual(
      MIGRATIONS.filter((m) => m.version > newest).map((m) => m.version),
    );
    expect(await migrate(db)).toEqual([]);
  });

  it('lists its digests and the delivered run, with what the channel saw', async () => {
    const slack = await digests.listChannel(SLACK.platform, SLACK.channel);
    expect(slack).toEqual([
      {
        id: 1,
        platform: 'slack',
        channelId: 'C0OLDSLACK',
        workspaceId: 'T0OLDTEAM',
        enterpriseId: null,
        entities: [
          { kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' },
          { kind: 'exchange', slug: 'kraken', name: 'Kraken' },
        ],
        cron: '0 9 * * *',
        scheduleLabel: 'daily at 09:00',
        timezone: 'Europe/Berlin',
        state: 'active',
        stateReason: null,
        createdBy: 'U0ALICE',
        createdAt: t('2026-11-19T10:00:00Z'),
        nextSlot: NEXT_SLOT,
        lastSlot: SLOT,
        lastDeliveredAt: t('2026-11-20T08:01:00Z'),
        lastError: null,
      },
    ]);
    expect((await digests.listChannel(DISCORD.platform, DISCORD.channel)).map((d) => d.id)).toEqual([2]);
    expect(await digests.get(2)).toEqual({
      id: 2,
      platform: 'discord',
      channelId: '1100000000000000001',
      workspaceId: null,
      enterpriseId: null,
      entities: [{ kind: 'exchange', slug: 'binance', name: 'Binance' }],
      cron: '0 8 * * 1',
      scheduleLabel: 'weekly on Monday at 08:00',
      timezone: 'UTC',
      state: 'active',
      stateReason: null,
      createdBy: '1200000000000000001',
      createdAt: t('2026-11-19T10:00:00Z'),
      nextSlot: t('2026-11-23T08:00:00Z'),
      lastSlot: null,
      lastDeliveredAt: null,
      lastError: null,
    });

    const [run, ...more] = await digests.runs(1);
    expect(more).toEqual([]);
    expect(run).toMatchObject({
      digestId: 1,
      slot: SLOT,
      status: 'delivered',
      notBefore: SLOT,
      claimedBy: 'replica-820eb6e',
      leaseUntil: null,
      attempts: 1,
      partsTotal: 1,
      partsSent: 1,
      reason: null,
      covers: 1,
      createdAt: SLOT + 30_000,
      finishedAt: SLOT + 60_000,
    });
    const content = run!.content as RunContent;
    expect(content.parts).toHaveLength(1);
    expect(content.parts[0]).toMatchObject({
      kind: 'table',
      title: 'Watchlist digest #1',
      rows: [
        { name: 'Bitcoin', pol: '2.1%', rating: 'AA' },
        { name: 'Kraken', pol: '3.4%', rating: 'A' },
      ],
      footer: { notes: ['digest #1 · 2026-11-20 09:00 Europe/Berlin (GMT+1)'], simulated: true },
    });
    expect(await digests.runs(2)).toEqual([]);

    expect(await digests.previousDelivered(1, NEXT_SLOT)).toEqual({
      slot: SLOT,
      snapshot: {
        takenAt: SLOT + 40_000,
        entities: [
          { kind: 'project', slug: 'bitcoin', name: 'Bitcoin', pol: 0.021, rating: 'AA', flags: [], status: 'ok' },
          { kind: 'exchange', slug: 'kraken', name: 'Kraken', pol: 0.034, rating: 'A', flags: null, status: 'ok' },
        ],
      },
    });
    expect(await digests.previousDelivered(1, SLOT)).toBeNull();
  });

  it('lists its alert rules and incidents, each only in its own channel', async () => {
    expect(await alerts.listChannel(SLACK.platform, SLACK.channel)).toEqual([
      {
        id: 1,
        platform: 'slack',
        workspaceId: 'T0OLDTEAM',
        enterpriseId: null,
        channelId: 'C0OLDSLACK',
        entities: [{ kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' }],
        condition: { kind: 'pol_above', threshold: 0.05 },
        conditionText: 'pol above 5%',
        everySec: 300,
        cooldownSec: 3600,
        notify: [],
        // A rule of that release is of normal severity, and escalates to nobody.
        severity: 'normal',
        escalation: [],
        state: 'active',
        stateReason: null,
        createdBy: 'U0ALICE',
        createdAt: t('2026-11-19T10:00:00Z'),
        nextCheck: t('2026-11-19T10:00:00Z'),
        lastCheckedAt: null,
      },
    ]);
    expect(await alerts.listChannel(DISCORD.platform, DISCORD.channel)).toMatchObject([
      {
        id: 2,
        platform: 'discord',
        workspaceId: DISCORD.guild,
        channelId: DISCORD.channel,
        entities: [{ kind: 'exchange', slug: 'kraken', name: 'Kraken' }],
        condition: { kind: 'rating_below', rating: 'A' },
        conditionText: 'rating below A',
        everySec: 900,
        cooldownSec: 0,
        notify: [],
        state: 'active',
      },
    ]);

    expect(await alerts.incidentInChannel(1, SLACK.platform, SLACK.channel)).toEqual({
      id: 1,
      ruleId: 1,
      kind: 'project',
      slug: 'bitcoin',
      status: 'open',
      verdict: { holds: true, change: { from: '4.0%', to: '6.2%', trend: 'worse' } },
      openedAt: t('2026-11-20T09:00:00Z'),
      acknowledgedBy: null,
      acknowledgedAt: null,
      snoozedBy: null,
      snoozedUntil: null,
      closedBy: null,
      closedAt: null,
      closedReason: null,
      acknowledgedById: null,
      snoozedById: null,
      closedById: null,
      latest: null,
      worst: null,
      shown: null,
      messageRef: SLACK_MESSAGE,
      leadId: null,
      deliveryState: 'delivered',
      deliveryAttempts: 1,
      // No mute held it: mutes came later.
      held: null,
    });
    expect(await alerts.incidentInChannel(2, DISCORD.platform, DISCORD.channel)).toMatchObject({
      id: 2,
      ruleId: 2,
      kind: 'exchange',
      slug: 'kraken',
      status: 'acknowledged',
      verdict: { holds: true, change: { from: 'A', to: 'BBB', trend: 'worse' } },
      acknowledgedBy: '1200000000000000002',
      acknowledgedAt: t('2026-11-20T09:20:00Z'),
      messageRef: '1400000000000000001',
      deliveryState: 'delivered',
    });
    expect(await alerts.incidentInChannel(1, DISCORD.platform, DISCORD.channel)).toBeNull();
    expect(await alerts.incidentInChannel(2, SLACK.platform, SLACK.channel)).toBeNull();

    const message = await alerts.message(1);
    expect(message.map((m) => [m.incident.id, m.incident.messageRef, m.rule.id, m.rule.channelId, m.rule.createdAt])).toEqual([
      [1, SLACK_MESSAGE, 1, 'C0OLDSLACK', t('2026-11-19T10:00:00Z')],
    ]);
    expect(await alerts.openCounts(SLACK.platform, SLACK.channel)).toEqual(new Map([[1, 1]]));
  });

  it('keeps its Slack installation under the same key, the events it saw and the lookups people made', async () => {
    const installs = new SealedInstallationStore(db, createSealer(Buffer.from(fixture.sealingKey, 'base64')));
    await installs.checkKey();
    expect(await installs.find({ teamId: SLACK.workspace })).toMatchObject({
      team: { id: 'T0OLDTEAM', name: 'Old Team' },
      isEnterpriseInstall: false,
      appId: 'A0OLDAPP',
      bot: { userId: 'U0OLDBOT', id: 'B0OLDBOT', scopes: ['commands', 'chat:write'] },
      user: { id: 'U0ALICE' },
    });
    expect(await new SeenEvents(db, () => t('2026-11-20T09:35:00Z')).first('Ev0OLDEVENT')).toBe(false);
    expect(await new RecentLookups(db).list({ platform: 'slack', workspaceId: SLACK.workspace, userId: 'U0ALICE' }, 5)).toEqual([
      { kind: 'project', slug: 'bitcoin', name: 'Bitcoin', lookedUpAt: t('2026-11-20T09:30:00Z') },
    ]);
  });

  it("delivers the Slack digest's next slot from the old rows, compared with what the old release delivered", async () => {
    const now = NEXT_SLOT + 30_000;
    expect(await digests.materialize(now, 60 * MINUTE)).toEqual({ digests: 1, pending: 1, skipped: 0 });
    const claimed = await digests.claim({ now, instance: NEW, leaseMs: 5 * MINUTE, platforms: ['slack', 'discord'], limit: 10 });
    expect(
      claimed.map((c) => [c.digest.id, c.digest.workspaceId, c.run.slot, c.run.status, c.run.claimedBy, c.run.attempts, c.recovered]),
    ).toEqual([[1, 'T0OLDTEAM', NEXT_SLOT, 'claimed', NEW, 1, false]]);
    expect((await digests.previousDelivered(1, NEXT_SLOT))?.slot).toBe(SLOT);
    expect(await digests.skippedBetween(1, SLOT, NEXT_SLOT)).toBe(0);
    const previous = (await digests.runs(1))[0]!.content!;
    expect(await digests.saveContent(1, NEXT_SLOT, NEW, previous, now + 5 * MINUTE)).toBe(true);
    expect(await digests.partSent(1, NEXT_SLOT, NEW, 1)).toBe(true);
    expect(await digests.delivered(1, NEXT_SLOT, NEW, now + MINUTE)).toBe(true);
    expect(await digests.get(1)).toMatchObject({ lastSlot: NEXT_SLOT, lastDeliveredAt: now + MINUTE, nextSlot: t('2026-11-22T08:00:00Z') });
    expect((await digests.runs(1)).map((r) => [r.slot, r.status])).toEqual([
      [SLOT, 'delivered'],
      [NEXT_SLOT, 'delivered'],
    ]);
    // New rows continue the old ids.
    const created = await digests.create(
      {
        platform: 'slack',
        channelId: SLACK.channel,
        workspaceId: SLACK.workspace,
        entities: [{ kind: 'project', slug: 'aave', name: 'Aave' }],
        schedule: { cron: '0 9 * * *', timezone: 'UTC', label: 'daily at 09:00' },
        createdBy: 'U0CAROL',
      },
      now,
      10,
    );
    expect(created).toMatchObject({ ok: true, digest: { id: 3 } });
  });

  it('acknowledges the open incident from its channel and delivers its waiting follow-up in the old message thread', async () => {
    const at = t('2026-11-21T10:00:00Z');
    expect(await alerts.act(1, { platform: 'discord', channelId: DISCORD.channel }, { kind: 'acknowledge', by: 'someone' }, at)).toBeNull();
    expect(await alerts.act(1, { platform: 'slack', channelId: SLACK.channel }, { kind: 'acknowledge', by: 'U0CAROL' }, at)).toMatchObject({
      id: 1,
      status: 'acknowledged',
      acknowledgedBy: 'U0CAROL',
      acknowledgedAt: at,
      messageRef: SLACK_MESSAGE,
      deliveryState: 'delivered',
    });
    const followups = await alerts.claimFollowups({ now: at, instance: NEW, leaseMs: 5 * MINUTE, limit: 10 });
    expect(followups.map((f) => [f.id, f.kind, f.verdict, f.attempts, f.incident.id, f.incident.status, f.rule.id, f.message])).toEqual([
      [
        1,
        'again',
        { holds: true, change: { from: '6.2%', to: '7.5%', trend: 'worse' } },
        1,
        1,
        'acknowledged',
        1,
        { leadId: 1, ref: SLACK_MESSAGE, state: 'delivered' },
      ],
    ]);
    expect(await alerts.followupSettled(1, NEW, 'done')).toBe(true);
    // A new crossing opens a new incident, numbered after the old ones.
    const opened = await alerts.openIncident(2, 'exchange', 'binance', { holds: true }, at);
    expect(opened).toMatchObject({ opened: true, incident: { id: 3, ruleId: 2, status: 'open' } });
  });
});
