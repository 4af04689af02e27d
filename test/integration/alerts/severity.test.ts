import { beforeAll, describe, expect, it } from 'vitest';
import type { AlertService } from '../../../src/alerts/service.js';
import type { Db } from '../../../src/db/connection.js';
import type { RecordedCall } from '../../fakes/slack/index.js';
import { DEFAULT_USER_ID } from '../../fakes/slack/identity.js';
import { simMove } from '../../helpers/sim.js';
import { blocksJson, footerLineOf, headerOf, type Harness } from '../../helpers/slack/harness.js';
import { slackAlertsForFile } from '../../helpers/slack/alerts.js';

/**
 * Severity and a channel's format, in Slack through the real Bolt app and the fake Slack: a low
 * rule's alert is one line with its buttons and no chart, and stays one line when redrawn; a
 * channel set to compact posts its normal rules as one line too, while a high rule is still posted
 * in full with its chart. Values are the simulator's: each exchange moved across its line over HTTP.
 */

const file = slackAlertsForFile();
const { say } = file;
let h: Harness;
let db: Db;
let service: AlertService;
const WAIT = 10_000;
beforeAll(() => {
  ({ h, db, service } = file);
});

const posts = (channel: string) =>
  h.fake.calls('chat.postMessage').filter((c) => c.args.channel === channel && c.status === 200 && !c.args.thread_ts);
const blocksOf = (c: RecordedCall) =>
  (c.args.blocks ?? []) as { type: string; text?: { text: string }; elements?: { type: string; text?: { text: string } | string }[] }[];
const hasImage = (c: RecordedCall) => blocksOf(c).some((b) => b.type === 'image');
const buttonLabels = (c: RecordedCall) =>
  blocksOf(c)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? [])
    .filter((e) => e.type === 'button')
    .map((e) => (e.text as { text: string }).text);
/** The one line of a compact alert: its first section's text. */
const lineOf = (c: RecordedCall) => blocksOf(c).find((b) => b.type === 'section')?.text?.text ?? '';

let asked = 0;
/** What the asker alone is told (a refusal), through the slash command's response URL. */
async function refused(text: string, channel: string): Promise<string> {
  const responseId = `severity-${++asked}`;
  await h.command(text, { channel, responseId });
  return blocksJson((await h.fake.waitFor('response_url', (c) => c.id === responseId, WAIT)).args);
}

/**
 * Adds a rule per exchange 2 points above where it stands, checks them once, and moves each 4
 * points up: the next tick opens an incident on each. Returns the rules with PoL before and after.
 */
