import { cooldownWord, durationText } from '../src/alerts/duration.js';
import { NOISY, quieter, type Suggestion } from '../src/alerts/quality.js';
import type { AlertLimits } from '../src/alerts/service.js';
import type { AlertRule, RuleStats } from '../src/alerts/store.js';
import * as fmt from '../src/reply/format.js';
import { inline, ref } from '../src/reply/inline.js';
import type { CommandRef, Inline, TableReply } from '../src/reply/model.js';
import { noRulesYet, RULE_COLUMNS, ruleCells, withAlerts } from './kit/alert.js';
import { defineCommand, str } from './kit/spec.js';
import { targetRef } from './kit/target.js';

const WINDOW_DAYS: Readonly<Record<string, number>> = { '7d': 7, '30d': 30, '90d': 90 };
const DAY = 86_400_000;

export default defineCommand({
  name: 'alert-stats',
  order: 60,
  words: ['alert', 'stats'],
  summary: 'How each alert rule of this channel did: alerts, time to acknowledge, share resolved as noise',
  examples: ['alert stats', 'alert stats 90d'],
  group: 'alert',
  preconditions: ['alerts'],
  options: [
    {
      type: 'choice',
      name: 'window',
      description: 'Over the last 7d, 30d or 90d (default 30d)',
      choices: Object.keys(WINDOW_DAYS).map((value) => ({ value })),
      aliases: { '1w': '7d' },
      default: '30d',
    },
  ],
  handler: (ctx, args) =>
    withAlerts(ctx, async (service) => {
      const { platform, channelId } = ctx.caller;
      const window = str(args, 'window');
      const days = WINDOW_DAYS[window]!;
      const rules = await service.store.listChannel(platform, channelId);
      if (rules.length === 0) return noRulesYet();
      const now = ctx.now();
      const stats = await service.store.ruleStats(platform, channelId, { from: now - days * DAY, to: now }, NOISY);
      const judged = rules.map((rule) => {
        const s = stats.get(rule.id) ?? none(rule.id);
        return { rule, s, suggestion: s.noisy ? quieter(rule, service.limits.defaultCooldownSec) : null };
      });
      const table: TableReply = {
        kind: 'table',
        title: `Alert rules over the last ${days} days`,
        // The noisiest rules' advice first: a surface that cuts a long note cuts the least of it.
        note: [
          `Lower is better: median ack (of alerts acknowledged), noise (of alerts resolved with a reason). Flagged from ${NOISY.incidents} alerts, half or more of them noise.`,
          ...judged
            .filter((j) => j.suggestion)
            .sort((x, y) => y.s.noise / y.s.opened - x.s.noise / x.s.opened || x.rule.id - y.rule.id)
            .flatMap(({ rule, suggestion }) => advice(rule, suggestion!, service.limits)),
        ],
        columns: [
          ...RULE_COLUMNS,
          { key: 'alerts', label: 'Alerts', align: 'right' },
          { key: 'ack', label: 'Median ack', align: 'right' },
          { key: 'noise', label: 'Noise', align: 'right' },
          { key: 'flag', label: 'Suggestion' },
        ],
        rows: judged.map(({ rule, s, suggestion }) => ({
          ...ruleCells(rule),
          alerts: String(s.opened),
          ack: s.medianAckSec === null ? '—' : fmt.age(s.medianAckSec * 1000),
          noise: s.reasoned ? `${fmt.share(s.noise / s.reasoned)} of ${s.reasoned}` : '—',
          flag: suggestion ? suggestionText(suggestion) : '',
        })),
        actions: Object.keys(WINDOW_DAYS)
          .filter((w) => w !== window)
          .map((w) => ({ label: `Last ${WINDOW_DAYS[w]} days`, run: { command: 'alert-stats', args: { window: w } } })),
      };
      return table;
    }),
});

const none = (ruleId: number): RuleStats => ({
  ruleId,
  opened: 0,
  acknowledged: 0,
  medianAckSec: null,
  reasoned: 0,
  noise: 0,
  noisy: false,
});

/** A PoL line as typed: 0.075 -> `7.5%`. */
const lineText = (threshold: number) => `${Math.round(threshold * 1000) / 10}%`;

function suggestionText(s: Suggestion): string {
  if (s.kind === 'line') return `higher line: ${lineText(s.threshold)}`;
  if (s.kind === 'cooldown') return `longer cooldown: ${s.cooldown}`;
  return 'mute or pause it';
}

/**
 * What to do about a noisy rule, as commands to run: the same names added again at a higher line
 * or with a longer cooldown (keeping its other settings), then the old rule removed; or a mute or a pause.
 */
function advice(rule: AlertRule, suggestion: Suggestion, limits: AlertLimits): Inline {
  if (suggestion.kind === 'pause')
    return inline` #${String(rule.id)}: mute it for a week, ${ref('alert-mute', { target: `rule ${rule.id}`, for: '7d' })}, or pause it, ${ref('alert-pause', { id: String(rule.id) })}.`;
  const add: CommandRef = ref('alert-add', {
    names: rule.entities.map((e) => targetRef(e.kind, e.slug)),
    when: suggestion.kind === 'line' ? `pol above ${lineText(suggestion.threshold)}` : rule.conditionText,
    ...(rule.everySec !== limits.defaultEverySec ? { every: durationText(rule.everySec) } : {}),
    ...(suggestion.kind === 'cooldown'
      ? { cooldown: suggestion.cooldown }
      : rule.cooldownSec !== limits.defaultCooldownSec
        ? { cooldown: cooldownWord(rule.cooldownSec) }
        : {}),
  });
  const what = suggestion.kind === 'line' ? 'a higher line' : 'a longer cooldown';
  return inline` #${String(rule.id)}, ${what}: ${add}, then ${ref('alert-remove', { id: String(rule.id) })}.`;
}
