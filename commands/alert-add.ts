import { CONDITION_GRAMMAR, conditionSuggestions, describeCondition, parseCondition } from '../src/alerts/condition.js';
import { COOLDOWN_CHOICES, durationSec, durationText } from '../src/alerts/duration.js';
import { ESCALATION_GRAMMAR, escalationSentence, readEscalation, type EscalationStep, type Group } from '../src/alerts/escalation.js';
import { unreadablePart } from '../src/alerts/readings.js';
import { SEVERITIES, SEVERITY_MEANING, type Severity } from '../src/alerts/severity.js';
import { inline, ref } from '../src/reply/inline.js';
import type { ErrorReply, Reply } from '../src/reply/model.js';
import { withAlerts } from './kit/alert.js';
import { namedListChoices, textChoices } from './kit/choices.js';
import type { Caller } from './kit/context.js';
import { resolveWatchlist } from './kit/resolve-watchlist.js';
import { defineCommand, list, str, stringArgs, type Args } from './kit/spec.js';

const EVERY = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '24h'] as const;
const USAGE = `<names...> when <condition> [every 5m] [cooldown 30m] [severity high|normal|low] [escalate ${ESCALATION_GRAMMAR}] [notify <destination>]`;

/** A setting at the end of the condition: `every 15m`, `cooldown 1h`, `severity high`, `notify oncall, siem`. */
const SETTING = /\s+(every|cooldown|severity|notify)\s+(\S+(?:\s*,\s*\S+)*)$/i;

/** The escalation, a setting of several words: `escalate after 15m to @risk-oncall then after 1h to @head-of-risk`. */
const ESCALATE = /\s+escalate\b\s*(.*)$/is;

/** `binance, kraken when pol above 5% every 15m`: names, `when`, the condition, then optional settings at the end. */
function parseAdd(rest: string): { ok: true; args: Args } | { ok: false; message: string } {
  const m = /^(.*?)\s+when\s+(.+)$/is.exec(rest.trim());
  if (!m) return { ok: false, message: `Say when to alert: alert add ${USAGE}. Conditions: ${CONDITION_GRAMMAR}.` };
  const names = (m[1]!.includes(',') ? m[1]!.split(',') : m[1]!.split(/\s+/)).map((n) => n.trim()).filter(Boolean);
  let condition = m[2]!.trim();
  const settings: Record<string, string> = {};
  for (;;) {
    const t = SETTING.exec(condition);
    if (t) {
      const key = t[1]!.toLowerCase();
      if (settings[key]) return { ok: false, message: `'${key}' is given twice; give it once.` };
      settings[key] = t[2]!.toLowerCase().replace(/\s+/g, '');
      condition = condition.slice(0, t.index).trim();
      continue;
    }
    const e = ESCALATE.exec(condition);
    if (!e) break;
    // Mentions keep their case: a platform's ids are case-sensitive.
    const steps = e[1]!.trim().replace(/\s+/g, ' ');
    if (settings.escalate !== undefined || /\bescalate\b/i.test(steps))
      return { ok: false, message: "'escalate' is given twice; give it once." };
    const read = readEscalation(steps);
    if (!read.ok) return read;
    settings.escalate = steps;
    condition = condition.slice(0, e.index).trim();
  }
  const parsed = parseCondition(condition, []);
  if (!parsed.ok) return parsed;
  return { ok: true, args: { names, when: condition, ...settings } };
}

/** Typed durations that mean one of the choices. */
function aliases(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = { '0': 'none', off: 'none', '1d': '24h', '60m': '1h', '1440m': '24h' };
  for (const v of values) {
    const sec = durationSec(v);
    if (sec !== undefined) out[`${sec}s`] = v;
  }
  return out;
}

