import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../commands/kit/context.js';
import { AlertService } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import type { ErrorReply, TableReply, TextReply } from '../../../src/reply/model.js';
import { useRestAndToolsOnly, visibleText } from '../../helpers/core.js';

/**
 * With the tool server alone there is no PoL or rating to read: an alert on them could never fire,
 * so it is refused when added, saying it needs the REST service; category scores and red flags,
 * which tools supply, are accepted. "Check" says the same of a PoL it cannot show.
 */

const cores = useRestAndToolsOnly();
const caller: Caller = {
  platform: 'slack',
  userId: 'U1',
  userName: 'dana',
  channelId: 'CTOOLS1',
  workspaceId: 'T1',
  canManageDigests: true,
};
let db: Db;

beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
  cores.tools.ctx.alerts = new AlertService({ store: new AlertStore(db), deps: cores.tools.ctx, deliverers: [] });
});
afterAll(() => db.close());

describe('alerts and check with the tool server alone', () => {
  it('refuses an alert on PoL, a rating or any change, and takes one on a category score or red flags', async () => {
    for (const when of ['pol above 5%', 'rating below BBB', 'downgrade', 'any change']) {
      const { reply } = await cores.tools.run(`alert add aave when ${when}`, caller);
      expect((reply as ErrorReply).message, when).toBe(
        'Alerts on PoL and ratings need the REST service; the tool server this polbot uses has no tool for them, so such a rule could never fire.',
      );
    }
    expect(((await cores.tools.run('alert add aave when security below 60', caller)).reply as TextReply).title).toMatch(
      /^Alert rule #\d+ added$/,
    );
    expect(((await cores.tools.run('alert add aave when new red flag', caller)).reply as TextReply).title).toMatch(
      /^Alert rule #\d+ added$/,
    );
    expect((await cores.tools.ctx.alerts!.store.listChannel('slack', 'CTOOLS1')).map((r) => r.conditionText)).toEqual([
      'security below 60',
      'new red flag',
    ]);
  });

  it('resolves an alert with its reason and counts it in alert stats, with nothing asked of REST', async () => {
    // Someone else than the test above asks, so that the per-person rate limit counts each apart.
    const here: Caller = { ...caller, userId: 'U2', channelId: 'CTOOLS2' };
    const added = (await cores.tools.run('alert add aave when security below 50', here)).reply as TextReply;
    const ruleId = Number(/^Alert rule #(\d+) added$/.exec(added.title ?? '')?.[1]);
    const alerts = cores.tools.ctx.alerts!;
    await db.query('UPDATE alert_rules SET next_check = now()');
    await alerts.tick();
    expect(await alerts.store.openIncidents(ruleId)).toEqual([]);

    // The tool server's simulator moves Aave's security score across the line.
    const res = await fetch(`${cores.toolSim.url}/_sim/move`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': cores.toolSim.apiKey },
      body: JSON.stringify({ kind: 'project', slug: 'aave', categories: { security: 31 } }),
    });
    expect(res.status).toBe(200);
    cores.tools.upstream.source.cache.clear();
    await db.query('UPDATE alert_rules SET next_check = now()');
    await alerts.tick();
    const [opened] = await alerts.store.openIncidents(ruleId);
    expect(opened).toMatchObject({ kind: 'project', slug: 'aave', status: 'open' });

    const refused = (await cores.tools.run(`alert resolve ${opened!.id} as wrong`, here)).reply as ErrorReply;
    expect(refused.message).toBe("Unknown reason 'wrong': use one of real, noise, duplicate, expected.");
    const resolved = (await cores.tools.run(`alert resolve ${opened!.id} as noise`, here)).reply as TextReply;
    expect(resolved.title).toMatch(new RegExp(`^Alert #${opened!.id}: Resolved as noise at \\d+ \\w+ \\d\\d:\\d\\d UTC$`));
    expect(await alerts.store.incidentInChannel(opened!.id, 'slack', 'CTOOLS2')).toMatchObject({
      status: 'resolved',
      closedReason: 'noise',
      closedBy: 'dana',
    });

    const stats = (await cores.tools.run('alert stats 7d', here)).reply as TableReply;
    expect(stats.kind).toBe('table');
    expect(stats.rows).toEqual([
      { id: String(ruleId), watch: 'Aave', when: 'security below 50', alerts: '1', ack: '—', noise: '100% of 1', flag: '' },
    ]);
    expect(visibleText(stats)).not.toMatch(/REST/);
  });

  it('mutes and unmutes a name, a rule and the channel, and sets severity and format, with nothing asked of REST', async () => {
    const here: Caller = { ...caller, userId: 'U3', channelId: 'CTOOLS3' };
    const added = (await cores.tools.run('alert add aave, uniswap when security below 40', here)).reply as TextReply;
    const ruleId = Number(/^Alert rule #(\d+) added$/.exec(added.title ?? '')?.[1]);
    const run = async (text: string) => visibleText((await cores.tools.run(text, here)).reply);
    expect(await run('alert mute aave 24h')).toMatch(/🔕 Muted Aave \(AAVE\) until \d+ \w+ \d\d:\d\d UTC/);
    expect(await run(`alert mute rule ${ruleId} 2h`)).toContain(`Muted rule #${ruleId}`);
    expect(await run('alert mute all 1h')).toContain('Muted all alerts in this channel');
    const mutes = await cores.tools.ctx.alerts!.store.mutes.active('slack', 'CTOOLS3', Date.now());
    expect(mutes.map((m) => m.target.scope).sort()).toEqual(['channel', 'entity', 'rule']);
    expect(await run('alert unmute all')).toContain('Unmuted');
    expect(await cores.tools.ctx.alerts!.store.mutes.active('slack', 'CTOOLS3', Date.now())).toEqual([]);
    expect(await run(`alert severity ${ruleId} high`)).toContain(`Alert rule #${ruleId}: high severity`);
    expect(await run('alert format compact')).toContain('Alerts in this channel: compact');
    expect(await cores.tools.ctx.alerts!.store.channelFormat('slack', 'CTOOLS3')).toBe('compact');
  });

  it('checks a message, saying the PoL needs the REST service', async () => {
    const { reply } = await cores.tools.run('check is Aave safe?', caller);
    const shown = visibleText(reply);
    expect(shown).toContain('Named in that message: Aave');
    expect(shown).toContain('needs the REST service');
  });
});
