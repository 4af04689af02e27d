import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDiscordCommands } from '../../../adapters/discord/index.js';
import type { Caller } from '../../../commands/kit/context.js';
import type { ErrorReply } from '../../../src/reply/model.js';
import { settingsFor, startStack, type Stack } from '../../helpers/discord.js';

/**
 * polbot added by a person to their own account: /pol works in any server they are in and in
 * their DMs, answered through the interaction alone. Where polbot is not in the server, nothing is
 * posted to the channel with the bot's token (Discord would refuse it), and what needs that
 * (digests, alerts) says so instead of failing later.
 */

const ELSEWHERE = '1300000000000000001';
const ELSEWHERE_CHANNEL = '1300000000000000002';
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_PER_USER: '0' });
});
afterAll(() => stack.close());

describe('Discord user install', () => {
  it('registers /pol for server and personal installs, in servers, DMs with polbot and other DMs; management stays server-only', async () => {
    const { fake } = stack;
    await registerDiscordCommands({ discord: settingsFor(fake) });
    const global = fake.commands();
    expect(global.map((c) => [c.name, c.integration_types, c.contexts])).toEqual([
      ['pol', [0, 1], [0, 1, 2]],
      ['pol-digest', [0], [0]],
      ['pol-alert', [0], [0]],
      ['Check with polbot', [0, 1], [0, 1, 2]],
    ]);
    // A second run writes nothing: what Discord keeps compares equal to what is sent.
    expect((await registerDiscordCommands({ discord: settingsFor(fake) })).changed).toBe(false);
  });

  it('answers a card with its chart in a server polbot is not in, through the interaction only', async () => {
    const { fake } = stack;
    const h = fake.sendCommand({
      name: 'pol',
      subcommand: 'card',
      options: { name: 'exchange:kraken' },
      guildId: ELSEWHERE,
      channelId: ELSEWHERE_CHANNEL,
      install: 'user',
    });
    const edit = await h.waitForEdit(15_000, (c) => JSON.stringify(c.body).includes('Kraken'));
    expect(edit.status).toBe(200);
    expect(edit.files.map((f) => f.name)).toEqual([expect.stringMatching(/\.png$/)]);
    expect(fake.calls((c) => c.method === 'POST' && c.path === `/channels/${ELSEWHERE_CHANNEL}/messages`)).toHaveLength(0);
  });

  it('does not fall back to posting with the bot token there when the interaction has expired', async () => {
    const { fake, core, logLines } = stack;
    core.upstream.sim!.faults.set({ latencyMs: 600 });
    try {
      const h = fake.sendCommand({
        name: 'pol',
        subcommand: 'exchange',
        options: { name: 'exchange:okx' },
        guildId: ELSEWHERE,
        channelId: ELSEWHERE_CHANNEL,
        install: 'user',
      });
      await h.callback();
      fake.advanceClock(15 * 60 * 1000 + 1);
      await fake.waitFor((c) => c.method === 'PATCH' && c.path.includes(h.token), 15_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(fake.calls((c) => c.method === 'POST' && c.path === `/channels/${ELSEWHERE_CHANNEL}/messages`)).toHaveLength(0);
      expect(logLines.some((l) => l.includes('discord interaction expired before it could be answered'))).toBe(true);
    } finally {
      core.upstream.sim!.faults.reset();
    }
  });

  it('says plainly that digests and alerts need polbot in the server', async () => {
    const elsewhere: Caller = {
      platform: 'discord',
      userId: '1400000000000000001',
      channelId: ELSEWHERE_CHANNEL,
      workspaceId: ELSEWHERE,
      canManageDigests: false,
      canPost: false,
    };
    for (const [text, what] of [
      ['digest list', 'Digests'],
      ['alert list', 'Alerts'],
    ] as const) {
      const { reply } = await stack.core.run(text, elsewhere);
      expect((reply as ErrorReply).message).toBe(
        `${what} are posted to the channel by polbot itself, and polbot is not in this one: here it only answers you.`,
      );
    }
  });
});
