import type { Db } from './connection.js';

export interface Migration {
  version: number;
  name: string;
  /** One statement per entry: PGlite's `query` runs a single statement. */
  statements: readonly string[];
}

/**
 * Append-only: a released migration is never edited, a change is a new version. Times are
 * `timestamptz` and every instant the scheduler compares comes from its own clock (passed as a
 * parameter), never from the server's `now()`, so tests control time and replicas agree on it.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'digests, runs and snapshots',
    statements: [
      `CREATE TABLE digests (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        platform text NOT NULL CHECK (platform IN ('slack', 'discord', 'console')),
        channel_id text NOT NULL,
        entities jsonb NOT NULL,
        cron text NOT NULL,
        schedule_label text NOT NULL,
        timezone text NOT NULL,
        state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused', 'failing')),
        state_reason text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        next_slot timestamptz,
        last_slot timestamptz,
        last_delivered_at timestamptz,
        last_error text
      )`,
      `CREATE INDEX digests_by_channel ON digests (platform, channel_id)`,
      `CREATE INDEX digests_due ON digests (next_slot) WHERE state = 'active'`,
      // One row per (digest, slot): the primary key is what makes a slot deliverable only once.
      `CREATE TABLE digest_runs (
        digest_id integer NOT NULL REFERENCES digests (id) ON DELETE CASCADE,
        slot timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'claimed', 'delivered', 'skipped', 'failed')),
        not_before timestamptz NOT NULL,
        claimed_by text,
        lease_until timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        parts_total integer,
        parts_sent integer NOT NULL DEFAULT 0,
        content jsonb,
        reason text,
        covers integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        PRIMARY KEY (digest_id, slot)
      )`,
      `CREATE INDEX digest_runs_open ON digest_runs (not_before) WHERE status IN ('pending', 'claimed')`,
    ],
  },
  {
    version: 2,
    name: 'alert rules, what checks saw, and incidents',
    statements: [
      `CREATE TABLE alert_rules (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        platform text NOT NULL CHECK (platform IN ('slack', 'discord', 'console')),
        workspace_id text,
        channel_id text NOT NULL,
        entities jsonb NOT NULL,
        condition jsonb NOT NULL,
        condition_text text NOT NULL,
        every_sec integer NOT NULL CHECK (every_sec BETWEEN 60 AND 86400),
        cooldown_sec integer NOT NULL CHECK (cooldown_sec BETWEEN 0 AND 604800),
        state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused')),
        state_reason text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        next_check timestamptz NOT NULL,
        checked_by text,
        check_lease_until timestamptz,
        last_checked_at timestamptz
      )`,
      `CREATE INDEX alert_rules_by_channel ON alert_rules (platform, channel_id)`,
      `CREATE INDEX alert_rules_by_workspace ON alert_rules (platform, workspace_id)`,
      `CREATE INDEX alert_rules_due ON alert_rules (next_check) WHERE state = 'active'`,
      // What the last check of a rule saw of each entity it watches: conditions are judged against
      // it, so a restart neither repeats an alert nor misses a crossing that happened meanwhile.
      `CREATE TABLE alert_rule_entities (
        rule_id integer NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('project', 'exchange')),
        slug text NOT NULL,
        reading jsonb,
        history jsonb NOT NULL DEFAULT '[]'::jsonb,
        holds boolean,
        checked_at timestamptz,
        PRIMARY KEY (rule_id, kind, slug)
      )`,
      `CREATE TABLE alert_incidents (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        rule_id integer NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
        kind text NOT NULL,
        slug text NOT NULL,
        status text NOT NULL CHECK (status IN ('open', 'acknowledged', 'snoozed', 'resolved', 'cleared')),
        verdict jsonb NOT NULL,
        opened_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        acknowledged_by text,
        snoozed_until timestamptz,
        closed_by text,
        closed_at timestamptz,
        message_ref text,
        delivery_state text NOT NULL DEFAULT 'pending' CHECK (delivery_state IN ('pending', 'claimed', 'delivered', 'failed')),
        delivery_by text,
        delivery_lease_until timestamptz,
        delivery_attempts integer NOT NULL DEFAULT 0,
        delivery_error text
      )`,
      `CREATE INDEX alert_incidents_to_deliver ON alert_incidents (opened_at) WHERE delivery_state IN ('pending', 'claimed')`,
      // At most one incident open per rule and entity, whatever the number of replicas checking.
      `CREATE UNIQUE INDEX alert_incidents_one_open ON alert_incidents (rule_id, kind, slug) WHERE status IN ('open', 'acknowledged', 'snoozed')`,
    ],
  },
  {
    version: 3,
    name: 'alert messages shared by incidents, follow-ups to deliver, and the channel ceiling',
    statements: [
      // Incidents opened in one check for one channel share one message: the lead's.
      `ALTER TABLE alert_incidents ADD COLUMN lead_id integer REFERENCES alert_incidents (id) ON DELETE CASCADE`,
      `ALTER TABLE alert_incidents ADD COLUMN delivered_at timestamptz`,
      `ALTER TABLE alert_incidents DROP CONSTRAINT alert_incidents_delivery_state_check`,
      // 'suppressed': held back by the channel's hourly ceiling and counted in its summary instead.
      `ALTER TABLE alert_incidents ADD CONSTRAINT alert_incidents_delivery_state_check CHECK (delivery_state IN ('pending', 'claimed', 'delivered', 'failed', 'suppressed'))`,
      `CREATE INDEX alert_incidents_by_lead ON alert_incidents (lead_id) WHERE lead_id IS NOT NULL`,
      `CREATE INDEX alert_incidents_posted ON alert_incidents (delivered_at) WHERE lead_id IS NULL AND delivered_at IS NOT NULL`,
      // What happens to an incident after its message is out (a further crossing, clearing by
      // itself) waits here until a replica claims it, exactly as the first message does.
      `CREATE TABLE alert_followups (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        incident_id integer NOT NULL REFERENCES alert_incidents (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('again', 'cleared')),
        verdict jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'claimed', 'done', 'skipped', 'failed')),
        claimed_by text,
        lease_until timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        error text
      )`,
      `CREATE INDEX alert_followups_to_deliver ON alert_followups (created_at) WHERE state IN ('pending', 'claimed')`,
    ],
  },
  {
    version: 4,
    name: 'when an alert was acknowledged, and who snoozed it',
    statements: [
      `ALTER TABLE alert_incidents ADD COLUMN acknowledged_at timestamptz`,
      `ALTER TABLE alert_incidents ADD COLUMN snoozed_by text`,
    ],
  },
  {
    version: 5,
    name: 'Slack installations for many workspaces, and the workspace of each digest and alert rule',
    statements: [
      // One row per installation: a workspace (keyed by its team id) or, for an Enterprise Grid
      // organisation-wide install, the organisation (keyed by its enterprise id). Tokens are only in
      // `sealed`, the whole installation encrypted with POLBOT_ENCRYPTION_KEY.
      `CREATE TABLE slack_installations (
        installation_key text PRIMARY KEY,
        enterprise_id text,
        team_id text,
        is_enterprise_install boolean NOT NULL,
        sealed text NOT NULL,
        installed_by text,
        installed_at timestamptz NOT NULL
      )`,
      // A known text sealed with the key in use, so a replica started with another key says so at start-up.
      `CREATE TABLE sealing_key_check (
        id integer PRIMARY KEY CHECK (id = 1),
        sealed text NOT NULL
      )`,
      // OAuth states already used: a callback replayed with one is refused, whichever replica it reaches.
      `CREATE TABLE slack_oauth_states_used (
        state_hash text PRIMARY KEY,
        used_at timestamptz NOT NULL
      )`,
      // Slack retries an event it thinks was lost; each event id is processed once.
      `CREATE TABLE slack_events_seen (
        event_id text PRIMARY KEY,
        seen_at timestamptz NOT NULL
      )`,
      `ALTER TABLE digests ADD COLUMN workspace_id text`,
      `ALTER TABLE digests ADD COLUMN enterprise_id text`,
      `ALTER TABLE alert_rules ADD COLUMN enterprise_id text`,
      `CREATE INDEX digests_by_workspace ON digests (platform, workspace_id)`,
    ],
  },
  {
    version: 6,
    name: 'recent lookups per person',
    statements: [
      // One row per person and entity: looking one up again moves it to the top rather than
      // adding a row. In the database, not in a replica's memory, so every replica shows the same.
      `CREATE TABLE recent_lookups (
        platform text NOT NULL CHECK (platform IN ('slack', 'discord')),
        workspace_id text NOT NULL,
        user_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('project', 'exchange')),
        slug text NOT NULL,
        name text NOT NULL,
        looked_up_at timestamptz NOT NULL,
        PRIMARY KEY (platform, workspace_id, user_id, kind, slug)
      )`,
      `CREATE INDEX recent_lookups_newest ON recent_lookups (platform, workspace_id, user_id, looked_up_at DESC)`,
    ],
  },
  {
    version: 7,
    name: 'what an alert message shows: where its data came from, the latest and worst values, and people by id',
    statements: [
      // Where the values and the chart an alert message shows came from (source, time, simulated,
      // stale), recorded when it is drawn and when a further crossing moves it: every redraw says
      // it again instead of leaving the footer blank.
      `ALTER TABLE alert_incidents ADD COLUMN shown jsonb`,
      // `verdict` stays what opened the incident; `latest` is the last further crossing or the
      // clearing, and `worst` the worst value since it opened, kept in the transaction that queues
      // the follow-up, so the message shows them rather than the opening value.
      `ALTER TABLE alert_incidents ADD COLUMN latest jsonb`,
      `ALTER TABLE alert_incidents ADD COLUMN worst jsonb`,
      // People by their id on the platform, which the message turns into a mention; the name
      // columns keep the name they had, and are all that rows written before this version have.
      `ALTER TABLE alert_incidents ADD COLUMN acknowledged_by_id text`,
      `ALTER TABLE alert_incidents ADD COLUMN snoozed_by_id text`,
      `ALTER TABLE alert_incidents ADD COLUMN closed_by_id text`,
      // 'redraw': a further crossing within the cooldown redraws the message without a thread reply.
      `ALTER TABLE alert_followups DROP CONSTRAINT alert_followups_kind_check`,
      `ALTER TABLE alert_followups ADD CONSTRAINT alert_followups_kind_check CHECK (kind IN ('again', 'cleared', 'redraw'))`,
    ],
  },
  {
    version: 8,
    name: 'why an alert was resolved, and its rule quality over a window',
    statements: [
      // Who and when are closed_by and closed_at; an incident that cleared by itself has no reason.
      `ALTER TABLE alert_incidents ADD COLUMN closed_reason text CHECK (closed_reason IN ('real', 'noise', 'duplicate', 'expected'))`,
      // `alert stats` reads a channel's incidents by rule and the time they opened.
      `CREATE INDEX alert_incidents_by_rule_opened ON alert_incidents (rule_id, opened_at)`,
    ],
  },
  {
    version: 9,
    name: 'alert destinations outside chat, and the events each incident sends them',
    statements: [
      `ALTER TABLE alert_rules ADD COLUMN notify text[] NOT NULL DEFAULT '{}'`,
      // One row per event and destination, written in the transaction that moves the incident, so a
      // transition is never lost nor sent twice: the row is claimed through the leased queue.
      // \`body\` is kept once written: a retry resends the same bytes, as a receiver that
      // de-duplicates by event id expects.
      `CREATE TABLE alert_events (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        incident_id integer NOT NULL REFERENCES alert_incidents (id) ON DELETE CASCADE,
        destination text NOT NULL,
        transition text NOT NULL CHECK (transition IN ('opened', 'escalated', 'acknowledged', 'snoozed', 'resolved', 'cleared')),
        actor text,
        occurred_at timestamptz NOT NULL,
        body text,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'claimed', 'done', 'failed')),
        not_before timestamptz NOT NULL,
        claimed_by text,
        lease_until timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        reason text,
        finished_at timestamptz
      )`,
      `CREATE INDEX alert_events_to_send ON alert_events (not_before) WHERE state IN ('pending', 'claimed')`,
      `CREATE INDEX alert_events_by_incident ON alert_events (incident_id)`,
    ],
  },
  {
    version: 10,
    name: "alert severity per rule, and a channel's alert format",
    statements: [
      `ALTER TABLE alert_rules ADD COLUMN severity text NOT NULL DEFAULT 'normal' CHECK (severity IN ('high', 'normal', 'low'))`,
      // A channel's default for rules of normal severity; a channel without a row posts in full.
      `CREATE TABLE alert_channels (
        platform text NOT NULL,
        channel_id text NOT NULL,
        format text NOT NULL CHECK (format IN ('compact', 'full')),
        set_by text NOT NULL,
        set_at timestamptz NOT NULL,
        PRIMARY KEY (platform, channel_id)
      )`,
    ],
  },
  {
    version: 11,
    name: 'alert mutes with an expiry, and the incidents they held back',
    statements: [
      // A mute covers an entity in the channel, one rule, or the whole channel, until it expires or
      // someone ends it; an ended or expired row is kept for catch-up.
      `CREATE TABLE alert_mutes (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        platform text NOT NULL,
        channel_id text NOT NULL,
        scope text NOT NULL CHECK (scope IN ('entity', 'rule', 'channel')),
        kind text,
        slug text,
        name text,
        rule_id integer REFERENCES alert_rules (id) ON DELETE CASCADE,
        until timestamptz NOT NULL,
        set_by text NOT NULL,
        set_by_id text,
        set_at timestamptz NOT NULL,
        ended_at timestamptz,
        ended_by text,
        ended_by_id text
      )`,
      `CREATE INDEX alert_mutes_by_channel ON alert_mutes (platform, channel_id, until)`,
      // An incident opened under a mute is recorded and held ('muted'), with the mute that held it;
      // when no mute covers it any longer and it is still open, it is delivered like any new one.
      `ALTER TABLE alert_incidents DROP CONSTRAINT alert_incidents_delivery_state_check`,
      `ALTER TABLE alert_incidents ADD CONSTRAINT alert_incidents_delivery_state_check CHECK (delivery_state IN ('pending', 'claimed', 'delivered', 'failed', 'suppressed', 'muted'))`,
      `ALTER TABLE alert_incidents ADD COLUMN held jsonb`,
      `CREATE INDEX alert_incidents_held ON alert_incidents (rule_id) WHERE delivery_state = 'muted'`,
    ],
  },
  {
    version: 12,
    name: 'alert escalation: the steps of a rule, and each incident’s steps to post',
    statements: [
      // The rule's steps as it was added: [{ afterSec, group: { id, label } }], in order.
      `ALTER TABLE alert_rules ADD COLUMN escalation jsonb NOT NULL DEFAULT '[]'::jsonb`,
      // One row per step of an incident, written when its message is delivered and claimed through
      // the leased queue like every other post. `due_at` is provisional for a later step: when the
      // step before it is posted, it becomes that moment plus its wait. Acknowledging, snoozing,
      // resolving or clearing the incident stops the steps still waiting, in the same transaction.
      `CREATE TABLE alert_escalations (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        incident_id integer NOT NULL REFERENCES alert_incidents (id) ON DELETE CASCADE,
        step integer NOT NULL CHECK (step >= 1),
        group_id text NOT NULL,
        group_label text NOT NULL,
        after_sec integer NOT NULL CHECK (after_sec > 0),
        due_at timestamptz NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'claimed', 'done', 'stopped', 'failed')),
        claimed_by text,
        lease_until timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        reason text,
        done_at timestamptz,
        UNIQUE (incident_id, step)
      )`,
      `CREATE INDEX alert_escalations_to_post ON alert_escalations (due_at) WHERE state IN ('pending', 'claimed')`,
      // Which step an 'escalated' event tells of, for the destinations that hear of it.
      `ALTER TABLE alert_events ADD COLUMN escalation jsonb`,
    ],
  },
  {
    version: 13,
    name: "polbot's own readings of the assets each exchange lists, for exposure",
    statements: [
      // One row per exchange and reading: every listed asset's PoL by the upstream's asset id. Of
      // a day only the first and the latest reading are kept, and none older than 90 days.
      `CREATE TABLE listed_asset_readings (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        exchange text NOT NULL,
        read_at timestamptz NOT NULL,
        pols jsonb NOT NULL
      )`,
      `CREATE INDEX listed_asset_readings_by_exchange ON listed_asset_readings (exchange, read_at)`,
    ],
  },
  {
    version: 14,
    name: 'a fourth platform name; what a platform that keeps no history for bots was sent; long button commands; updates seen',
    statements: [
      // The platform is the name of the adapter that posts there: a new adapter is a new name.
      `ALTER TABLE digests DROP CONSTRAINT digests_platform_check`,
      `ALTER TABLE digests ADD CONSTRAINT digests_platform_check CHECK (platform IN ('slack', 'discord', 'telegram', 'console'))`,
      `ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_platform_check`,
      `ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_platform_check CHECK (platform IN ('slack', 'discord', 'telegram', 'console'))`,
      `ALTER TABLE recent_lookups DROP CONSTRAINT recent_lookups_platform_check`,
      `ALTER TABLE recent_lookups ADD CONSTRAINT recent_lookups_platform_check CHECK (platform IN ('slack', 'discord', 'telegram'))`,
      // Where a bot cannot read a channel's history back, the deliverer keeps what it posted: the
      // search for an earlier post after a takeover (Deliverer.find) reads this instead. `parent`
      // is the message a reply follows up, for Deliverer.findReply.
      `CREATE TABLE posted_messages (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        platform text NOT NULL,
        channel_id text NOT NULL,
        ref text NOT NULL,
        parent text,
        body text NOT NULL,
        posted_at timestamptz NOT NULL
      )`,
      `CREATE INDEX posted_messages_newest ON posted_messages (platform, channel_id, posted_at DESC)`,
      // A button's command too long for what the platform lets a button carry, kept under a short
      // key: in the database, so the button works after a restart and on every replica.
      `CREATE TABLE button_commands (
        key text PRIMARY KEY,
        platform text NOT NULL,
        command text NOT NULL,
        created_at timestamptz NOT NULL
      )`,
      `CREATE INDEX button_commands_by_age ON button_commands (created_at)`,
      // Updates a platform delivers again after a lost answer, to whichever replica: each is run once.
      `CREATE TABLE updates_seen (
        platform text NOT NULL,
        update_id text NOT NULL,
        seen_at timestamptz NOT NULL,
        PRIMARY KEY (platform, update_id)
      )`,
    ],
  },
];

/** Serialises migrators across replicas; any constant works as long as every replica uses the same. */
const LOCK = `SELECT pg_advisory_xact_lock(hashtext('polbot:digest:migrations'))`;

/**
 * Applies what is missing, in order, inside one transaction holding an advisory lock: a second
 * replica starting at the same moment waits for the lock, then finds everything applied.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query(LOCK);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    const known = Math.max(0, ...migrations.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known) {
      throw new Error(`the digest database is at schema version ${newest}, newer than this polbot knows (${known}); upgrade polbot`);
    }
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      for (const sql of m.statements) await tx.query(sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
