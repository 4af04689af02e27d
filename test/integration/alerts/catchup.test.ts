import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/index.js';
import type { Db } from '../../../src/db/index.js';
import type { AlertService } from '../../../src/alerts/service.js';
import type { AlertRule } from '../../../src/alerts/store.js';
import { DEFAULT_USER_ID } from '../../fakes/slack/identity.js';
import { alertsOnPglite } from '../../helpers/alerts.js';
import { startStack, type Stack } from '../../helpers/discord.js';
import { ephemeralAnswer, startHarness, uniqueId, type Harness } from '../../helpers/slack/harness.js';

/**
 * `alert catchup`: what happened to a channel's alerts over a window, for the asker alone. The
 * history is written through the store with explicit times, as checks and people would have.
 */

const HOUR = 3_600_000;

/** Aave: opened 30 h ago and still acknowledged; Kraken: opened 5 h ago, resolved as noise; Pepe: opened and cleared 2 h ago; Uniswap: closed 3 days ago. */
async function history(service: AlertService, platform: 'slack' | 'discord', channelId: string, person: string): Promise<number[]> {
  const now = Date.now();
  const store = service.store;
  const rule = async (slug: string, kind: 'project' | 'exchange', name: string): Promise<AlertRule> => {
    const created = await store.create(
      {
        platform,
        workspaceId: null,
        channelId,
        entities: [{ kind, slug, name }],
        condition: { kind: 'pol_above', threshold: 0.05 },
        conditionText: 'pol above 5%',
        everySec: 300,
        cooldownSec: 0,
        createdBy: person,
      },
      now - 100 * HOUR,
      { perChannel: 20, perWorkspace: 200 },
    );
    if (!created.ok) throw new Error('rule not created');
    return created.rule;
  };
  const crossing = { holds: true, change: { from: '4.0%', to: '6.0%', trend: 'worse' as const } };
  const where = { platform, channelId };
  const aave = await rule('aave', 'project', 'Aave');
  const kraken = await rule('kraken', 'exchange', 'Kraken');
  const pepe = await rule('pepe', 'project', 'Pepe');
  const uniswap = await rule('uniswap', 'project', 'Uniswap');
  const a = (await store.openIncident(aave.id, 'project', 'aave', crossing, now - 30 * HOUR)).incident.id;
  await store.act(a, where, { kind: 'acknowledge', by: 'dana', byId: person }, now - 3 * HOUR);
  const k = (await store.openIncident(kraken.id, 'exchange', 'kraken', crossing, now - 5 * HOUR)).incident.id;
  await store.act(k, where, { kind: 'resolve', by: 'dana', byId: person, reason: 'noise' }, now - 4 * HOUR);
  const p = (await store.openIncident(pepe.id, 'project', 'pepe', crossing, now - 2 * HOUR)).incident.id;
  await store.clearIncident(p, { holds: false, change: { from: '6.0%', to: '4.0%', trend: 'better' } }, now - HOUR);
  const u = (await store.openIncident(uniswap.id, 'project', 'uniswap', crossing, now - 80 * HOUR)).incident.id;
  await store.act(u, where, { kind: 'resolve', by: 'dana', byId: person, reason: 'real' }, now - 72 * HOUR);
  return [a, k, p, u];
}

