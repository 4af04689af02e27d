import {
  ApplicationCommandOptionType,
  ApplicationIntegrationType,
  InteractionContextType,
  PermissionFlagsBits,
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandSubcommandOption,
  ApplicationCommandType,
  type RESTPostAPIApplicationCommandsJSONBody,
} from 'discord.js';
import {
  COMMANDS,
  MAX_NAME,
  type Args,
  type ArgValue,
  type CommandSpec,
  type Invocation,
  type OptionSpec,
} from '../../commands/core/index.js';

/**
 * The Discord commands, generated from the command registry: every command is a subcommand of
 * `/pol`, except the digest and alert groups, which are `/pol-digest` and `/pol-alert` because
 * Discord's `default_member_permissions` gates a whole command, never a subcommand: `/pol` is for
 * everyone, the groups only for members who can manage the server (server admins may widen that
 * under Integrations). An alert's own buttons (acknowledge, snooze, resolve) are for everyone.
 */

export const POL = 'pol';
export const POL_DIGEST = 'pol-digest';
export const POL_ALERT = 'pol-alert';
/** The message context menu entry: a message command's name is shown as it is written. */
export const CHECK_MESSAGE = 'Check with polbot';

const EVERYWHERE = [InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel];
const ANY_INSTALL = [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall];

/** The admin-gated commands: their groups' subcommands, for members who can manage the server. */
const GATED: Readonly<Record<string, string>> = { digest: POL_DIGEST, alert: POL_ALERT };

const GATED_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [POL_DIGEST]: 'Scheduled watchlist digests for this channel (server managers)',
  [POL_ALERT]: 'Alerts for this channel when watched names cross a line (server managers)',
};

/** The admin-gated command a group lives under, if the spec belongs to one. */
export const gatedCommand = (spec: CommandSpec): string | undefined => (spec.group ? GATED[spec.group] : undefined);

/** Whether a command arrived through one of the admin-gated commands. */
export const isGated = (commandName: string) => Object.values(GATED).includes(commandName);

/** Compare's entities, one Discord option each. */
const SLOTS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] as const;
/** A comma-separated watchlist is longer than one name. */
const MAX_LIST = 400;

/** Where a command lives in Discord: the top-level command and its subcommand. */
export interface DiscordPlace {
  command: string;
  subcommand: string;
}

export function placeOf(spec: CommandSpec): DiscordPlace | undefined {
  if (spec.discord === false) return undefined;
  if (spec.group) return { command: GATED[spec.group]!, subcommand: spec.words[spec.words.length - 1]! };
  return { command: POL, subcommand: spec.name };
}

/** Discord's option names for a registry option (compare's entities become a, b, c...). */
export function discordOptionNames(o: OptionSpec): string[] {
  return o.type === 'entities' && o.discord === 'slots' ? SLOTS.slice(0, o.max) : [o.name];
}

function basicOptions(o: OptionSpec): APIApplicationCommandBasicOption[] {
  const base = { description: o.description.slice(0, 100), required: o.required === true };
  switch (o.type) {
    case 'entity':
      return [{ ...base, type: ApplicationCommandOptionType.String, name: o.name, autocomplete: true, max_length: MAX_NAME }];
    case 'entities':
      if (o.discord === 'joined')
        return [{ ...base, type: ApplicationCommandOptionType.String, name: o.name, autocomplete: true, max_length: MAX_LIST }];
      return SLOTS.slice(0, o.max).map((slot, i) => ({
        type: ApplicationCommandOptionType.String,
        name: slot,
        description: i < o.min ? `Project or exchange ${i + 1}` : `Project or exchange ${i + 1} (optional)`,
        required: i < o.min,
        autocomplete: true,
        max_length: MAX_NAME,
      }));
    case 'choice':
      return [
        {
          ...base,
          type: ApplicationCommandOptionType.String,
          name: o.name,
          choices: o.choices.map((c) => ({ name: c.label ?? c.value, value: c.value })),
        },
      ];
    case 'text':
      return [
        {
          ...base,
          type: ApplicationCommandOptionType.String,
          name: o.name,
          max_length: o.maxLength,
          ...(o.minLength !== undefined ? { min_length: o.minLength } : {}),
          ...(o.complete ? { autocomplete: true } : {}),
        },
      ];
    case 'integer':
      return [{ ...base, type: ApplicationCommandOptionType.Integer, name: o.name, min_value: o.min, max_value: o.max }];
  }
}

