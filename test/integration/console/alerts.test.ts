import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../commands/core/core.js';
import { Typist } from '../../helpers/console.js';
import { demoCore } from '../../helpers/core.js';

/**
 * The console posts nothing to a channel, so it has no alerts: rule quality and resolving with a
 * reason say so plainly at its prompt, as every alert command does, and help still lists them
 * with examples to run where alerts are.
 */

const NO_ALERTS = 'Alerts are posted to Slack, Discord or Telegram chats, and this polbot is not connected to any of them.';
let core: Core;
let chartDir: string;
let typed: Typist;

beforeAll(async () => {
  core = await demoCore({ RATE_LIMIT_PER_USER: '0' });
  chartDir = await mkdtemp(join(tmpdir(), 'polbot-console-alerts-'));
  typed = new Typist(core, chartDir);
});
afterAll(async () => {
  await typed.close();
  await core.close();
  await rm(chartDir, { recursive: true, force: true });
});

describe('alerts in the console', () => {
  it('says that alerts need a chat platform, for stats and for resolving with a reason', async () => {
    for (const line of ['alert stats', 'alert stats 90d', 'alert resolve 12 as noise', 'alert resolve 12']) {
      const answer = await typed.type(line);
      expect(answer, line).toContain(NO_ALERTS);
    }
    // A reason that is none of the four is refused as typed, before anything else.
    expect(await typed.type('alert resolve 12 as nosie')).toContain("Unknown reason 'nosie': use one of real, noise, duplicate, expected.");
    expect(await typed.type('alert stats 14d')).toContain("Unknown window '14d': use 7d or 30d or 90d.");
  });

  it('refuses a rule that escalates, as every alert rule: the console has no channel, and no user groups or roles to call on', async () => {
    expect(await typed.type('alert add aave when pol above 9% escalate after 15m to @risk-oncall')).toContain(NO_ALERTS);
    // A wait out of bounds or a fourth step is refused as typed, before anything else.
    expect(await typed.type('alert add aave when pol above 9% escalate after 400d to @risk-oncall')).toContain(
      'An escalation step waits between 5 minutes and 24 hours, not 400d.',
    );
    expect(
      await typed.type(
        'alert add aave when pol above 9% escalate after 15m to @a then after 15m to @b then after 15m to @c then after 15m to @d',
      ),
    ).toContain('An escalation has at most 3 steps; this one has 4.');
  });

  it('lists alert stats and resolving with a reason in help, each with an example to run', async () => {
    const help = await typed.type('help');
    expect(help).toContain('alert stats [7d|30d|90d]');
    expect(help).toContain('e.g. /pol alert stats 30d, /pol alert stats 90d');
    expect(help).toContain('alert resolve <id> [as real|noise|duplicate|expected]');
    expect(help).toContain('e.g. /pol alert resolve 12 as noise, /pol alert resolve 12');
  });
});
