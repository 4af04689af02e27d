import type { FoundGroup, GroupDirectory } from '../../commands/core/index.js';

/**
 * Slack's user groups, as a slash command delivers them. With escaping on (the manifest's
 * `should_escape: true`), Slack writes a user group that exists as `<!subteam^S0123ABC|@risk-oncall>`
 * in the command's text, people as `<@U…|name>` and channels as `<#C…|name>`; a handle that stays
 * plain `@risk-oncall` is one no user group has. So nothing needs asking of the Web API (and no
 * `usergroups:read` scope): what arrived says whether the group exists.
 */

const SUBTEAM = /^<!subteam\^([A-Z0-9]{2,})(?:\|([^>]*))?>$/;
const PERSON = /^<@[UW][A-Z0-9]+(?:\|([^>]*))?>$/;
const CHANNEL = /^<#C[A-Z0-9]+(?:\|([^>]*))?>$/;
const BROADCAST = /^<!(here|channel|everyone)(?:\|[^>]*)?>$|^@(here|channel|everyone)$/i;

const shown = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

const HOW_TO_CREATE =
  'Create it in Slack under People › User groups (a paid plan; your admins may have to), then add the rule again, picking the group from the list Slack offers as you type @.';

function find(mention: string): FoundGroup {
  const group = SUBTEAM.exec(mention);
  if (group) {
    const handle = group[2]?.trim();
    return { ok: true, group: { id: group[1]!, label: handle ? (handle.startsWith('@') ? handle : `@${handle}`) : `@${group[1]!}` } };
  }
  if (BROADCAST.test(mention))
    return { ok: false, message: 'An escalation calls on a user group, never the whole channel: name a user group (@risk-oncall).' };
  const person = PERSON.exec(mention);
  if (person)
    return {
      ok: false,
      message: `${person[1] ? `@${shown(person[1])}` : 'That'} is a person: an escalation calls on a user group. Make one of the people to call (even one person) and name it.`,
    };
  const channel = CHANNEL.exec(mention);
  if (channel)
    return { ok: false, message: `${channel[1] ? `#${shown(channel[1])}` : 'That'} is a channel: an escalation calls on a user group.` };
  const name = mention.startsWith('@') ? mention : `@${mention}`;
  return { ok: false, message: `There is no user group ${shown(name)} in this workspace. ${HOW_TO_CREATE}` };
}

export const slackGroups: GroupDirectory = { find: async (mention) => find(mention.trim()) };
