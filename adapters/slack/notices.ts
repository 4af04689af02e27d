import type { SlackMessage } from './blocks.js';
import { flat, mrkdwn } from './escape.js';
import { clip } from './limits.js';

/**
 * The adapter's own short messages (progress, delivery problems). They never quote an exception:
 * only Slack's error codes, which are fixed identifiers such as `not_in_channel`.
 */

const notice = (text: string): SlackMessage => ({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });

/** Slack error codes are lower_snake_case words; anything else is not repeated to the person. */
export function safeCode(code: string | undefined): string | undefined {
  return code && /^[a-z][a-z0-9_]{1,60}$/.test(code) ? code : undefined;
}

export function lookingUp(query: string): { text: string } {
  const what = clip(mrkdwn(flat(query)), 80);
  return { text: what ? `:hourglass_flowing_sand: Looking up “${what}”…` : ':hourglass_flowing_sand: Working on it…' };
}

/** Why a card came through the command's reply link, and how to get charts next time. */
export function notInChannel(botUserId: string | undefined, code: string): SlackMessage {
  const me = botUserId ? `<@${botUserId}>` : 'the polbot app';
  const how =
    code === 'channel_not_found'
      ? `This looks like a private channel or a direct message: open the channel details, choose *Integrations* → *Add apps* and add ${me}.`
      : `Type \`/invite ${me}\` in this channel.`;
  return notice(
    `:information_source: I'm not a member of this channel, so I answered through the command's reply link and without the chart. ${how}`,
  );
}

export function deliveryFailed(code: string | undefined): SlackMessage {
  const said = safeCode(code);
  return notice(
    `:warning: I couldn't post the answer in this channel${said ? ` (Slack said \`${said}\`)` : ''}. Please try again in a moment.`,
  );
}

export function channelArchived(): SlackMessage {
  return notice(
    ':file_cabinet: This channel is archived, so nothing can be posted in it. Here is the answer for you alone; unarchive the channel to share answers there again.',
  );
}

export function chartNotAttached(code: string | undefined): SlackMessage {
  const said = safeCode(code);
  const scope = said === 'missing_scope' ? ' The app needs the `files:write` scope; an admin can reinstall it from the manifest.' : '';
  return notice(`:warning: The answer is posted, but its chart could not be attached${said ? ` (Slack said \`${said}\`)` : ''}.${scope}`);
}

export function somethingWentWrong(): SlackMessage {
  return notice(':warning: Something went wrong on our side. It has been logged; please try again.');
}