export default defineCommand({
  name: 'alert-add',
  order: 51,
  words: ['alert', 'add'],
  aliases: [
    ['alert', 'new'],
    ['alert', 'create'],
  ],
  summary: 'Alert this channel when names cross a line (PoL, rating, red flags, a category)',
  examples: [
    'alert add binance, kraken when pol above 5%',
    'alert add aave when rating below B every 15m',
    'alert add uniswap when new red flag',
  ],
  group: 'alert',
  preconditions: ['alerts', 'managers'],
  options: [
    {
      type: 'entities',
      name: 'names',
      description: 'Projects and exchanges, separated by commas',
      required: true,
      min: 1,
      max: 25,
      discord: 'joined',
      missing: 'Name at least one project or exchange to watch.',
    },
    {
      type: 'text',
      name: 'when',
      description: 'pol above 5% · pol rises by 2pp in 7d · rating below B · downgrade · new red flag …',
      required: true,
      maxLength: 100,
      complete: (_ctx, typed) => textChoices(conditionSuggestions(typed)),
      missing: `When should it alert? Conditions: ${CONDITION_GRAMMAR}.`,
    },
    {
      type: 'choice',
      name: 'every',
      description: 'How often to check (default 5m)',
      choices: EVERY.map((value) => ({ value })),
      aliases: aliases(EVERY),
    },
    {
      type: 'choice',
      name: 'cooldown',
      description: 'Quiet time after an alert closes (default 30m)',
      choices: COOLDOWN_CHOICES.map((value) => ({ value })),
      aliases: aliases(COOLDOWN_CHOICES),
    },
    {
      type: 'choice',
      name: 'severity',
      description: 'high: always in full · normal: as the channel says (default) · low: one line',
      choices: SEVERITIES.map((value) => ({ value })),
    },
    {
      type: 'text',
      name: 'escalate',
      description: 'If still unacknowledged: after 15m to @group, optionally then after 1h to @group',
      label: 'escalation',
      maxLength: 400,
    },
    {
      type: 'text',
      name: 'notify',
      description: 'Destinations outside chat to tell too, as named by the operator (e.g. oncall)',
      maxLength: 100,
      complete: (ctx, typed) => namedListChoices(ctx.alerts?.destinations ?? [], typed),
    },
  ],
  text: {
    usage: USAGE,
    parse: parseAdd,
    format: (args) =>
      [
        list(args, 'names')
          .map((n) => n.replace(/,/g, ' '))
          .join(', '),
        `when ${str(args, 'when')}`,
        str(args, 'every') && `every ${str(args, 'every')}`,
        str(args, 'cooldown') && `cooldown ${str(args, 'cooldown')}`,
        str(args, 'severity') && `severity ${str(args, 'severity')}`,
        str(args, 'escalate') && `escalate ${str(args, 'escalate')}`,
        str(args, 'notify') && `notify ${str(args, 'notify')}`,
      ]
        .filter(Boolean)
        .join(' '),
  },
  handler: (ctx, args) =>
    withAlerts(ctx, async (service): Promise<Reply> => {
      const { limits } = service;
      const everySec = str(args, 'every') ? durationSec(str(args, 'every'))! : limits.defaultEverySec;
      if (everySec < limits.minEverySec || everySec > limits.maxEverySec)
        return usage(
          `Checks run every ${durationText(limits.minEverySec)} at the most often and every ${durationText(limits.maxEverySec)} at the least.`,
        );
      const cooldownSec =
        str(args, 'cooldown') === 'none' ? 0 : str(args, 'cooldown') ? durationSec(str(args, 'cooldown'))! : limits.defaultCooldownSec;

      const severity = (str(args, 'severity') || 'normal') as Severity;
      const notify = [
        ...new Set(
          str(args, 'notify')
            .split(',')
            .map((n) => n.trim().toLowerCase())
            .filter(Boolean),
        ),
      ];
      const unknown = notify.filter((n) => !service.destinations.includes(n));
      if (unknown.length) return unknownDestination(unknown[0]!, service.destinations);

      // Before any name is resolved: a group that does not exist is refused before anything is asked or added.
      const escalation = await escalationOf(ctx.caller, str(args, 'escalate'));
      if (!escalation.ok) return escalation.reply;

      const names = list(args, 'names');
      const resolved = await resolveWatchlist(ctx, names, (chosen) => ({
        command: 'alert-add',
        args: { ...stringArgs(args), names: chosen },
      }));
      if (!resolved.ok) return resolved.reply;
      const { entities } = resolved;
      const condition = parseCondition(
        str(args, 'when'),
        entities.map((e) => e.kind),
      );
      if (!condition.ok) return usage(condition.message);
      const unreadable = unreadablePart(
        ctx.source,
        condition.condition,
        entities.map((e) => e.kind),
      );
      if (unreadable) {
        return {
          kind: 'error',
          message: `Alerts on ${unreadable} need the REST service; the tool server this polbot uses has no tool for them, so such a rule could never fire.`,
          hint: 'Alert on a category score (security below 60) or new red flags instead; the operator can configure POL_API_BASE_URL to enable the rest.',
        };
      }

      const { platform, channelId, userId, workspaceId, enterpriseId } = ctx.caller;
      const created = await service.store.create(
        {
          platform,
          workspaceId: workspaceId ?? null,
          enterpriseId: enterpriseId ?? null,
          channelId,
          entities,
          condition: condition.condition,
          conditionText: str(args, 'when'),
          everySec,
          cooldownSec,
          createdBy: userId,
          notify,
          severity,
          escalation: escalation.steps,
        },
        ctx.now(),
        limits,
      );
      if (!created.ok) {
        return created.reason === 'channel_full'
          ? {
              kind: 'error',
              message: `This channel already has ${rulesText(limits.perChannel)}, the most it can have.`,
              hint: inline`Remove one first: see them with ${ref('alert-list')}.`,
            }
          : {
              kind: 'error',
              message: `This ${ctx.caller.platform === 'discord' ? 'server' : 'workspace'} already has ${rulesText(limits.perWorkspace)} across its channels, the most it can have.`,
              hint: 'Remove rules that are no longer needed, in the channels that have them.',
            };
      }
      const rule = created.rule;
      return {
        kind: 'text',
        title: `Alert rule #${rule.id} added`,
        text: inline`Alerting this channel on ${describeCondition(rule.condition)}. Checked every ${durationText(everySec)}; after an alert closes, quiet for ${durationText(cooldownSec)}.${severity !== 'normal' ? ` ${severity === 'high' ? 'High' : 'Low'} severity: ${SEVERITY_MEANING[severity]}.` : ''}${escalation.steps.length ? ` ${escalationSentence(escalation.steps)}` : ''}${escalation.notes.map((n) => ` ${n}`).join('')}${notify.length ? ` Also telling ${notify.join(' and ')}.` : ''} See a sample with ${ref('alert-test', { id: String(rule.id) })}.`,
        sections: [{ title: 'Watching', items: entities.map((e) => `${e.name}${e.ticker ? ` (${e.ticker})` : ''} · ${e.kind}`) }],
      };
    }),
});