describe('alert catchup in Slack', () => {
  let h: Harness;
  let db: Db;
  beforeAll(async () => {
    h = await startHarness();
    let service: AlertService;
    ({ db, service } = await alertsOnPglite({ deps: h.core.ctx, deliverers: [], complete: h.core.complete }));
    h.core.ctx.alerts = service;
  });
  afterAll(async () => {
    await h.close();
    await db.close();
  });

  it('tells the asker alone what opened, what is still open and for how long, who acknowledged, what was resolved and why, and what cleared', async () => {
    const [a, k, p, u] = await history((h.core as Core).ctx.alerts!, 'slack', 'CCATCHUP1', DEFAULT_USER_ID);
    const id = uniqueId('catchup');
    const answer = await ephemeralAnswer(h, await h.command('alert catchup', { channel: 'CCATCHUP1', responseId: id }), id);
    const shown = JSON.stringify(answer.blocks);
    expect(shown).toContain('Alerts in this channel over the last 24 hours');
    expect(shown).toContain('*Opened (2)*');
    expect(shown).toMatch(new RegExp(`#${k} Kraken · pol above 5% · at \\d+ \\w+ \\d\\d:\\d\\d UTC`));
    expect(shown).toContain('*Still open (1)*');
    expect(shown).toContain(`#${a} Aave · open 30 h · Acknowledged by <@${DEFAULT_USER_ID}> at`);
    expect(shown).toContain(`*Acknowledged (1)*`);
    expect(shown).toMatch(new RegExp(`#${a} Aave · acknowledged by <@${DEFAULT_USER_ID}> at`));
    expect(shown).toContain('*Resolved (1)*');
    expect(shown).toMatch(new RegExp(`#${k} Kraken · Resolved as noise by <@${DEFAULT_USER_ID}> at`));
    expect(shown).toContain('*Cleared by itself (1)*');
    expect(shown).toContain(`#${p} Pepe · pol above 5% no longer holds`);
    // Three days back is outside the day.
    expect(shown).not.toContain(`#${u} Uniswap`);

    const week = uniqueId('catchup-week');
    const wider = await ephemeralAnswer(h, await h.command('alert catchup 7d', { channel: 'CCATCHUP1', responseId: week }), week);
    expect(JSON.stringify(wider.blocks)).toMatch(new RegExp(`#${u} Uniswap · Resolved as real by <@${DEFAULT_USER_ID}> at`));
    expect(JSON.stringify(wider.blocks)).toContain('*Resolved (2)*');

    const quiet = uniqueId('catchup-quiet');
    const nothing = await ephemeralAnswer(h, await h.command('alert catchup', { channel: 'CCATCHUP2', responseId: quiet }), quiet);
    expect(JSON.stringify(nothing.blocks)).toContain('Nothing opened, moved or closed, and nothing is open.');

    const bad = uniqueId('catchup-bad');
    const refused = await ephemeralAnswer(h, await h.command('alert catchup 3d', { channel: 'CCATCHUP1', responseId: bad }), bad);
    expect(String(refused.text)).toContain("Unknown window '3d'");
  });
});

describe('alert catchup in Discord', () => {
  let stack: Stack;
  let db: Db;
  beforeAll(async () => {
    stack = await startStack({ RATE_LIMIT_PER_USER: '0' });
    let service: AlertService;
    ({ db, service } = await alertsOnPglite({ deps: stack.core.ctx, deliverers: [], complete: stack.core.complete }));
    stack.core.ctx.alerts = service;
  });
  afterAll(async () => {
    await stack.close();
    await db.close();
  });

  it('answers /pol-alert catchup privately, naming people as mentions that notify nobody', async () => {
    const person = '310000000000000009';
    const [a, k] = await history(stack.core.ctx.alerts!, 'discord', stack.channelId, person);
    const h = stack.fake.sendCommand({
      name: 'pol-alert',
      subcommand: 'catchup',
      options: { window: '24h' },
      channelId: stack.channelId,
      memberPermissions: 1n << 5n,
    });
    const answer = (await h.waitForEdit(10_000)).body as {
      embeds: { title: string; fields?: { name: string; value: string }[]; description?: string }[];
      flags?: number;
    };
    const text = JSON.stringify(answer.embeds);
    expect(answer.embeds[0]!.title).toBe('Alerts in this channel over the last 24 hours');
    expect(text).toContain(`#${a} Aave · acknowledged by <@${person}> at`);
    expect(text).toContain(`#${k} Kraken · Resolved as noise by <@${person}> at`);
  });
});
