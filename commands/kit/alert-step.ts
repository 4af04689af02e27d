import type { AlertStep } from '../../src/alerts/service.js';
import type { IncidentView } from '../../src/alerts/store.js';
import { isOpen, statusOf, statusWords } from '../../src/alerts/message.js';
import type { Reply } from '../../src/reply/model.js';
import { INCIDENT_ID_OPTION, withAlerts } from './alert.js';
import { verbSpec } from './group.js';
import { defineCommand, int, type Args, type ChoiceOption, type CommandSpec, type TextGrammar } from './spec.js';

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
  /** A typed form of its own (`resolve 12 as noise`); the generic one otherwise. */
  text?: TextGrammar;
  /**
   * What to ask before the step when the person has not said enough yet (resolve without a
   * reason): asked only of an alert still open in this channel. Undefined lets the step go ahead.
   */
  ask?(id: number, args: Args): Reply | undefined;
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
    ...(o.text ? { text: o.text } : {}),
    handler: (ctx, args) =>
      withAlerts(ctx, async (service): Promise<Reply> => {
        const id = int(args, 'id')!;
        const { platform, channelId, userId, userName } = ctx.caller;
        if (platform === 'console')
          return { kind: 'error', message: 'Alerts are worked from the Slack, Discord or Telegram chat they were posted in.' };
        const question = o.ask?.(id, args);
        if (question) {
          const incident = await service.store.incidentInChannel(id, platform, channelId);
          return incident && isOpen(incident) ? question : notOpen(id, incident, ctx.now());
        }
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
