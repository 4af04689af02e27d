import type { Db } from '../../../src/db/connection.js';
import { simMove } from '../sim.js';
import { headerOf, type Harness } from './harness.js';

/** How long to wait for the fake Slack to see a request: generous, for a loaded machine. */
const WAIT = 10_000;

/** Moves the simulator as the upstream would move, over HTTP, and makes every rule due now. */
export async function moveAndDue(h: Harness, db: Db, body: Record<string, unknown>): Promise<void> {
  await simMove(h.sim, body);
  h.core.upstream.source.cache.clear();
  await db.query('UPDATE alert_rules SET next_check = now()');
}

/** Adds an alert rule by slash command in `channel` and returns its number, read from the channel's confirmation. */
export async function addRuleBySlash(h: Harness, text: string, channel: string): Promise<number> {
  const seen = new Set(h.fake.calls('chat.postMessage'));
  await h.command(text, { channel });
  const added = await h.fake.waitFor(
    'chat.postMessage',
    (c) => !seen.has(c) && c.args.channel === channel && /^Alert rule #\d+ added$/.test(headerOf(c.args) ?? ''),
    WAIT,
  );
  return Number(/#(\d+)/.exec(headerOf(added.args)!)![1]);
}
