import { Routes } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runRegisterDiscord } from '../../../app/cli/discord.js';
import { commandDefinitions } from '../../../adapters/discord/commands.js';
import { compareCommands, normaliseCommand, registerDiscordCommands, restFor, summarise } from '../../../adapters/discord/register.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { GUILD_ID, memoryLogger, settingsFor } from '../../helpers/discord.js';

const GUILD_ROUTE = '/applications/:applicationId/guilds/:guildId/commands';
const GLOBAL_ROUTE = '/applications/:applicationId/commands';

type Option = { type: number; name: string; required?: boolean; autocomplete?: boolean; choices?: { value: string }[]; options?: Option[] };

let fake: FakeDiscord;
beforeEach(async () => {
  fake = await startFakeDiscord({ guildIds: [GUILD_ID] });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fake.close();
});

const puts = (route: string) => fake.calls({ method: 'PUT', route });

describe('register-discord', () => {
  it('registers /pol and the admin-only /pol-digest and /pol-alert in the guild, with the grammar as options', async () => {
    const result = await registerDiscordCommands({ discord: settingsFor(fake, GUILD_ID) });
    expect(result).toMatchObject({
      scope: 'guild',
      guildId: GUILD_ID,
      changed: true,
      added: ['pol', 'pol-digest', 'pol-alert', 'Check with polbot'],
      removed: [],
      updated: [],
    });
    expect(puts(GUILD_ROUTE)).toHaveLength(1);
    expect(puts(GLOBAL_ROUTE)).toHaveLength(0);
    expect(fake.commands()).toEqual([]);

    const [pol, digest] = fake.commands(GUILD_ID);
    // A guild command has no installation contexts or integration types of its own.
    expect(pol).toMatchObject({ name: 'pol', default_member_permissions: null });
    expect(pol).not.toHaveProperty('contexts');
    // ManageGuild is bit 5: Discord hides the command from everyone else by default.
    expect(digest).toMatchObject({ name: 'pol-digest', default_member_permissions: String(1n << 5n) });

    const subs = (pol!.options ?? []) as Option[];
    expect(subs.map((s) => s.name)).toEqual([
      'card',
      'project',
      'exchange',
      'section',
      'flags',
      'reviews',
      'why',
      'assets',
      'chart',
      'exposure',
      'compare',
      'check',
      'link',
      'top',
      'ratings',
      'search',
      'trending',
      'index',
      'browse',
      'lost-funds',
      'transparency',
      'health',
      'help',
    ]);
    const sub = (name: string) => subs.find((s) => s.name === name)!.options ?? [];
    expect(sub('card')).toEqual([
      expect.objectContaining({ name: 'name', type: 3, required: true, autocomplete: true }),
      expect.objectContaining({
        name: 'section',
        type: 3,
        required: false,
        choices: [
          'security',
          'financial',
          'operational',
          'reputational',
          'regulatory',
          'voice',
          'transparency',
          'solvency',
          'dashboard',
          'assets',
        ].map((value) => expect.objectContaining({ value })),
      }),
    ]);
    expect(
      sub('project')
        .find((o) => o.name === 'section')
        ?.choices?.map((c) => c.value),
    ).toEqual(['security', 'financial', 'operational', 'reputational', 'regulatory', 'voice']);
    expect(
      sub('exchange')
        .find((o) => o.name === 'section')
        ?.choices?.map((c) => c.value),
    ).toEqual(['transparency', 'security', 'solvency', 'dashboard', 'assets']);
    expect(sub('section')).toEqual([
      expect.objectContaining({ name: 'name', type: 3, required: true, autocomplete: true }),
      expect.objectContaining({
        name: 'section',
        type: 3,
        required: true,
        choices: expect.arrayContaining([{ name: 'Proof of Voice', value: 'voice' }]),
      }),
    ]);
    const chart = sub('chart');
    expect(chart.find((o) => o.name === 'range')?.choices?.map((c) => c.value)).toEqual(['7d', '30d', '90d', '180d', '365d', 'all']);
    expect(chart.find((o) => o.name === 'kind')?.choices?.map((c) => c.value)).toEqual([
      'pol',
      'categories',
      'metrics',
      'reserves',
      'inflation',
      'voice',
    ]);
    // Any window of dates, as free text options after the choices.
    expect(chart.map((o) => o.name)).toEqual(['name', 'range', 'kind', 'from', 'to', 'last']);
    expect(chart.filter((o) => ['from', 'to', 'last'].includes(o.name)).every((o) => o.type === 3 && o.required !== true)).toBe(true);
    const compare = sub('compare');
    expect(compare).toHaveLength(5);
    expect(compare.every((o) => o.autocomplete === true)).toBe(true);
    expect(compare.map((o) => o.required === true)).toEqual([true, true, false, false, false]);
    expect(sub('top')[0]?.choices?.map((c) => c.value)).toEqual(['exchanges', 'projects']);

    const digestSubs = ((digest!.options ?? []) as Option[]).map((s) => s.name);
    expect(digestSubs).toEqual(['add', 'list', 'remove', 'pause', 'resume', 'preview']);
    const alert = fake.commands(GUILD_ID).find((c) => c.name === 'pol-alert');
    expect(alert).toMatchObject({ default_member_permissions: String(1n << 5n) });
    // Acknowledge, snooze and resolve are the alert message's buttons, open to everyone; not here.
    expect(((alert!.options ?? []) as Option[]).map((s) => s.name)).toEqual([
      'add',
      'list',
      'remove',
      'pause',
      'resume',
      'test',
      'stats',
      'catchup',
      'mute',
      'unmute',
      'format',
      'severity',
    ]);
    const stats = ((alert!.options ?? []) as Option[]).find((s) => s.name === 'stats')!.options as Option[];
    expect(stats.map((o) => [o.name, o.required, o.choices?.map((c) => c.value)])).toEqual([['window', false, ['7d', '30d', '90d']]]);
    const add = ((alert!.options ?? []) as Option[]).find((s) => s.name === 'add')!.options as Option[];
    expect(add.map((o) => o.name)).toEqual(['names', 'when', 'every', 'cooldown', 'severity', 'escalate', 'notify']);
    expect(add.find((o) => o.name === 'when')).toMatchObject({ required: true, autocomplete: true });
    expect(add.find((o) => o.name === 'notify')).toMatchObject({ autocomplete: true });
    expect(add.find((o) => o.name === 'every')?.choices?.map((c) => c.value)).toEqual(['1m', '5m', '15m', '30m', '1h', '6h', '12h', '24h']);
  });

  it('changes nothing when the registered definitions already match', async () => {
    const discord = settingsFor(fake, GUILD_ID);
    await registerDiscordCommands({ discord });
    const before = fake.commands(GUILD_ID);

    const again = await registerDiscordCommands({ discord });
    expect(again).toMatchObject({ changed: false, added: [], removed: [], updated: [] });
    expect(summarise(again)).toEqual([`Discord commands in guild ${GUILD_ID} are up to date; nothing written.`]);
    expect(puts(GUILD_ROUTE)).toHaveLength(1);
    expect(fake.calls({ method: 'GET', route: GUILD_ROUTE })).toHaveLength(2);
    // Same ids and versions: Discord was not asked to rewrite anything.
    expect(fake.commands(GUILD_ID)).toEqual(before);
    // What Discord stores, read back, normalises to exactly what we send.
    const stored = fake.commands(GUILD_ID).map((c) => normaliseCommand(c, 'guild'));
    expect(stored).toEqual(commandDefinitions().map((c) => normaliseCommand(c, 'guild')));
  });

  it('writes and reports only what differs, and a dry run writes nothing', async () => {
    const discord = settingsFor(fake, GUILD_ID);
    const route = Routes.applicationGuildCommands(fake.applicationId, GUILD_ID);
    const [pol] = commandDefinitions();
    // A stale /pol and a command polbot no longer has.
    await restFor(discord).put(route, {
      body: [
        { ...pol!, description: 'An older description' },
        { name: 'old', description: 'Gone' },
      ],
    });
    const { log, lines } = memoryLogger();

    const dry = await registerDiscordCommands({ discord, log, dryRun: true });
    expect(dry).toMatchObject({
      changed: true,
      dryRun: true,
      added: ['pol-digest', 'pol-alert', 'Check with polbot'],
      removed: ['old'],
      updated: [{ name: 'pol', paths: ['description'] }],
    });
    expect(puts(GUILD_ROUTE)).toHaveLength(1);
    expect(summarise(dry)).toEqual([
      `Would register Discord commands in guild ${GUILD_ID}:`,
      '  + /pol-digest (new)',
      '  + /pol-alert (new)',
      '  + /Check with polbot (new)',
      '  - /old (removed)',
      '  ~ /pol (changed: description)',
    ]);

    const real = await registerDiscordCommands({ discord, log });
    expect(real.changed).toBe(true);
    expect(puts(GUILD_ROUTE)).toHaveLength(2);
    expect(fake.commands(GUILD_ID).map((c) => c.name)).toEqual(['pol', 'pol-digest', 'pol-alert', 'Check with polbot']);
    expect(lines.some((l) => l.includes('discord commands registered'))).toBe(true);
    expect(lines.join('')).not.toContain(fake.token);
  });

  it('registers globally when no guild is configured', async () => {
    const result = await registerDiscordCommands({ discord: settingsFor(fake) });
    expect(result).toMatchObject({ scope: 'global', changed: true });
    expect(puts(GLOBAL_ROUTE)).toHaveLength(1);
    expect(fake.commands().map((c) => c.name)).toEqual(['pol', 'pol-digest', 'pol-alert', 'Check with polbot']);
    expect(fake.commands(GUILD_ID)).toEqual([]);
    expect((await registerDiscordCommands({ discord: settingsFor(fake) })).changed).toBe(false);
    expect(puts(GLOBAL_ROUTE)).toHaveLength(1);
  });

  it('treats Discord’s defaults and omissions as equal, and a changed choice as a change', () => {
    const ours = commandDefinitions();
    const asDiscordReturnsIt: Record<string, unknown>[] = ours.map((c) => {
      const json = JSON.parse(JSON.stringify(c)) as Record<string, unknown>;
      // Discord omits `required: false` and adds fields we never send.
      const strip = (o: Record<string, unknown>) => {
        if (o.required === false) delete o.required;
        for (const child of (o.options as Record<string, unknown>[] | undefined) ?? []) strip(child);
      };
      strip(json);
      return { ...json, id: '1', application_id: '2', version: '3', nsfw: false, dm_permission: true, name_localizations: null };
    });
    expect(compareCommands(asDiscordReturnsIt, ours).changed).toBe(false);

    const changed = structuredClone(asDiscordReturnsIt);
    const chart = ((changed[0]!.options as Option[]).find((o) => o.name === 'chart')!.options as Option[]).find((o) => o.name === 'range')!;
    chart.choices = chart.choices!.slice(1);
    const diff = compareCommands(changed, ours);
    expect(diff.updated).toEqual([{ name: 'pol', paths: ['options[8].options[1].choices'] }]);
  });

  it('runs as the register-discord CLI command, printing what it did', async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    const env = {
      DISCORD_TOKEN: fake.token,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_API_URL: fake.apiUrl,
      DISCORD_GUILD_ID: GUILD_ID,
    };
    expect(await runRegisterDiscord([], env)).toBe(0);
    expect(await runRegisterDiscord([], env)).toBe(0);
    vi.restoreAllMocks();
    expect(out.join('')).toBe(
      `Registered Discord commands in guild ${GUILD_ID}:\n  + /pol (new)\n  + /pol-digest (new)\n  + /pol-alert (new)\n  + /Check with polbot (new)\n` +
        `Discord commands in guild ${GUILD_ID} are up to date; nothing written.\n`,
    );
    expect(puts(GUILD_ROUTE)).toHaveLength(1);
    await expect(runRegisterDiscord([], {})).rejects.toThrow(/^DISCORD_TOKEN: required/);
  });
});
