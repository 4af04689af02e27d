import { isDeepStrictEqual } from 'node:util';
import { REST, Routes, type RESTGetAPIApplicationCommandsResult, type RESTPostAPIApplicationCommandsJSONBody } from 'discord.js';
import type { DiscordConfig } from './config.js';
import type { Logger } from '../../src/log.js';
import { commandDefinitions } from './commands.js';
import { describeError } from './errors.js';
import { restOptions } from './rest.js';

/**
 * Idempotent registration: read what Discord has, compare it with our definitions after
 * normalising both (Discord fills in defaults and drops `false`s), and overwrite only when they
 * differ. A bulk overwrite of unchanged commands is harmless on Discord's side, but it counts
 * against a daily creation limit and makes every client refetch, so unchanged means no write.
 */

export type DiscordSettings = DiscordConfig;

export interface RegisterResult {
  scope: 'guild' | 'global';
  guildId?: string;
  changed: boolean;
  added: string[];
  removed: string[];
  /** Commands whose definition differs, with the first differing paths. */
  updated: { name: string; paths: string[] }[];
  dryRun: boolean;
  /** The registered commands' ids by name, for command mentions (`</pol search:ID>`); empty on a dry run that would write. */
  ids: Record<string, string>;
}

export interface RegisterOptions {
  discord: DiscordSettings;
  log?: Logger;
  /** Compare and report, but write nothing. */
  dryRun?: boolean;
  /** Definitions to register; polbot's own by default. */
  definitions?: RESTPostAPIApplicationCommandsJSONBody[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const nullIfEmpty = (v: unknown): Json => (v && typeof v === 'object' && Object.keys(v).length > 0 ? (v as Json) : null);

function normaliseOption(o: Record<string, unknown>): Record<string, Json> {
  const out: Record<string, Json> = {
    type: Number(o.type),
    name: String(o.name),
    description: String(o.description ?? ''),
    name_localizations: nullIfEmpty(o.name_localizations),
    description_localizations: nullIfEmpty(o.description_localizations),
  };
  const isGroup = o.type === 1 || o.type === 2;
  if (!isGroup) {
    out.required = o.required === true;
    out.autocomplete = o.autocomplete === true;
  }
  for (const k of ['min_value', 'max_value', 'min_length', 'max_length'] as const)
    if (o[k] !== undefined && o[k] !== null) out[k] = o[k] as Json;
  if (Array.isArray(o.channel_types) && o.channel_types.length) out.channel_types = [...(o.channel_types as number[])].sort();
  if (Array.isArray(o.choices) && o.choices.length) {
    out.choices = (o.choices as Record<string, unknown>[]).map((c) => ({
      name: String(c.name),
      value: c.value as Json,
      name_localizations: nullIfEmpty(c.name_localizations),
    }));
  }
  if (Array.isArray(o.options) && o.options.length) out.options = (o.options as Record<string, unknown>[]).map(normaliseOption);
  return out;
}

type Scope = 'guild' | 'global';

/**
 * The part of a command we control, with Discord's defaults made explicit. Installation contexts
 * and integration types belong to global commands only: Discord neither keeps nor returns them on
 * guild commands, so in a guild they are not compared (nor sent).
 */
export function normaliseCommand(command: object, scope: Scope = 'global'): Record<string, Json> {
  const c = command as Record<string, unknown>;
  const type = typeof c.type === 'number' ? c.type : 1;
  const out: Record<string, Json> = {
    type,
    name: String(c.name),
    description: type === 1 ? String(c.description ?? '') : '',
    name_localizations: nullIfEmpty(c.name_localizations),
    description_localizations: nullIfEmpty(c.description_localizations),
    default_member_permissions: c.default_member_permissions == null ? null : String(c.default_member_permissions),
    nsfw: c.nsfw === true,
  };
  if (scope === 'global') {
    out.contexts = Array.isArray(c.contexts) ? [...(c.contexts as number[])].sort() : null;
    out.integration_types = Array.isArray(c.integration_types) ? [...(c.integration_types as number[])].sort() : [0];
  }
  if (Array.isArray(c.options) && c.options.length) out.options = (c.options as Record<string, unknown>[]).map(normaliseOption);
  return out;
}

/** Paths where two JSON values differ, e.g. `options[2].options[1].choices`. */
export function diffPaths(a: Json | undefined, b: Json | undefined, path = '', out: string[] = []): string[] {
  if (isDeepStrictEqual(a, b)) return out;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((v, i) => diffPaths(v, b[i], `${path}[${i}]`, out));
    return out;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffPaths(a[k], b[k], path ? `${path}.${k}` : k, out);
    return out;
  }
  out.push(path || '(whole)');
  return out;
}

const keyOf = (c: Record<string, Json>) => `${String(c.type)}:${String(c.name)}`;

export function compareCommands(
  existing: readonly object[],
  wanted: readonly object[],
  scope: Scope = 'global',
): Pick<RegisterResult, 'added' | 'removed' | 'updated' | 'changed'> {
  const have = new Map(existing.map((c) => normaliseCommand(c, scope)).map((c) => [keyOf(c), c]));
  const want = new Map(wanted.map((c) => normaliseCommand(c, scope)).map((c) => [keyOf(c), c]));
  const added = [...want.keys()].filter((k) => !have.has(k)).map((k) => String(want.get(k)!.name));
  const removed = [...have.keys()].filter((k) => !want.has(k)).map((k) => String(have.get(k)!.name));
  const updated = [...want.entries()]
    .filter(([k]) => have.has(k))
    .map(([k, w]) => ({ name: String(w.name), paths: diffPaths(have.get(k), w).slice(0, 5) }))
    .filter((u) => u.paths.length > 0);
  return { added, removed, updated, changed: added.length + removed.length + updated.length > 0 };
}

export function restFor(discord: DiscordSettings): REST {
  return new REST(restOptions(discord)).setToken(discord.token);
}

/** Registers polbot's commands in `DISCORD_GUILD_ID` when set (instant), globally otherwise. */
export async function registerDiscordCommands(options: RegisterOptions): Promise<RegisterResult> {
  const { discord, log } = options;
  const definitions = options.definitions ?? commandDefinitions();
  const guildId = discord.guildId;
  const route = guildId
    ? Routes.applicationGuildCommands(discord.applicationId, guildId)
    : Routes.applicationCommands(discord.applicationId);
  const rest = restFor(discord);
  const scope = guildId ? ('guild' as const) : ('global' as const);
  try {
    const existing = (await rest.get(route)) as RESTGetAPIApplicationCommandsResult;
    // Sent as Discord keeps them: a guild command with contexts would differ on every comparison.
    const body = scope === 'guild' ? definitions.map(({ contexts: _c, integration_types: _i, ...rest }) => rest) : definitions;
    const diff = compareCommands(existing, body, scope);
    let registered: readonly { id: string; name: string }[] = existing;
    if (diff.changed && !options.dryRun) registered = (await rest.put(route, { body })) as RESTGetAPIApplicationCommandsResult;
    else if (diff.changed) registered = [];
    const ids = Object.fromEntries(registered.map((c) => [c.name, c.id]));
    const result: RegisterResult = { scope, ...(guildId ? { guildId } : {}), ...diff, dryRun: options.dryRun === true, ids };
    log?.info(
      { scope, guildId, changed: diff.changed, added: diff.added, removed: diff.removed, updated: diff.updated, dryRun: result.dryRun },
      diff.changed
        ? result.dryRun
          ? 'discord commands differ (dry run, nothing written)'
          : 'discord commands registered'
        : 'discord commands already up to date',
    );
    return result;
  } catch (err) {
    log?.error({ scope, guildId, error: describeError(err) }, 'discord command registration failed');
    throw new Error(`Discord command registration failed: ${describeError(err).message}`);
  }
}

/** One line per change, for the CLI. */
export function summarise(r: RegisterResult): string[] {
  const where = r.scope === 'guild' ? `in guild ${r.guildId}` : 'globally (may take up to an hour to appear everywhere)';
  if (!r.changed)
    return [`Discord commands ${r.scope === 'guild' ? `in guild ${r.guildId}` : 'registered globally'} are up to date; nothing written.`];
  const lines = [r.dryRun ? `Would register Discord commands ${where}:` : `Registered Discord commands ${where}:`];
  for (const n of r.added) lines.push(`  + /${n} (new)`);
  for (const n of r.removed) lines.push(`  - /${n} (removed)`);
  for (const u of r.updated) lines.push(`  ~ /${u.name} (changed: ${u.paths.join(', ')})`);
  return lines;
}
