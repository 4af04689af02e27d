import { ApplicationCommandOptionType, type APIApplicationCommandOption } from 'discord.js';
import type { Reply } from '../../src/reply/model.js';
import { commandDefinitions } from './commands.js';

let commandList: string[] | undefined;

/**
 * The core's help names commands as they are typed in Slack and the console (`/pol binance`). In
 * Discord they are slash commands with options, so the list of commands is read from what polbot
 * registers: `/pol chart name: [range:] [kind:] — A chart over time`.
 */
export function discordCommandList(): readonly string[] {
  // The definitions never change while the process runs; built on the first /pol help.
  commandList ??= commandDefinitions().flatMap((command) => {
    const managers = command.default_member_permissions ? ' (server managers)' : '';
    return (command.options ?? []).filter(isSubcommand).map((sub) => {
      const options = (sub.options ?? []).map((o) => (o.required ? `${o.name}:` : `[${o.name}:]`));
      return `${[`/${command.name} ${sub.name}`, ...options].join(' ')} — ${sub.description}${managers}`;
    });
  });
  return commandList;
}

function isSubcommand(o: APIApplicationCommandOption): o is Extract<APIApplicationCommandOption, { type: ApplicationCommandOptionType.Subcommand }> {
  return o.type === ApplicationCommandOptionType.Subcommand;
}

/** The core's help with Discord's commands in place of the typed ones. */
export function discordHelp(reply: Reply): Reply {
  if (reply.kind !== 'text') return reply;
  return { ...reply, sections: [{ title: 'Commands', items: [...discordCommandList()] }] };
}
