import type { RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandDefinitions } from '../../../adapters/discord/commands.js';
import { registerDiscordCommands } from '../../../adapters/discord/register.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { secretWatch } from '../../helpers/secret-watch.js';
import { GUILD_ID, settingsFor } from '../../helpers/discord.js';

const BIN = join(import.meta.dirname, '../../../bin/polbot.js');
const writes = (fake: FakeDiscord) => fake.calls((c) => /\/commands/.test(c.path) && c.method !== 'GET');

let fake: FakeDiscord;
beforeEach(async () => {
  fake = await startFakeDiscord({ guildIds: [GUILD_ID] });
});
afterEach(async () => {
  await fake.close();
});

/** `polbot register-discord` as a person runs it: a child process with the environment set. */
function cli(env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'register-discord'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      secretWatch.outputText('polbot register-discord', stdout + stderr);
      resolve({ code, stdout });
    });
  });
}

describe('Discord registration is idempotent', () => {
  it('in a guild: the first run writes once, the second writes nothing, and the ids come back', async () => {
    const discord = settingsFor(fake, GUILD_ID);
    const first = await registerDiscordCommands({ discord });
    expect(first.changed).toBe(true);
    expect(writes(fake)).toHaveLength(1);
    // Guild commands carry no installation contexts or integration types; none are sent.
    const put = writes(fake)[0]!.body as Record<string, unknown>[];
    expect(put.every((c) => !('contexts' in c) && !('integration_types' in c))).toBe(true);

    const second = await registerDiscordCommands({ discord });
    expect(second).toMatchObject({ changed: false, added: [], removed: [], updated: [] });
    expect(writes(fake)).toHaveLength(1);
    const stored = fake.commands(GUILD_ID);
    expect(second.ids).toEqual(Object.fromEntries(stored.map((c) => [c.name, c.id])));
    expect(first.ids).toEqual(second.ids);
  });

  it('globally: contexts and integration types are kept and compared, and a second run writes nothing', async () => {
    const discord = settingsFor(fake);
    await registerDiscordCommands({ discord });
    expect(fake.commands()[0]).toMatchObject({ name: 'pol', contexts: [0, 1, 2], integration_types: [0, 1] });
    await registerDiscordCommands({ discord });
    expect(writes(fake)).toHaveLength(1);
  });

  it('writes once, in one bulk overwrite, when a definition changed; a dry run writes nothing', async () => {
    const discord = settingsFor(fake, GUILD_ID);
    await registerDiscordCommands({ discord });
    const definitions = commandDefinitions();
    definitions[0] = { ...(definitions[0] as RESTPostAPIChatInputApplicationCommandsJSONBody), description: 'Changed description' };
    const dry = await registerDiscordCommands({ discord, definitions, dryRun: true });
    expect(dry).toMatchObject({ changed: true, dryRun: true, updated: [{ name: 'pol', paths: ['description'] }] });
    expect(writes(fake)).toHaveLength(1);
    await registerDiscordCommands({ discord, definitions });
    expect(writes(fake).map((c) => c.method)).toEqual(['PUT', 'PUT']);
  });

  it('polbot register-discord run twice: the second run says up to date and writes nothing', async () => {
    const env = {
      DISCORD_TOKEN: fake.token,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_GUILD_ID: GUILD_ID,
      DISCORD_API_URL: fake.apiUrl,
    };
    const first = await cli(env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Registered Discord commands in guild ${GUILD_ID}`);
    const second = await cli(env);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe(`Discord commands in guild ${GUILD_ID} are up to date; nothing written.`);
    expect(writes(fake)).toHaveLength(1);
  }, 60_000);
});
