import { createHash } from 'node:crypto';
import { carriesKey } from '../../src/delivery/port.js';
import type { Queryable } from '../../src/db/index.js';

/**
 * What the Telegram adapter keeps in the one database: button commands too long for a button,
 * update ids already handled, and what it posted unasked (a bot cannot read a chat's history back).
 */

const PLATFORM = 'telegram';
/** Stored commands unused for this long are forgotten; a press on one then asks to run it again. */
const KEEP_COMMANDS_MS = 90 * 24 * 3_600_000;
/** Telegram redelivers an update it thinks was lost within minutes; ids are kept well past that. */
const KEEP_UPDATES_MS = 60 * 60_000;
/** What the search for an earlier post reads: the newest posts to the chat, as a channel's recent history would be. */
const POSTS_SEARCHED = 50;
const KEEP_POSTS_MS = 30 * 24 * 3_600_000;
const PRUNE_EVERY = 200;

const iso = (ms: number) => new Date(ms).toISOString();

/** Deletes a table's rows older than `keepMs` every PRUNE_EVERY writes: old rows go now and then, not on every write. */
class Pruner {
  private writes = 0;

  constructor(
    private readonly db: Queryable,
    private readonly table: string,
    private readonly column: string,
    private readonly keepMs: number,
  ) {}

  async maybe(now: number): Promise<void> {
    if (++this.writes % PRUNE_EVERY !== 0) return;
    await this.db.query(`DELETE FROM ${this.table} WHERE platform = $1 AND ${this.column} < $2`, [PLATFORM, iso(now - this.keepMs)]);
  }
}

/**
 * A long command under a short key. The key is the command's own hash, so the same button on a
 * thousand cards is one row, and writing it again only marks it as still in use.
 */
export class ButtonCommands {
  private readonly pruner: Pruner;

  constructor(
    private readonly db: Queryable,
    private readonly clock: () => number = Date.now,
  ) {
    this.pruner = new Pruner(db, 'button_commands', 'created_at', KEEP_COMMANDS_MS);
  }

  async park(command: string): Promise<string> {
    const key = createHash('sha256').update(command).digest('base64url').slice(0, 22);
    const now = this.clock();
    await this.pruner.maybe(now);
    await this.db.query(
      `INSERT INTO button_commands (key, platform, command, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key) DO UPDATE SET created_at = EXCLUDED.created_at`,
      [key, PLATFORM, command, iso(now)],
    );
    return key;
  }

  async take(key: string): Promise<string | undefined> {
    const rows = await this.db.query<{ command: string }>('SELECT command FROM button_commands WHERE key = $1 AND platform = $2', [
      key,
      PLATFORM,
    ]);
    return rows[0]?.command;
  }
}

/** Update ids already taken, across replicas: a redelivered update reaches whichever replica, and only the first runs it. */
export class SeenUpdates {
  private readonly pruner: Pruner;

  constructor(
    private readonly db: Queryable,
    private readonly clock: () => number = Date.now,
  ) {
    this.pruner = new Pruner(db, 'updates_seen', 'seen_at', KEEP_UPDATES_MS);
  }

  /** True the first time `updateId` is offered, false for every repeat within the hour. */
  async first(updateId: number): Promise<boolean> {
    const now = this.clock();
    await this.pruner.maybe(now);
    const rows = await this.db.query(
      `INSERT INTO updates_seen (platform, update_id, seen_at) VALUES ($1, $2, $3)
       ON CONFLICT (platform, update_id) DO NOTHING RETURNING update_id`,
      [PLATFORM, String(updateId), iso(now)],
    );
    return rows.length > 0;
  }
}

/**
 * What the deliverer posted, so that work claimed again after a takeover can tell whether its
 * earlier holder's post reached the chat. Recorded the moment Telegram answers: a holder that dies
 * between Telegram taking the message and this write leaves the one gap a history search would close.
 */
export class PostedMessages {
  private readonly pruner: Pruner;

  constructor(
    private readonly db: Queryable,
    private readonly clock: () => number = Date.now,
  ) {
    this.pruner = new Pruner(db, 'posted_messages', 'posted_at', KEEP_POSTS_MS);
  }

  async record(chat: string, ref: string, body: string, parent?: string): Promise<void> {
    const now = this.clock();
    await this.pruner.maybe(now);
    await this.db.query(
      'INSERT INTO posted_messages (platform, channel_id, ref, parent, body, posted_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [PLATFORM, chat, ref, parent ?? null, body, iso(now)],
    );
  }

  /** The newest post to the chat carrying `key`, by its reference; null when none of the recent ones does. */
  async find(chat: string, key: string): Promise<string | null> {
    const rows = await this.db.query<{ ref: string; body: string }>(
      `SELECT ref, body FROM posted_messages WHERE platform = $1 AND channel_id = $2 AND parent IS NULL
       ORDER BY posted_at DESC, id DESC LIMIT ${POSTS_SEARCHED}`,
      [PLATFORM, chat],
    );
    return rows.find((r) => carriesKey(r.body, key))?.ref ?? null;
  }

  /** Whether a reply to the post `parent` carries `key`. */
  async findReply(chat: string, parent: string, key: string): Promise<boolean> {
    const rows = await this.db.query<{ body: string }>(
      'SELECT body FROM posted_messages WHERE platform = $1 AND channel_id = $2 AND parent = $3',
      [PLATFORM, chat, parent],
    );
    return rows.some((r) => carriesKey(r.body, key));
  }
}