function subcommand(spec: CommandSpec, place: DiscordPlace): APIApplicationCommandSubcommandOption {
  // Discord wants required options first.
  const options = spec.options.flatMap(basicOptions).sort((a, b) => Number(b.required === true) - Number(a.required === true));
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: place.subcommand,
    description: spec.summary.slice(0, 100),
    ...(options.length ? { options } : {}),
  };
}

/** Every command polbot registers, as the JSON Discord's API takes. */
export function commandDefinitions(specs: readonly CommandSpec[] = COMMANDS): RESTPostAPIApplicationCommandsJSONBody[] {
  const subs = (command: string) =>
    specs.flatMap((spec) => {
      const place = placeOf(spec);
      return place?.command === command ? [subcommand(spec, place)] : [];
    });
  return [
    {
      name: POL,
      description: 'Crypto risk: Probability of Loss, ratings, category scores and red flags',
      // Installed to a server, or by a person to their own account: then it works in any server
      // they are in, in DMs with the bot, and in their other DMs and group DMs.
      contexts: EVERYWHERE,
      integration_types: ANY_INSTALL,
      options: subs(POL),
    },
    ...Object.entries(GATED_DESCRIPTIONS).map(([name, description]) => ({
      name,
      description,
      default_member_permissions: String(PermissionFlagsBits.ManageGuild),
      contexts: [InteractionContextType.Guild],
      integration_types: [ApplicationIntegrationType.GuildInstall],
      options: subs(name),
    })),
    // On any message, under Apps: the names it holds, answered to the person alone (`check`).
    { type: ApplicationCommandType.Message, name: CHECK_MESSAGE, contexts: EVERYWHERE, integration_types: ANY_INSTALL },
  ];
}

export type OptionValue = string | number | boolean;

/** A slash command as it arrived: the subcommand and its options as plain values. */
export interface SlashInput {
  command: string;
  subcommand: string | null;
  options: Readonly<Record<string, OptionValue | undefined>>;
}

/**
 * Options -> a typed invocation, option by option: nothing is written out as text and read back,
 * so a name such as "index coop" or one ending in "all" reaches the command as it was typed.
 */
export function toInvocation(specs: readonly CommandSpec[], input: SlashInput): Invocation | undefined {
  const spec = specOf(specs, input);
  if (!spec) return undefined;
  const args: Record<string, ArgValue> = {};
  for (const o of spec.options) {
    if (o.type === 'entities') {
      const values = discordOptionNames(o)
        .map((n) => input.options[n])
        .filter((v): v is OptionValue => v !== undefined && v !== '')
        .map(String);
      // A joined list is split at commas, as typed; inside a slot a comma is only punctuation.
      const names = o.discord === 'joined' ? values.flatMap((v) => v.split(',')) : values;
      args[o.name] = names.map((n) => n.trim()).filter(Boolean);
      continue;
    }
    const v = input.options[o.name];
    if (v !== undefined && v !== '') args[o.name] = typeof v === 'number' ? v : String(v);
  }
  return { command: spec.name, args: args as Args };
}

function specOf(specs: readonly CommandSpec[], input: SlashInput): CommandSpec | undefined {
  return specs.find((s) => {
    const place = placeOf(s);
    return place?.command === input.command && place.subcommand === input.subcommand;
  });
}

/** What an autocomplete request asks the core: which command's option is typed, and the options already given. */
export interface CompletionRequest {
  command: string;
  option: string;
  args: Args;
}

/** The registry option behind the Discord option being typed (compare's a, b, c... are its one list option). */
export function completionOf(specs: readonly CommandSpec[], input: SlashInput, focused: string): CompletionRequest | undefined {
  const spec = specOf(specs, input);
  const option = spec?.options.find((o) => discordOptionNames(o).includes(focused));
  if (!spec || !option) return undefined;
  const given = Object.fromEntries(Object.entries(input.options).filter(([name]) => name !== focused));
  const args = toInvocation(specs, { ...input, options: given })?.args ?? {};
  return { command: spec.name, option: option.name, args };
}
