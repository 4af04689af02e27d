import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBot, type Bot } from '../../../app/bot.js';
import { loadConfig } from '../../../app/config.js';
import { createLogger } from '../../../src/log.js';
import { postToBolt, slashCommandBody, startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';
import { blocksJson, headerOf, SIGNING_SECRET } from '../../helpers/slack/harness.js';

/**
 * The demo as a new user meets it: `polbot start` in demo mode (the simulator in-process) with
 * Slack, the way the README tells it. A rule is added and `alert test` run; the sample says it is
 * a test, the simulator moves across the rule's line, and the real alert follows within a minute.
 */

const CHANNEL = 'CDEMO0001';
let fake: FakeSlack;
let bot: Bot;
let dataDir: string;
let endpoint: string;

beforeAll(async () => {
  fake = await startFakeSlack();
  dataDir = await mkdtemp(join(tmpdir(), 'polbot-alert-demo-'));
  const config = loadConfig({
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.url,
    POLBOT_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_PER_USER: '0',
  });
  bot = await startBot(config, createLogger({ level: 'silent' }));
  endpoint = `http://127.0.0.1:${bot.port}/slack/events`;
});
afterAll(async () => {
  await bot?.stop();
  await fake?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const command = (text: string, responseId: string) =>
  postToBolt(endpoint, slashCommandBody({ text, channel_id: CHANNEL, response_url: fake.responseUrl(responseId) }), SIGNING_SECRET);

describe('the alert demo', () => {
  it('follows alert test with a real alert within a minute, moved on the simulator', async () => {
    await command('alert add aave when pol above 9%', 'add');
    const added = await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === CHANNEL && /^Alert rule #\d+ added$/.test(headerOf(c.args) ?? ''),
      10_000,
    );
    const id = /#(\d+)/.exec(headerOf(added.args)!)![1];
    const started = Date.now();
    await command(`alert test ${id}`, 'test');

    const sample = await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === CHANNEL && headerOf(c.args) === '🧪 Test alert: Aave (AAVE)',
      15_000,
    );
    expect(blocksJson(sample.args)).toContain('A test: nothing crossed');
    const told = await fake.waitFor('response_url', (c) => c.id === 'test' && /Test alert of rule/.test(String(c.args.text)), 15_000);
    expect(blocksJson(told.args)).toMatch(/Demo data: the simulator moved Aave: PoL moved to 10\.8%/);

    const real = await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === CHANNEL && headerOf(c.args) === '🔔 Alert: Aave (AAVE)',
      60_000,
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(blocksJson(real.args)).toContain('10.8%');
    expect(blocksJson(real.args)).toContain('SIMULATED DATA');
    // Exactly one real alert, however many ticks ran meanwhile.
    await new Promise((r) => setTimeout(r, 500));
    expect(fake.calls('chat.postMessage').filter((c) => headerOf(c.args) === '🔔 Alert: Aave (AAVE)')).toHaveLength(1);
  });

  it('moves a listed asset for a rule on listed assets: the rated project behind the riskiest one Kraken lists', async () => {
    await command('alert add kraken when a listed asset is downgraded', 'add-listed');
    const added = await fake.waitFor(
      'chat.postMessage',
      (c) =>
        c.args.channel === CHANNEL && /^Alert rule #\d+ added$/.test(headerOf(c.args) ?? '') && blocksJson(c.args).includes('listed asset'),
      10_000,
    );
    const id = /#(\d+)/.exec(headerOf(added.args)!)![1];
    await command(`alert test ${id}`, 'test-listed');
    // Terra (LUNA) is the riskiest token of a rated project on Kraken in the dataset, at 42.2%.
    const told = await fake.waitFor(
      'response_url',
      (c) => c.id === 'test-listed' && /Test alert of rule/.test(String(c.args.text)),
      15_000,
    );
    expect(blocksJson(told.args)).toContain('Demo data: the simulator moved Kraken: listed Terra (LUNA) moved to 44.2% PoL');
    const real = await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === CHANNEL && headerOf(c.args) === '🔔 Alert: Kraken' && blocksJson(c.args).includes('Terra (LUNA)'),
      60_000,
    );
    expect(blocksJson(real.args)).toContain('Terra (LUNA) 42.2% → 44.2%');
  });
});
