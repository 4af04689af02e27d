import { isSeverity, PAGERDUTY_SEVERITY, SEVERITIES, SEVERITY_MEANING, type Severity } from '../src/alerts/severity.js';
import { inline, ref } from '../src/reply/inline.js';
import type { Reply } from '../src/reply/model.js';
import { missingRule, RULE_ID_OPTION, withAlerts } from './kit/alert.js';
import { verbSpec } from './kit/group.js';
import { defineCommand, int, str } from './kit/spec.js';

export default defineCommand({
  ...verbSpec('alert', 'severity', 65),
  summary: "Set an alert rule's severity: high (always in full), normal, or low (always one line)",
  examples: ['alert severity 3 high', 'alert severity 3 low'],
  preconditions: ['alerts', 'managers'],
  options: [
    RULE_ID_OPTION,
    {
      type: 'choice',
      name: 'severity',
      description: 'high: always in full · normal: as the channel says · low: one line',
      choices: SEVERITIES.map((value) => ({ value })),
      required: true,
      missing: 'High, normal or low?',
    },
  ],
  text: {
    usage: '<rule number> high|normal|low',
    parse(rest) {
      const [id, severity, ...more] = rest.trim().split(/\s+/);
      if (!id || !/^\d{1,9}$/.test(id))
        return { ok: false, message: 'Which rule? Give its number from the alert list, then high, normal or low.' };
      const level = severity?.toLowerCase();
      if (!level || !isSeverity(level) || more.length)
        return {
          ok: false,
          message: `Say high, normal or low after the rule number${severity ? `, not '${rest.trim().slice(id.length).trim().slice(0, 30)}'` : ''}.`,
        };
      return { ok: true, args: { id: Number(id), severity: level } };
    },
    format: (args) => `${String(args.id ?? '')} ${str(args, 'severity')}`.trim(),
  },
  handler: (ctx, args) =>
    withAlerts(ctx, async (service): Promise<Reply> => {
      const id = int(args, 'id')!;
      const severity = str(args, 'severity') as Severity;
      const rule = await service.store.setSeverity(id, ctx.caller.platform, ctx.caller.channelId, severity);
      if (!rule) return missingRule(id);
      return {
        kind: 'text',
        title: `Alert rule #${id}: ${severity} severity`,
        text: inline`Its alerts are ${SEVERITY_MEANING[severity]}${service.destinations.length ? `; destinations outside chat hear it as ${PAGERDUTY_SEVERITY[severity]}` : ''}. See the channel's rules with ${ref('alert-list')}.`,
      };
    }),
});