async function crossing(
  channel: string,
  rules: readonly { slug: string; settings?: string }[],
): Promise<{ rule: number; from: number; to: number }[]> {
  const out: { rule: number; from: number; to: number }[] = [];
  for (const { slug, settings = '' } of rules) {
    const from = h.sim.store.exchange(slug)!.pol.at(-1)!;
    const added = await say(`alert add ${slug} when pol above ${((from + 0.02) * 100).toFixed(1)}%${settings}`, channel);
    out.push({ rule: Number(/Alert rule #(\d+) added/.exec(added)![1]), from, to: from + 0.04 });
  }
  await service.tick();
  for (const [i, { slug }] of rules.entries()) await simMove(h.sim, { kind: 'exchange', slug, pol: out[i]!.to });
  h.core.upstream.source.cache.clear();
  await db.query('UPDATE alert_rules SET next_check = now()');
  return out;
}

const pct = (p: number) => `${(p * 100).toFixed(p < 0.01 ? 2 : 1)}%`;

describe('alert severity and a channel’s format', () => {
  it('posts a low rule as one line with its buttons and no chart, and keeps it one line when acknowledged', async () => {
    const channel = 'CSEVLOW01';
    const added = await say('alert add okx when pol above 50% severity low', channel);
    expect(added).toContain('Low severity: always posted compact: one line with its buttons.');
    await db.query('DELETE FROM alert_rules WHERE channel_id = $1', [channel]);

    const [{ rule, from, to }] = (await crossing(channel, [{ slug: 'okx', settings: ' severity low' }])) as [
      { rule: number; from: number; to: number },
    ];
    expect((await service.store.getInChannel(rule, 'slack', channel))?.severity).toBe('low');
    expect(await service.tick()).toMatchObject({ posted: 1 });
    const alert = posts(channel).at(-1)!;
    expect(headerOf(alert.args)).toBeUndefined();
    expect(hasImage(alert)).toBe(false);
    expect(h.fake.files().filter((f) => f.channels.includes(channel))).toEqual([]);
    const [incident] = await db.query<{ id: number }>('SELECT id FROM alert_incidents WHERE rule_id = $1', [rule]);
    expect(lineOf(alert)).toBe(
      `🔔 #${incident!.id} (rule #${rule}) OKX: PoL worsened from ${pct(from)} to ${pct(to)} · Open since ${/Open since ([^"]+? UTC)/.exec(lineOf(alert))![1]}`,
    );
    expect(buttonLabels(alert)).toEqual(['Acknowledge', 'Snooze 1h', 'Snooze 24h', 'View card']);
    expect(blocksJson(alert.args)).toContain('Resolve as…');
    // The footer still says where the values came from, and carries the key the message is found again by.
    expect(footerLineOf(alert.args)).toMatch(/SIMULATED/);
    expect(blocksJson(alert.args)).toContain(`polbot alert #${incident!.id}`);

    const ts = (alert.response as { ts: string }).ts;
    const ack = alert.args.blocks as {
      type: string;
      elements?: { type: string; action_id: string; value: string; text: { text: string } }[];
    }[];
    const button = ack.flatMap((b) => b.elements ?? []).find((e) => e.type === 'button' && e.text.text === 'Acknowledge')!;
    await h.click(button.action_id, button.value, { channel, messageTs: ts });
    const redrawn = await h.fake.waitFor('chat.update', (c) => c.args.ts === ts, WAIT);
    expect(headerOf(redrawn.args)).toBeUndefined();
    expect(hasImage(redrawn)).toBe(false);
    expect(lineOf(redrawn)).toContain(`· Acknowledged by <@${DEFAULT_USER_ID}>`);
    expect(buttonLabels(redrawn)).toEqual(['Snooze 1h', 'Snooze 24h', 'View card']);
    expect(footerLineOf(redrawn.args)).toMatch(/SIMULATED/);
  });

  it('posts normal rules compact once the channel says so, and high rules in full with their chart', async () => {
    const channel = 'CSEVFMT01';
    expect(await say('alert format compact', channel)).toContain('Alerts in this channel: compact');
    const [normal, high] = (await crossing(channel, [{ slug: 'bybit' }, { slug: 'kucoin', settings: ' severity high' }])) as [
      { rule: number; from: number; to: number },
      { rule: number; from: number; to: number },
    ];
    // Two rules crossing in one check share a message, and a high one makes it a full card.
    expect(await service.tick()).toMatchObject({ posted: 1 });
    const both = posts(channel).at(-1)!;
    expect(headerOf(both.args)).toBe('🔔 2 alerts: Bybit, KuCoin');
    expect(hasImage(both)).toBe(true);
    for (const id of [normal.rule, high.rule]) await db.query("UPDATE alert_incidents SET status = 'resolved' WHERE rule_id = $1", [id]);

    // The normal rule alone, on its next crossing: one line.
    await simMove(h.sim, { kind: 'exchange', slug: 'bybit', pol: normal.from });
    h.core.upstream.source.cache.clear();
    await db.query('UPDATE alert_rules SET next_check = now(), cooldown_sec = 0');
    await service.tick();
    await simMove(h.sim, { kind: 'exchange', slug: 'bybit', pol: normal.to + 0.01 });
    h.core.upstream.source.cache.clear();
    await db.query('UPDATE alert_rules SET next_check = now()');
    expect(await service.tick()).toMatchObject({ posted: 1 });
    const line = posts(channel).at(-1)!;
    expect(headerOf(line.args)).toBeUndefined();
    expect(hasImage(line)).toBe(false);
    expect(lineOf(line)).toContain(`(rule #${normal.rule}) Bybit: PoL worsened from ${pct(normal.from)} to ${pct(normal.to + 0.01)}`);

    // Back to full, and `alert severity` turns a rule low from chat; a rule from another channel is not found.
    expect(await say('alert format full', channel)).toContain('Alerts in this channel: full');
    expect(await say(`alert severity ${normal.rule} low`, channel)).toContain(`Alert rule #${normal.rule}: low severity`);
    expect((await service.store.getInChannel(normal.rule, 'slack', channel))?.severity).toBe('low');
    expect(await refused(`alert severity ${normal.rule} high`, 'COTHER001')).toContain(
      `There is no alert rule #${normal.rule} in this channel.`,
    );
    expect(await refused(`alert severity ${normal.rule} loud`, channel)).toContain(
      "Say high, normal or low after the rule number, not 'loud'.",
    );
    expect((await service.store.getInChannel(normal.rule, 'slack', channel))?.severity).toBe('low');
  });
});
