import type { AlertStep } from '../../src/alerts/service.js';
import type { IncidentView } from '../../src/alerts/store.js';
import { statusOf, statusWords } from '../../src/alerts/message.js';
import type { Reply } from '../../src/reply/model.js';
import { INCIDENT_ID_OPTION, withAlerts } from './alert.js';
import { verbSpec } from './group.js';
import { defineCommand, int, type Args, type ChoiceOption, type CommandSpec } from './spec.js';

/**
 * A step on an alert (acknowledge, snooze, resolve): what its buttons run, and what anyone in the
 * channel may type. The alert's message is redrawn in place; the person gets a word only for them.
 */
export function alertStepCommand(o: {
  verb: string;
  order: number;
  aliases?: string[];
  summary: string;
  examples: string[];
  extra?: ChoiceOption;
  step(args: Args, now: number): AlertStep;
}): CommandSpec {
  return defineCommand({
    ...verbSpec('alert', o.verb, o.order, o.aliases),
    summary: o.summary,
    examples: o.examples,
    // Reached from the alert message's buttons on Discord; /pol-alert is for managing rules.
    discord: false,
    preconditions: ['alerts'],
    options: [INCIDENT_ID_OPTION, ...(o.extra ? [o.extra] : [])],
    handler: (ctx, args) =>
      withAlerts(ctx, async (service): Promise<Reply> => {
        const id = int(args, 'id')!;
        const { platform, channelId, userId, userName } = ctx.caller;
        if (platform === 'console')
          return { kind: 'error', message: 'Alerts are worked from the Slack or Discord channel they were posted in.' };
        const moved = await service.act(id, { platform, channelId }, { id: userId, name: userName }, o.step(args, ctx.now()));
        if (!moved) return notOpen(id, await service.store.incidentInChannel(id, platform, channelId), ctx.now());
        return {
          kind: 'text',
          audience: 'asker',
          title: `Alert #${id}: ${statusWords(moved, ctx.now())}`,
          text: 'The alert message shows it to everyone in the channel.',
        };
      }),
  });
}

function notOpen(id: number, incident: IncidentView | null, now: number): Reply {
  if (!incident) return { kind: 'error', message: `There is no alert #${id} in this channel.` };
  return { kind: 'error', message: `Alert #${id} is closed already.`, hint: [...statusOf(incident, now), '.'] };
}
