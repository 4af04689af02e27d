import type { FoundGroup, GroupDirectory } from '../../commands/core/index.js';
import { plain } from './html.js';

/**
 * Who an escalation calls on in a Telegram group. Telegram has no user groups or roles: the call
 * is an @mention of a person by username, which notifies them when they are in the group. The Bot
 * API cannot look a username up, so a well-formed one is taken as typed, and the rule says so.
 */

/** Telegram usernames: 5 to 32 letters, digits and underscores, starting with a letter. */
const USERNAME = /^@([A-Za-z][A-Za-z0-9_]{4,31})$/;
const BROADCAST = /^@(everyone|here|all|channel|admins?)$/i;

export function telegramMentions(botUsername: string): GroupDirectory {
  return {
    async find(typed): Promise<FoundGroup> {
      const mention = typed.trim();
      if (BROADCAST.test(mention))
        return { ok: false, message: 'Telegram has no way to call on everyone: name the person to call by their @username.' };
      const name = USERNAME.exec(mention)?.[1];
      if (!name)
        return {
          ok: false,
          message: `“${plain(mention, 40)}” is not a Telegram username: name the person to call as @username (5 to 32 letters, digits or _).`,
        };
      if (name.toLowerCase() === botUsername.toLowerCase())
        return { ok: false, message: 'That is polbot itself: name the person to call.' };
      return {
        ok: true,
        group: { id: name, label: `@${name}` },
        note: `Telegram has no user groups: the step mentions @${name}, who is notified if they are in this group.`,
      };
    },
  };
}
