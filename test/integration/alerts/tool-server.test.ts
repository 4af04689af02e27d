import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../commands/kit/context.js';
import { AlertService } from '../../../src/alerts/service.js';
import { AlertStore } from '../../../src/alerts/store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import type { ErrorReply, TextReply } from '../../../src/reply/model.js';
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

  it('checks a message, saying the PoL needs the REST service', async () => {
    const { reply } = await cores.tools.run('check is Aave safe?', caller);
    const shown = visibleText(reply);
    expect(shown).toContain('Named in that message: Aave');
    expect(shown).toContain('needs the REST service');
  });
});