type Escalation = { ok: true; steps: EscalationStep[]; notes: string[] } | { ok: false; reply: ErrorReply };

/**
 * The rule's escalation: its steps read, and each group found where the person is. Only the
 * person's platform can tell a group from a typo, so it is asked (`caller.groups`), once per mention.
 */
async function escalationOf(caller: Caller, typed: string): Promise<Escalation> {
  if (!typed.trim()) return { ok: true, steps: [], notes: [] };
  const read = readEscalation(typed);
  if (!read.ok) return { ok: false, reply: escalationUsage(read.message) };
  const { groups } = caller;
  if (!groups)
    return {
      ok: false,
      reply: {
        kind: 'error',
        message: 'An escalation calls on a group of people in the chat (a user group or a role), and there are none here.',
        hint: 'Add the rule from the channel it alerts, naming a group of that chat.',
      },
    };
  const found = new Map<string, Group>();
  const notes = new Set<string>();
  for (const s of read.steps) {
    if (found.has(s.mention)) continue;
    const f = await groups.find(s.mention);
    if (!f.ok) return { ok: false, reply: { kind: 'error', message: f.message } };
    found.set(s.mention, f.group);
    if (f.note) notes.add(f.note);
  }
  return { ok: true, steps: read.steps.map((s) => ({ afterSec: s.afterSec, group: found.get(s.mention)! })), notes: [...notes] };
}

function escalationUsage(message: string): ErrorReply {
  return {
    kind: 'error',
    message,
    hint: 'For example: escalate after 15m to @risk-oncall then after 1h to @head-of-risk (at most 3 steps, each 5m to 24h after the one before).',
  };
}

/** A destination is the operator's to name: a person picks from those, never types an address. */
function unknownDestination(name: string, configured: readonly string[]): ErrorReply {
  return {
    kind: 'error',
    message: configured.length
      ? `There is no destination '${name.slice(0, 40)}'. This polbot can notify ${configured.join(', ')}.`
      : `There is no destination '${name.slice(0, 40)}': this polbot has no destinations outside chat.`,
    hint: configured.length
      ? 'Use one of those names after notify.'
      : 'The operator names them in POLBOT_DESTINATIONS (PagerDuty or signed webhooks).',
  };
}

const rulesText = (n: number) => `${n} alert ${n === 1 ? 'rule' : 'rules'}`;

function usage(message: string): ErrorReply {
  return {
    kind: 'error',
    message,
    hint: inline`For example: ${ref('alert-add', { names: ['binance', 'kraken'], when: 'pol above 5%', every: '15m' })}`,
  };
}
