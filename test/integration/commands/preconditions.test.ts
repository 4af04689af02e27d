import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_ID } from '../../../adapters/discord/embeds.js';
import { COMMANDS, type CommandSpec, type Core } from '../../../commands/core/index.js';
import type { Caller } from '../../../commands/kit/context.js';
import { defineCommand } from '../../../commands/kit/spec.js';
import type { ErrorReply, TextReply } from '../../../src/reply/model.js';
import { demoCore } from '../../helpers/core.js';
import { messageBody, messageCalls, startStack, type Stack } from '../../helpers/discord.js';
import { ephemeralAnswer, type Harness, startHarness, uniqueId } from '../../helpers/slack/harness.js';

/**
 * A command that declares `managers` and has no check of its own: whoever may not manage is
 * refused by the core, on every surface, before the handler runs; the handler counts its runs.
 */
let runs = 0;
const PROBE: CommandSpec = defineCommand({
  name: 'probe-manage',
  order: 999,
  words: ['probe-manage'],
  summary: 'A managers-only probe',
  examples: ['probe-manage'],
  options: [],
  preconditions: ['managers'],
  discord: false,
  handler: () => {
    runs++;
    return { kind: 'text', text: 'the probe ran' };
  },
});
const WITH_PROBE = [...COMMANDS, PROBE];

const REFUSED = 'You are not allowed to add, remove, pause or resume digests here.';

const slackCaller = (canManageDigests: boolean): Caller => ({
  platform: 'slack',
  userId: 'U0PROBE01',
  channelId: 'C0PROBE01',
  canManageDigests,
});
const discordCaller = (canManageDigests: boolean): Caller => ({
  platform: 'discord',
  userId: '300000000000000042',
  channelId: '400000000000000042',
  canManageDigests,
});

describe('preconditions the core enforces', () => {
  let core: Core;
  beforeAll(async () => {
    core = await demoCore({}, { commands: WITH_PROBE });
  });
  afterAll(() => core.close());

  it('refuses a non-manager, typed or as a button, and runs nothing; lets a manager run it', async () => {
    runs = 0;
    for (const caller of [slackCaller(false), discordCaller(false)]) {
      const typed = (await core.run('probe-manage', caller)).reply as ErrorReply;
      expect(typed).toMatchObject({ kind: 'error', message: REFUSED });
      const clicked = (await core.invoke({ command: 'probe-manage', args: {} }, caller)).reply as ErrorReply;
      expect(clicked).toMatchObject({ kind: 'error', message: REFUSED });
    }
    expect(((await core.run('probe-manage', discordCaller(false))).reply as ErrorReply).hint).toBe(
      'Server managers use the admin digest command.',
    );
    expect(runs).toBe(0);
    expect(((await core.run('probe-manage', slackCaller(true))).reply as TextReply).text).toBe('the probe ran');
    expect(((await core.invoke({ command: 'probe-manage', args: {} }, discordCaller(true))).reply as TextReply).text).toBe('the probe ran');
    expect(runs).toBe(2);
  });

  it('refuses the console, which manages nothing, with its own sentence', async () => {
    runs = 0;
    expect(((await core.run('probe-manage')).reply as ErrorReply).message).toBe(
      'Digests post to a Slack, Discord or Telegram chat: add and manage them from that chat.',
    );
    expect(runs).toBe(0);
  });

  it('checks them in the order declared: a digest command without a digest service says so before asking who you are', async () => {
    const reply = (await core.run('digest pause 3', slackCaller(false))).reply as ErrorReply;
    expect(reply.message).toBe(
      'Scheduled digests are delivered to Slack, Discord or Telegram chats, and this polbot is not connected to any of them.',
    );
    const personal = (await core.run('digest pause 3', { ...slackCaller(true), canPost: false })).reply as ErrorReply;
    expect(personal.message).toBe(
      'Digests are posted to the channel by polbot itself, and polbot is not in this one: here it only answers you.',
    );
  });
});

describe('in Slack: a slash command, a button and a menu pick from someone not among DIGEST_ADMINS', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ commands: WITH_PROBE, digestAdmins: ['U0ADMIN001'] });
  });
  afterAll(() => h.close());

  it('are refused by the core, privately, and the command never runs', async () => {
    runs = 0;
    const typed = uniqueId('probe');
    const answer = await ephemeralAnswer(h, await h.command('probe-manage', { responseId: typed }), typed);
    expect(String(answer.text)).toContain(REFUSED);

    const clicked = uniqueId('probe-click');
    await h.click('pol_action_0', 'probe-manage', { responseId: clicked, messageTs: '1763800000.000901' });
    const click = await h.fake.waitFor('response_url', (c) => c.id === clicked && String(c.args.text).includes(REFUSED), 8_000);
    expect(click.args.response_type).toBe('ephemeral');

    const picked = uniqueId('probe-pick');
    await h.pick('pol_menu_0', { text: 'Probe', value: 'probe-manage' }, { responseId: picked, messageTs: '1763800000.000902' });
    await h.fake.waitFor('response_url', (c) => c.id === picked && String(c.args.text).includes(REFUSED), 8_000);
    expect(runs).toBe(0);
  });
});

describe('in Discord: a button clicked by a member without Manage Server', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, WITH_PROBE);
  });
  afterAll(() => stack.close());

  it('is refused by the core and the command never runs; a member with Manage Server runs it', async () => {
    runs = 0;
    const shown = () => messageCalls(stack.fake).map((c) => JSON.stringify(messageBody(c) ?? {}));
    stack.fake.sendComponent({ custom_id: `${RUN_ID}:probe-manage`, component_type: 2 });
    await expect.poll(() => shown().some((t) => t.includes(REFUSED)), { timeout: 8_000 }).toBe(true);
    expect(runs).toBe(0);
    // Manage Server is bit 5 of the member's permissions.
    stack.fake.sendComponent({ custom_id: `${RUN_ID}:probe-manage`, component_type: 2, memberPermissions: 1n << 5n });
    await expect.poll(() => shown().some((t) => t.includes('the probe ran')), { timeout: 8_000 }).toBe(true);
    expect(runs).toBe(1);
  });
});
