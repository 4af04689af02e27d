import { isDeepStrictEqual } from 'node:util';
import type { APIApplicationCommand, APIApplicationCommandOption } from 'discord.js';
import { snowflake } from './ids.js';

/** The part of a command a bot controls; Discord assigns the rest. */
export type CommandDefinition = Omit<APIApplicationCommand, 'id' | 'application_id' | 'version' | 'guild_id'>;

/** Scope key: `global` or a guild id. */
export type CommandScope = 'global' | string;

/**
 * Stored application commands per scope. Ids survive re-registration of an unchanged
 * name/type and `version` changes only when the definition changes, so a test can tell
 * an idempotent registration apart from one that rewrites every command on each start.
 */
export class CommandStore {
  readonly #scopes = new Map<CommandScope, APIApplicationCommand[]>();

  constructor(private readonly applicationId: string) {}

  list(scope: CommandScope): APIApplicationCommand[] {
    return structuredClone(this.#scopes.get(scope) ?? []);
  }

  get(scope: CommandScope, id: string): APIApplicationCommand | undefined {
    return this.list(scope).find((c) => c.id === id);
  }

  /** Finds a command the way an incoming interaction names it: guild scope first, then global. */
  findByName(name: string, guildId: string | undefined, type = 1): APIApplicationCommand | undefined {
    const scopes = guildId ? [guildId, 'global'] : ['global'];
    for (const scope of scopes) {
      const hit = this.#scopes.get(scope)?.find((c) => c.name === name && c.type === type);
      if (hit) return structuredClone(hit);
    }
    return undefined;
  }

  bulkOverwrite(scope: CommandScope, inputs: Record<string, unknown>[]): APIApplicationCommand[] {
    const previous = this.#scopes.get(scope) ?? [];
    const next = inputs.map((input) => {
      const def = normalize(input, scope);
      const existing = previous.find((c) => c.name === def.name && c.type === def.type);
      return this.#materialize(scope, def, existing);
    });
    this.#scopes.set(scope, next);
    return this.list(scope);
  }

  /** POST semantics: a command with the same name and type is replaced, not duplicated. */
  upsert(scope: CommandScope, input: Record<string, unknown>): { command: APIApplicationCommand; created: boolean } {
    const commands = this.#scopes.get(scope) ?? [];
    const def = normalize(input, scope);
    const index = commands.findIndex((c) => c.name === def.name && c.type === def.type);
    const command = this.#materialize(scope, def, commands[index]);
    if (index === -1) commands.push(command);
    else commands[index] = command;
    this.#scopes.set(scope, commands);
    return { command: structuredClone(command), created: index === -1 };
  }

  patch(scope: CommandScope, id: string, input: Record<string, unknown>): APIApplicationCommand | undefined {
    const commands = this.#scopes.get(scope) ?? [];
    const index = commands.findIndex((c) => c.id === id);
    const current = commands[index];
    if (!current) return undefined;
    const { id: _id, application_id: _app, version: _v, guild_id: _g, ...currentDef } = current;
    const command = this.#materialize(scope, normalize({ ...currentDef, ...input }, scope), current);
    commands[index] = command;
    return structuredClone(command);
  }

  delete(scope: CommandScope, id: string): boolean {
    const commands = this.#scopes.get(scope) ?? [];
    const index = commands.findIndex((c) => c.id === id);
    if (index === -1) return false;
    commands.splice(index, 1);
    return true;
  }

  #materialize(scope: CommandScope, def: CommandDefinition, existing: APIApplicationCommand | undefined): APIApplicationCommand {
    const unchanged = existing !== undefined && isDeepStrictEqual(definitionOf(existing), def);
    return {
      ...def,
      id: existing?.id ?? snowflake(),
      application_id: this.applicationId,
      version: unchanged ? existing.version : snowflake(),
      ...(scope === 'global' ? {} : { guild_id: scope }),
    };
  }
}

function definitionOf(command: APIApplicationCommand): CommandDefinition {
  const { id: _id, application_id: _app, version: _v, guild_id: _g, ...def } = command;
  return def;
}

/**
 * Fills in the defaults Discord applies so equal definitions compare equal however they were sent.
 * Installation contexts and integration types exist for global commands only: a guild command
 * is stored and returned without them, whatever was sent, as Discord does.
 */
function normalize(input: Record<string, unknown>, scope: CommandScope): CommandDefinition {
  const type = typeof input.type === 'number' ? input.type : 1;
  const def: CommandDefinition = {
    type,
    name: String(input.name),
    name_localizations: (input.name_localizations as CommandDefinition['name_localizations']) ?? null,
    description: type === 1 ? String(input.description ?? '') : '',
    description_localizations: (input.description_localizations as CommandDefinition['description_localizations']) ?? null,
    default_member_permissions: input.default_member_permissions == null ? null : String(input.default_member_permissions),
    nsfw: input.nsfw === true,
    contexts: (input.contexts as CommandDefinition['contexts']) ?? null,
    integration_types: (input.integration_types as CommandDefinition['integration_types']) ?? [0],
    dm_permission: input.dm_permission !== false,
  };
  const options = input.options as APIApplicationCommandOption[] | undefined;
  if (Array.isArray(options) && options.length > 0) def.options = options.map(stripUndefined);
  if (scope !== 'global') {
    delete def.contexts;
    delete def.integration_types;
  }
  return def;
}

function stripUndefined<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
