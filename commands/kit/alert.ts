import type { AlertService } from '../../src/alerts/service.js';
import type { AlertRule } from '../../src/alerts/store.js';
import { namesSummary } from '../../src/digest/text.js';
import { inline, ref } from '../../src/reply/inline.js';
import type { Column, ErrorReply, Reply } from '../../src/reply/model.js';
import { verbSpec } from './group.js';
import { defineCommand, int, type CommandSpec, type HandlerContext } from './spec.js';

/**
 * The alert service, for a command that declares the `alerts` precondition: the core has refused
 * the command already where there is none, or where polbot cannot post.
 */
export function withAlerts(ctx: HandlerContext, run: (service: AlertService) => Promise<Reply> | Reply): Promise<Reply> | Reply {
  if (!ctx.alerts) throw new Error('an alert command runs without the alerts precondition');
  return run(ctx.alerts);
}

export const seeRules = () => inline`See this channel’s alert rules with ${ref('alert-list')}.`;

/** The columns that say which rule a row is, first in every table of a channel's rules. */
export const RULE_COLUMNS: readonly Column[] = [
  { key: 'id', label: '#', align: 'right' },
  { key: 'watch', label: 'Watching' },
  { key: 'when', label: 'When' },
];

export const ruleCells = (r: AlertRule) => ({ id: String(r.id), watch: namesSummary(r.entities), when: r.conditionText });

/** What a channel's rules look like before it has any: the way to add one. */
export const noRulesYet = (): Reply => ({
  kind: 'text',
  title: 'No alert rules in this channel yet',
  text: inline`Add one with ${ref('alert-add', { names: ['binance', 'kraken'], when: 'pol above 5%' })}`,
});

export function missingRule(id: number): ErrorReply {
  return { kind: 'error', message: `There is no alert rule #${id} in this channel.`, hint: seeRules() };
}

export const RULE_ID_OPTION = {
  type: 'integer',
  name: 'id',
  label: 'rule number',
  description: 'Alert rule number (see the alert list)',
  required: true,
  min: 1,
  max: 999_999_999,
  missing: 'Which rule? Give its number from the alert list.',
} as const;

export const INCIDENT_ID_OPTION = {
  type: 'integer',
  name: 'id',
  label: 'alert number',
  description: 'Alert number (on the alert message)',
  required: true,
  min: 1,
  max: 999_999_999,
  missing: 'Which alert? Give the number on its message.',
} as const;

/** The shape of `alert <verb> <id>` for rules; each verb is still a module of its own. */
export function alertRuleCommand(o: {
  verb: string;
  order: number;
  aliases?: string[];
  summary: string;
  run(ctx: HandlerContext, service: AlertService, id: number): Promise<Reply | null>;
}): CommandSpec {
  return defineCommand({
    ...verbSpec('alert', o.verb, o.order, o.aliases),
    summary: o.summary,
    examples: [`alert ${o.verb} 3`],
    preconditions: ['alerts', 'managers'],
    options: [RULE_ID_OPTION],
    handler: (ctx, args) =>
      withAlerts(ctx, async (service) => {
        const id = int(args, 'id')!;
        return (await o.run(ctx, service, id)) ?? missingRule(id);
      }),
  });
}
