import type { BotCommand, BotCommandScope } from 'grammy/types';
import type { Args } from './args.js';
import { badRequest } from './errors.js';
import type { World } from './world.js';

/**
 * The bot's command lists, one per scope and language code, as setMyCommands, getMyCommands and
 * deleteMyCommands keep them. getMyCommands answers exactly the list set for that scope and
 * language (no fallback: clients fall back, the API does not). Commands are 1-32 lowercase
 * letters, digits or underscores with a 1-256 character description, as Telegram requires.
 */

const SCOPES = ['default', 'all_private_chats', 'all_group_chats', 'all_chat_administrators', 'chat', 'chat_administrators', 'chat_member'];

export class CommandLists {
  readonly #lists = new Map<string, BotCommand[]>();

  constructor(private readonly world: World) {}

  set(args: Args): true {
    const commands = this.#commands(args);
    const key = this.#key(args);
    if (commands.length === 0) this.#lists.delete(key);
    else this.#lists.set(key, commands);
    return true;
  }

  get(args: Args): BotCommand[] {
    return this.#lists.get(this.#key(args)) ?? [];
  }

  remove(args: Args): true {
    this.#lists.delete(this.#key(args));
    return true;
  }

  /** The list a client would be given for this scope and language, for tests. */
  list(scope: BotCommandScope = { type: 'default' }, languageCode = ''): BotCommand[] {
    return this.#lists.get(keyOf(scope, languageCode)) ?? [];
  }

  #key(args: Args): string {
    const language = args.string('language_code') ?? '';
    if (language !== '' && !/^[a-z]{2}$/.test(language)) throw badRequest('invalid language code specified');
    const value = args.json('scope', "can't parse BotCommandScope JSON object") ?? { type: 'default' };
    const fail = (what: string): never => {
      throw badRequest(`can't parse BotCommandScope: ${what}`);
    };
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('BotCommandScope must be an Object');
    const scope = value as Record<string, unknown>;
    if (typeof scope.type !== 'string') fail('Can\'t find field "type"');
    if (!SCOPES.includes(scope.type as string)) fail('Unsupported type specified');
    if ((scope.type as string).startsWith('chat')) {
      const chat = this.world.resolve(scope.chat_id === undefined ? undefined : String(scope.chat_id));
      scope.chat_id = chat.chat.id;
      if (scope.type === 'chat_member' && !(Number(scope.user_id) > 0)) fail('Invalid user_id specified');
    }
    return keyOf(scope as unknown as BotCommandScope, language);
  }

  #commands(args: Args): BotCommand[] {
    const value = args.json('commands', "can't parse commands JSON object") ?? [];
    if (!Array.isArray(value)) throw badRequest('expected an Array of BotCommand');
    if (value.length > 100) throw badRequest('too many commands specified');
    return value.map((c: unknown) => {
      if (typeof c !== 'object' || c === null) throw badRequest("can't parse BotCommand: expected an Object");
      const { command, description } = c as Record<string, unknown>;
      if (typeof command !== 'string') throw badRequest('can\'t parse BotCommand: Can\'t find field "command"');
      if (typeof description !== 'string') throw badRequest('can\'t parse BotCommand: Can\'t find field "description"');
      const name = command.replace(/^\//, '');
      if (!/^[a-z0-9_]{1,32}$/.test(name)) throw badRequest('BOT_COMMAND_INVALID');
      if (description.trim().length < 1 || description.length > 256) throw badRequest('BOT_COMMAND_DESCRIPTION_INVALID');
      return { command: name, description };
    });
  }
}

function keyOf(scope: BotCommandScope, languageCode: string): string {
  const s = scope as { type: string; chat_id?: number | string; user_id?: number };
  return JSON.stringify([s.type, s.chat_id ?? null, s.user_id ?? null, languageCode]);
}

/**
 * The bot's description (shown in an empty private chat, up to 512 characters) and short
 * description (on its profile and in share links, up to 120), one per language code, as
 * setMyDescription and setMyShortDescription keep them; the getters answer what was set for that
 * language exactly, or an empty text.
 */
export class Descriptions {
  readonly #long = new Map<string, string>();
  readonly #short = new Map<string, string>();

  set(kind: 'long' | 'short', args: Args): true {
    const language = languageOf(args);
    const field = kind === 'long' ? 'description' : 'short_description';
    const text = args.string(field) ?? '';
    const max = kind === 'long' ? 512 : 120;
    if (text.length > max) throw badRequest(`${kind === 'long' ? 'description' : 'short description'} is too long`);
    const store = kind === 'long' ? this.#long : this.#short;
    if (text === '') store.delete(language);
    else store.set(language, text);
    return true;
  }

  get(kind: 'long' | 'short', args: Args): { description: string } | { short_description: string } {
    const text = (kind === 'long' ? this.#long : this.#short).get(languageOf(args)) ?? '';
    return kind === 'long' ? { description: text } : { short_description: text };
  }

  /** What a client in `language` is shown, for tests. */
  shown(kind: 'long' | 'short', language = ''): string {
    return (kind === 'long' ? this.#long : this.#short).get(language) ?? '';
  }
}

function languageOf(args: Args): string {
  const language = args.string('language_code') ?? '';
  if (language !== '' && !/^[a-z]{2}$/.test(language)) throw badRequest('invalid language code specified');
  return language;
}
