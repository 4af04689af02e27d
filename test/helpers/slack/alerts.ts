import { afterAll, beforeAll } from 'vitest';
import { slackDeliverer } from '../../../adapters/slack/deliverer.js';
import { AlertService } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { simMove } from '../sim.js';
import { blocksJson, headerOf, quiesce, startHarness, type Harness } from './harness.js';

/** The Slack harness with the product's alert service on a PGlite store of its own, posting through the Slack adapter. */
export interface SlackAlerts {
  h: Harness;
  db: Db;
  service: AlertService;
  /** Runs a slash command in `channel` and returns what came back: to the channel, or to the asker alone. */
  say(text: string, channel: string): Promise<string>;
}

/** Started before the file's tests and closed after them; read its fields inside tests. */
export function slackAlertsForFile(): SlackAlerts {
  const self = { asked: 0 } as SlackAlerts & { asked: number };
  beforeAll(async () => {
    self.h = await startHarness();
    self.db = await openPglite();
    await migrate(self.db);
    self.service = new AlertService({
      store: new AlertStore(self.db),
      deps: self.h.core.ctx,
      deliverers: [slackDeliverer(self.h.slack)],
      complete: self.h.core.complete,
      leaseMs: 60_000,
    });
    self.h.core.ctx.alerts = self.service;
  });
  afterAll(async () => {
    await quiesce(self.h);
    await self.h.close();
    await self.db.close();
  });
  self.say = async (text, channel) => {
    const { h } = self;
    const responseId = `alerts-${++self.asked}`;
    const seen = new Set(h.fake.calls('chat.postMessage'));
    await h.command(text, { channel, responseId });
    const answer = await Promise.race([
      h.fake.waitFor('chat.postMessage', (c) => !seen.has(c) && c.args.channel === channel, 10_000),
      h.fake.waitFor('response_url', (c) => c.id === responseId, 10_000),
    ]);
    return blocksJson(answer.args);
  };
  return self;
}

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
