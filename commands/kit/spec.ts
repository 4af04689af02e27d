import type { EntityKind } from '../../src/api/domain.js';
import type { Audience, CommandHelp, CommandRef, Reply } from '../../src/reply/model.js';
import type { Caller, CommandContext, CompletionContext } from './context.js';

/**
 * A command is one module that declares itself with `defineCommand`: its name, how it is typed,
 * its options and its handler. The text parser, help, the Discord command definitions and the
 * console all read these declarations; nothing else knows a command's shape.
 */

/** A validated argument: option values as typed or chosen (entity options hold a name or `kind:slug`). */
export type ArgValue = string | number | readonly string[];
export type Args = Readonly<Record<string, ArgValue | undefined>>;

/** A command to run with its arguments: what a button carries and what every surface produces. */
export interface Invocation {
  command: string;
  args: Args;
}

interface OptionBase {
  name: string;
  /** One line, shown in help and as the Discord option's description (≤ 100 characters). */
  description: string;
  required?: boolean;
  /** What to say when a required option is missing, e.g. "Which project?". */
  missing?: string;
  /** What a value is called in a refusal ("'x' is not a digest number"); the option's name by default. */
  label?: string;
}

/** A suggestion for an option as it is typed: what is shown, and what picking it fills in. */
export interface Choice {
  label: string;
  value: string;
}

/** Options that suggest values as they are typed (autocomplete). */
interface Completed {
  /**
   * Suggestions for what has been typed so far, best first; `args` holds the other options
   * already given. It must not wait on the upstream: see `CompletionContext`. Entity options
   * suggest names without one.
   */
  complete?(ctx: CompletionContext, typed: string, args: Args): Choice[] | Promise<Choice[]>;
}

/** A project or exchange, by name, slug or `kind:slug`; offered by autocomplete in Discord. */
export interface EntityOption extends OptionBase, Completed {
  type: 'entity';
  /** Only this kind is meant (flags are about projects). */
  kind?: EntityKind;
}

/** An exchange, named first: what `exchange`, `assets` and `exposure` take. */
export const EXCHANGE_NAME: EntityOption = {
  type: 'entity',
  kind: 'exchange',
  name: 'name',
  description: 'Exchange name or slug (pick from the list, or type a slug such as gate-io)',
  required: true,
  missing: 'Which exchange?',
};

/** Several entities: separated by commas in text, one option per slot in Discord. */
export interface EntityListOption extends OptionBase, Completed {
  type: 'entities';
  min: number;
  max: number;
  /**
   * `slots`: one Discord option per entity (compare's a, b, c...). `joined`: one text option of
   * comma-separated names, each completed in turn (a digest's watchlist, which may hold 25).
   */
  discord: 'slots' | 'joined';
}

/** One of a fixed set; in text it is a trailing word, in Discord a list of choices. */
export interface ChoiceOption extends OptionBase {
  type: 'choice';
  choices: readonly { value: string; label?: string }[];
  /** Other words typed for a value (`1y` for `365d`). */
  aliases?: Readonly<Record<string, string>>;
  default?: string;
  /** Words shaped like a value but not one ("5d"): refused with the list rather than read as a name. */
  near?: RegExp;
  /** A word of five letters or more within two edits of a value ("sekurity") is refused with the list too. */
  typos?: boolean;
}

/** Free text: a search, a time, a time zone. */
export interface TextOption extends OptionBase, Completed {
  type: 'text';
  maxLength: number;
  minLength?: number;
  /**
   * Typed as `<keyword> <value>` anywhere after the command (`from 2026-03-01`), one word; the
   * first keyword is the one written back. Without, the option is the main free text.
   */
  keywords?: readonly string[];
}

export interface IntegerOption extends OptionBase {
  type: 'integer';
  min: number;
  max: number;
}

export type OptionSpec = EntityOption | EntityListOption | ChoiceOption | TextOption | IntegerOption;

export type Parsed = { ok: true; args: Args } | { ok: false; message: string };

/**
 * A grammar of its own, for commands whose typed form the generic one cannot read (a schedule
 * with `at` and `tz` keywords). `format` must be its inverse: `parse(format(args))` gives `args`.
 */
export interface TextGrammar {
  usage: string;
  parse(rest: string): Parsed;
  format(args: Args): string;
}

/** What every handler gets: the core's services, who asked, and the other commands (for help). */
export interface HandlerContext extends CommandContext {
  caller: Caller;
  catalogue: Catalogue;
}

/** A read-only view of the registry, for commands that describe the others. */
export interface Catalogue {
  readonly commands: readonly CommandSpec[];
  /** The typed form of a command, as the console and Slack write it (`chart project:bitcoin 365d`). */
  text(ref: CommandRef): string;
  /** Usage and runnable examples of every command, or of one group's. */
  help(group?: CommandSpec['group']): CommandHelp[];
}

/**
 * - `digests`, `alerts`: the service is connected, and polbot can post in the caller's channel;
 * - `managers`: the caller may manage the channel's digests and alert rules.
 */
export type Precondition = 'digests' | 'alerts' | 'managers';

export interface CommandSpec {
  /** Unique; what references and metrics name. */
  name: string;
  /** Where help lists it: lookups first (10s), lists (20s), service (30s), digests (40s), alerts (50s). */
  order: number;
  /** How it is typed after `/pol`: `['chart']`, `['digest', 'add']`; empty for the default (a name alone). */
  words: readonly string[];
  /** Other typed forms (`['digest', 'rm']`). */
  aliases?: readonly (readonly string[])[];
  summary: string;
  /** Typed forms after `/pol`, each one runnable as it stands. */
  examples: readonly string[];
  options: readonly OptionSpec[];
  text?: TextGrammar;
  /** Commands that belong together (digests) are grouped; an adapter may present a group apart. */
  group?: 'digest' | 'alert';
  /**
   * What must hold before the handler runs, checked by the core in this order on every surface
   * (typed, a button, a menu, a shortcut, the Home tab); the first that fails is the answer.
   */
  preconditions?: readonly Precondition[];
  /** Who sees the answer; by default choices and errors go to the asker and the rest to the channel. */
  audience?: Audience;
  /** Left out of Discord's command list (it exists there in another form). */
  discord?: false;
  handler(ctx: HandlerContext, args: Args): Promise<Reply> | Reply;
}

export function defineCommand(spec: CommandSpec): CommandSpec {
  return spec;
}

// Argument accessors: args are validated against the spec before a handler runs.

export function str(args: Args, name: string): string {
  const v = args[name];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

export function list(args: Args, name: string): string[] {
  const v = args[name];
  return Array.isArray(v) ? [...(v as readonly string[])] : typeof v === 'string' && v ? [v] : [];
}

export function int(args: Args, name: string): number | undefined {
  const v = args[name];
  return typeof v === 'number' ? v : undefined;
}

/** The text arguments alone: what a rebuilt command (a choice made for one name) carries over as typed. */
export function stringArgs(args: Args): Record<string, string> {
  return Object.fromEntries(Object.entries(args).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
