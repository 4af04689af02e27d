import { type APIRole, DiscordAPIError, type REST, Routes } from 'discord.js';
import type { FoundGroup, GroupDirectory } from '../../commands/core/index.js';
import { plainText } from './escape.js';

/**
 * A server's roles, the groups an escalation calls on in Discord. A role picked from the list
 * Discord offers as `@` is typed arrives in a string option as `<@&id>`; a name typed without
 * picking arrives as plain `@risk-oncall`. Either is looked up among the server's roles (`GET
 * /guilds/{id}/roles`, read once per command), so a role that is not there is said plainly.
 */

const ROLE = /^<@&(\d{5,25})>$/;
const PERSON = /^<@!?(\d{5,25})>$/;
const CHANNEL = /^<#(\d{5,25})>$/;
const BROADCAST = /^@(everyone|here)$/i;

const shown = (text: string): string => {
  const clean = plainText(text);
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
};

const HOW_TO_CREATE =
  'Create it in Server Settings › Roles (with "Allow anyone to @mention this role" on), then add the rule again, picking the role from the list Discord offers as you type @.';

/** The roles of `guildId`, read through the bot's REST client. */
export function discordRoles(rest: REST, guildId: string): GroupDirectory {
  let roles: Promise<APIRole[]> | undefined;
  const read = (): Promise<APIRole[]> => {
    roles ??= rest.get(Routes.guildRoles(guildId)) as Promise<APIRole[]>;
    return roles;
  };
  const found = (role: APIRole): FoundGroup => ({
    ok: true,
    group: { id: role.id, label: `@${role.name}` },
    // Discord pings a role only if anyone may mention it, or if the poster may mention every role.
    ...(role.mentionable
      ? {}
      : {
          note: `@${role.name} does not allow anyone to @mention it, so it is notified only if polbot has the Mention @everyone, @here and All Roles permission.`,
        }),
  });

  return {
    async find(typed) {
      const mention = typed.trim();
      if (BROADCAST.test(mention))
        return { ok: false, message: 'An escalation calls on a role, never everyone: name a role (@risk-oncall).' };
      if (PERSON.test(mention))
        return {
          ok: false,
          message: 'That is a person: an escalation calls on a role. Make one for the people to call (even one person) and name it.',
        };
      if (CHANNEL.test(mention)) return { ok: false, message: 'That is a channel: an escalation calls on a role.' };
      let all: APIRole[];
      try {
        // @everyone has the server's own id: it is no group to call on.
        all = (await read()).filter((r) => r.id !== guildId);
      } catch (err) {
        roles = undefined;
        const why = err instanceof DiscordAPIError ? `${err.status}` : 'Discord unreachable';
        return { ok: false, message: `Could not read this server's roles from Discord (${why}); try again in a moment.` };
      }
      const id = ROLE.exec(mention)?.[1];
      if (id) {
        const role = all.find((r) => r.id === id);
        return role ? found(role) : { ok: false, message: `That role is not one of this server's. ${HOW_TO_CREATE}` };
      }
      const name = mention.replace(/^@/, '').toLowerCase();
      const named = all.filter((r) => r.name.toLowerCase() === name);
      if (named.length === 1) return found(named[0]!);
      if (named.length > 1)
        return {
          ok: false,
          message: `Several roles are called @${shown(name)}: pick the one you mean from the list Discord offers as you type @.`,
        };
      return { ok: false, message: `There is no role @${shown(name)} in this server. ${HOW_TO_CREATE}` };
    },
  };
}
