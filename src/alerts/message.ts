import type { EntityRef } from '../api/domain.js';
import type {
  Action,
  CardReply,
  Direction,
  Footer,
  Headline,
  Inline,
  Menu,
  PersonRef,
  Reply,
  ReplyImage,
  Section,
  TextReply,
} from '../reply/model.js';
import { describeCondition, percentText, type Condition } from './condition.js';
import { spanText, type Group } from './escalation.js';
import type { Verdict } from './evaluate.js';
import { escalationKey } from './key.js';
import { REASON_MEANINGS, RESOLVE_REASONS } from './reason.js';
import { heldText } from './mutes.js';
import type { AlertFormat } from './severity.js';
import type { AlertRule, IncidentView } from './store.js';

/**
 * The words and buttons of an alert message, drawn from what the store says now, so that every
 * redraw (a click, a clearing, a replica taking over) shows the same truth. One incident is a card;
 * incidents that fired together in one channel share one message, a table listing them.
 */

export interface MessageEntry {
  incident: IncidentView;
  rule: AlertRule;
}

export interface MessageInput {
  entries: readonly MessageEntry[];
  /** Epoch ms: statuses (snoozed until...) are said as of now. */
  now: number;
  footer: Footer;
  image?: ReplyImage;
  /** A sample posted by `alert test`: it says so, and it has no buttons that would act on nothing. */
  test?: boolean;
  /** One line with its buttons and no chart (`compact`), or the whole card; full when not given. */
  format?: AlertFormat;
}

const TREND_WORDS = { worse: 'worse', better: 'better', flat: 'unchanged' } as const;

export function entityOf(e: MessageEntry): EntityRef {
  const { kind, slug } = e.incident;
  return e.rule.entities.find((x) => x.kind === kind && x.slug === slug) ?? { kind, slug, name: slug };
}

const displayName = (e: EntityRef) => `${e.name}${e.ticker ? ` (${e.ticker})` : ''}`;

/** "25 Nov 14:05 UTC": alerts are worked across time zones, so one zone, said. */
export function utcTime(ms: number): string {
  const d = new Date(ms);
  const day = d.toLocaleString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
  return `${day} ${d.toISOString().slice(11, 16)} UTC`;
}

function measure(c: Condition): { label: string; direction: Direction } {
  switch (c.kind) {
    case 'rating_below':
    case 'downgrade':
      return { label: 'Rating', direction: 'lower is safer' };
    case 'category_below':
      return {
        label: `${c.category.charAt(0).toUpperCase()}${c.category.slice(1).replace(/_/g, ' ')} score`,
        direction: 'higher is better',
      };
    case 'new_red_flag':
      return { label: 'New red flags', direction: 'lower is safer' };
    case 'listed_downgrade':
      return { label: 'Listed assets downgraded', direction: 'lower is safer' };
    case 'listed_above':
      return { label: 'Highest listed asset PoL', direction: 'lower is safer' };
    default:
      return { label: 'PoL', direction: 'lower is safer' };
  }
}

/** What happened, in one line: the value's move with its direction, or the flags that appeared. */
export function summaryOf(entity: EntityRef, condition: Condition, verdict: Verdict): string {
  const name = displayName(entity);
  const { label } = measure(condition);
  if (verdict.newFlags?.length)
    return `${name}: ${verdict.newFlags.length === 1 ? 'a new red flag' : `${verdict.newFlags.length} new red flags`}: ${verdict.newFlags.join('; ')}.`;
  const listed = listedText(condition, verdict);
  if (listed) return `${name}: ${listed}.`;
  const c = verdict.change;
  if (!c) return `${name}: ${describeCondition(condition)}.`;
  if (c.from === null || c.trend === 'flat') return `${name}: ${label} is ${c.to}, ${describeCondition(condition)}.`;
  return `${name}: ${label} ${c.trend === 'worse' ? 'worsened' : 'improved'} from ${c.from} to ${c.to}.`;
}

/** The listed assets a verdict names, in a phrase: `2 listed assets at or above 20.0%: Pepe (PEPE) 65.0%; …`. */
function listedText(condition: Condition, verdict: Verdict): string | null {
  const listed = verdict.listed;
  if (!listed?.count) return null;
  const some = listed.count === 1 ? 'a listed asset' : `${listed.count} listed assets`;
  const what =
    condition.kind === 'listed_above'
      ? `at or above ${percentText(condition.threshold)}`
      : 'downgraded (PoL up 1 point or more since the last check)';
  return `${some} ${what}: ${listed.assets.join('; ')}`;
}

/** The title of the section listing the listed assets of an incident on them. */
function listedTitle(condition: Condition): string | null {
  if (condition.kind === 'listed_above') return `Listed assets at or above ${percentText(condition.threshold)}`;
  return condition.kind === 'listed_downgrade' ? 'Listed assets downgraded' : null;
}

/** Someone as the store has them: a name, an id (since schema version 7), or neither. */
interface Stored {
  name: string | null;
  id: string | null;
}

const known = (p: Stored): boolean => p.name !== null || p.id !== null;
const samePerson = (a: Stored, b: Stored): boolean => (a.id !== null && b.id !== null ? a.id === b.id : a.name === b.name);

/** A person by id, whom each surface names its own way; one stored by name only (before ids were) stays a name. */
function person(p: Stored): string | PersonRef {
  if (p.id === null) return p.name ?? 'someone';
  return p.name !== null && p.name !== p.id ? { user: p.id, name: p.name } : { user: p.id };
}

function statusParts(i: IncidentView, now: number, people: boolean): (string | PersonRef)[] {
  const by = (p: Stored) => (people ? [' by ', person(p)] : []);
  const acknowledger = { name: i.acknowledgedBy, id: i.acknowledgedById };
  switch (i.status) {
    case 'open':
      return [`Open since ${utcTime(i.openedAt)}`];
    case 'acknowledged':
      return ['Acknowledged', ...by(acknowledger), ...(i.acknowledgedAt !== null ? [` at ${utcTime(i.acknowledgedAt)}`] : [])];
    case 'snoozed': {
      const snoozer = { name: i.snoozedBy, id: i.snoozedById };
      const who = known(snoozer) ? snoozer : acknowledger;
      const acked =
        people && known(acknowledger) && !samePerson(acknowledger, who) ? [' (acknowledged by ', person(acknowledger), ')'] : [];
      const until =
        i.snoozedUntil !== null && i.snoozedUntil > now
          ? ` until ${utcTime(i.snoozedUntil)}`
          : ` until ${i.snoozedUntil !== null ? utcTime(i.snoozedUntil) : 'earlier'}, now open again`;
      return ['Snoozed', ...by(who), until, ...acked];
    }
    case 'resolved':
      return [
        'Resolved',
        ...(i.closedReason ? [` as ${i.closedReason}`] : []),
        ...by({ name: i.closedBy, id: i.closedById }),
        ` at ${utcTime(i.closedAt ?? now)}`,
      ];
    case 'cleared':
      return [`Cleared by itself at ${utcTime(i.closedAt ?? now)}`];
  }
}

/** For an incident a mute held back: which mute, set by whom, and why it is shown now. */
function heldParts(i: IncidentView): (string | PersonRef)[] {
  const h = i.held;
  if (!h) return [];
  return [
    `Held back while ${heldText(h)} was muted by `,
    person({ name: h.by, id: h.byId }),
    '; posted when the mute ended, as it still held',
  ];
}

/** The incident's state, with who did what and when. */
export function statusOf(i: IncidentView, now: number): (string | PersonRef)[] {
  return statusParts(i, now, true);
}

/** The incident's state in words, without the people: for the person who has just acted on it. */
export function statusWords(i: IncidentView, now: number): string {
  return statusParts(i, now, false).join('');
}

/** Still to be worked: open, acknowledged or snoozed. */
export const isOpen = (i: IncidentView) => i.status === 'open' || i.status === 'acknowledged' || i.status === 'snoozed';

/** The buttons for what can still be done; a closed incident keeps only View card. */
function buttons(lead: MessageEntry, open: boolean, acknowledged: boolean, entities: readonly EntityRef[]): Action[] {
  const id = String(lead.incident.id);
  const steps: Action[] = open
    ? [
        ...(acknowledged ? [] : [{ label: 'Acknowledge', run: { command: 'alert-ack', args: { id } } }]),
        { label: 'Snooze 1h', run: { command: 'alert-snooze', args: { id, for: '1h' } } },
        { label: 'Snooze 24h', run: { command: 'alert-snooze', args: { id, for: '24h' } } },
      ]
    : [];
  const views = entities.slice(0, 5 - steps.length).map((e) => ({
    label: entities.length === 1 ? 'View card' : `View ${e.name}`,
    run: { command: 'card', args: { name: `${e.kind}:${e.slug}` } },
  }));
  return [...steps, ...views];
}

/** The ways to resolve an alert, one per reason, each the whole command: on its message, and asked of a person who typed none. */
export function resolveActions(id: number): Action[] {
  return RESOLVE_REASONS.map((reason) => ({
    label: reason.charAt(0).toUpperCase() + reason.slice(1),
    description: REASON_MEANINGS[reason],
    run: { command: 'alert-resolve', args: { id: String(id), reason } },
  }));
}

/** Resolving says why: a pick list of the reasons while the incident is open. */
function resolveMenu(lead: MessageEntry, open: boolean): Menu[] {
  return open ? [{ label: 'Resolve as…', options: resolveActions(lead.incident.id) }] : [];
}

export function incidentMessage(input: MessageInput): Reply {
  const [lead] = input.entries;
  if (!lead) return { kind: 'error', message: 'That alert has nothing left to show.' };
  if (input.format === 'compact') return compact(lead, input);
  return input.entries.length === 1 ? single(lead, input) : several(lead, input);
}

/**
 * An alert as one line: what crossed, and where it stands, with the same buttons and footer as the
 * card (the footer carries where the values came from, and the key the message is found again by).
 */
function compact(lead: MessageEntry, input: MessageInput): TextReply {
  const open = input.entries.filter((e) => isOpen(e.incident));
  const entities = [...new Map(input.entries.map((e) => [`${e.incident.kind}:${e.incident.slug}`, entityOf(e)])).values()];
  const icon = input.test ? '🧪' : open.length ? '🔔' : '✅';
  const one = (e: MessageEntry): (string | PersonRef)[] => {
    const since = sinceOpened(e.incident);
    const what = summaryOf(entityOf(e), e.rule.condition, e.incident.latest ?? e.incident.verdict).replace(/\.$/, '');
    return [
      `${input.test ? 'Test alert' : `#${e.incident.id}`} (rule #${e.rule.id}) ${what}${since !== null ? ` (${since})` : ''} · `,
      ...(input.test ? ['a test: nothing crossed'] : statusOf(e.incident, input.now)),
      ...(e.incident.held && !input.test ? [` · held back by a mute of ${heldText(e.incident.held)}`] : []),
    ];
  };
  return {
    kind: 'text',
    text: [`${icon} `, ...input.entries.flatMap((e, i) => [...(i ? ['; '] : []), ...one(e)])],
    footer: input.footer,
    actions: input.test
      ? buttons(lead, false, false, entities)
      : buttons(
          lead,
          open.length > 0,
          open.every((e) => e.incident.status !== 'open'),
          entities,
        ),
    menus: resolveMenu(lead, !input.test && open.length > 0),
  };
}

/**
 * The incident's value since it opened, PagerDuty-style: where it stands (or stood when it closed),
 * the worst it reached, and where it opened. Only once something moved it after opening.
 */
function sinceOpened(i: IncidentView): string | null {
  const now = i.latest?.change?.to;
  if (now === undefined) return null;
  const lead = i.status === 'cleared' ? 'cleared at' : i.status === 'resolved' ? 'last' : 'now';
  const opened = i.verdict.change?.to;
  return [`${lead} ${now}`, ...(i.worst ? [`worst ${i.worst.value}`] : []), ...(opened !== undefined ? [`opened at ${opened}`] : [])].join(
    ' · ',
  );
}

/** The red flags an incident is about: those that opened it and those of its latest crossing. */
function flagsOf(i: IncidentView): string[] | undefined {
  if (!i.verdict.newFlags) return undefined;
  return [...new Set([...i.verdict.newFlags, ...(i.latest?.newFlags ?? [])])];
}

function single(e: MessageEntry, input: MessageInput): CardReply {
  const entity = entityOf(e);
  const { incident, rule } = e;
  const now = input.now;
  const { label, direction } = measure(rule.condition);
  // What opened it, and what the message shows now: the latest crossing or clearing, if any came since.
  const opening = incident.verdict.change;
  const latest = incident.latest ?? incident.verdict;
  const change = latest.change;
  const flags = flagsOf(incident);
  // A downgrade of listed assets is a count of them; each one's move is in its own line below.
  const listedNow = latest.listed ?? incident.verdict.listed;
  const downgraded = rule.condition.kind === 'listed_downgrade';
  const since = downgraded ? null : sinceOpened(incident);
  const listedSection = listedTitle(rule.condition);
  const headline: Headline = {
    label,
    value: flags ? String(flags.length) : downgraded ? String(listedNow?.count ?? 0) : (change?.to ?? 'unknown'),
    direction,
    ...(!downgraded && change?.from != null && change.trend !== 'flat'
      ? { change: { text: `was ${change.from}, ${TREND_WORDS[change.trend]}`, trend: change.trend } }
      : {}),
  };
  const sections: Section[] = [
    {
      title: input.test ? 'Test alert' : `Alert #${incident.id}`,
      fields: [
        {
          label: 'Status',
          value: input.test ? 'A test: nothing crossed; this shows how an alert of this rule looks' : statusOf(incident, now),
        },
        ...(incident.held && !input.test ? [{ label: 'Muted', value: heldParts(incident) }] : []),
        { label: 'Rule', value: `#${rule.id}: ${describeCondition(rule.condition)}` },
        ...(opening && !downgraded ? [{ label: 'Before', value: opening.from ?? 'not seen before' }] : []),
        ...(since !== null
          ? [{ label: 'Since it opened', value: since, detail: direction }]
          : change && !downgraded
            ? [{ label: 'Now', value: change.to, detail: direction }]
            : []),
        // An incident cleared before schema version 7 kept its clearing as its verdict.
        ...(incident.status === 'cleared' && !incident.latest && change ? [{ label: 'Cleared at', value: change.to }] : []),
        // In words: a redraw that mentioned the group would not notify it, and a new message would again.
        ...(incident.escalatedTo?.length ? [{ label: 'Escalated', value: `to ${incident.escalatedTo.join(', then ')}` }] : []),
      ],
    },
    ...(flags?.length ? [{ title: 'New red flags', direction: 'lower is safer' as const, items: flags }] : []),
    ...(listedSection
      ? [
          {
            title: listedSection,
            direction: 'lower is safer' as const,
            items: listedNow?.assets ?? [],
            empty: 'none now',
          },
        ]
      : []),
  ];
  return {
    kind: 'card',
    entity,
    title: `${input.test ? '🧪 Test alert' : isOpen(incident) ? '🔔 Alert' : '✅ Alert'}: ${displayName(entity)}`,
    subtitle: summaryOf(entity, rule.condition, latest),
    headline,
    sections,
    ...(input.image ? { image: input.image } : {}),
    footer: input.footer,
    actions: input.test ? buttons(e, false, false, [entity]) : buttons(e, isOpen(incident), incident.status !== 'open', [entity]),
    menus: resolveMenu(e, !input.test && isOpen(incident)),
  };
}

/**
 * Incidents that fired together share a card: the lead's measure as its headline, every incident
 * listed with its own state. A card, not a table, so that every surface draws its buttons as buttons.
 */
function several(lead: MessageEntry, input: MessageInput): CardReply {
  const now = input.now;
  const open = input.entries.filter((e) => isOpen(e.incident));
  const entities = [...new Map(input.entries.map((e) => [`${e.incident.kind}:${e.incident.slug}`, entityOf(e)])).values()];
  const flagged = input.entries.flatMap((e) => (flagsOf(e.incident) ?? []).map((f) => `${displayName(entityOf(e))}: ${f}`));
  const first = single(lead, input);
  return {
    ...first,
    title: `${open.length ? '🔔' : '✅'} ${input.entries.length} alerts: ${entities.map((e) => e.name).join(', ')}`.slice(0, 150),
    subtitle: `One check crossed several lines in this channel at once; the buttons act on all of them.${open.length < input.entries.length ? ` ${open.length} still open.` : ''}`,
    sections: [
      {
        title: 'Alerts',
        items: input.entries.map((e): Inline => {
          const flags = flagsOf(e.incident);
          const since = sinceOpened(e.incident);
          const what = flags?.length
            ? `${flags.length === 1 ? 'a new red flag' : `${flags.length} new red flags`}`
            : summaryOf(entityOf(e), e.rule.condition, e.incident.latest ?? e.incident.verdict)
                .replace(/^[^:]+: /, '')
                .replace(/\.$/, '');
          const escalated = e.incident.escalatedTo?.length ? ` · escalated to ${e.incident.escalatedTo.join(', then ')}` : '';
          return [
            `#${e.incident.id} ${displayName(entityOf(e))}: ${what}${since !== null ? ` (${since})` : ''} · `,
            ...statusOf(e.incident, now),
            ...(e.incident.held ? [` · held back by a mute of ${heldText(e.incident.held)}`] : []),
            ...(escalated ? [escalated] : []),
          ];
        }),
      },
      ...(flagged.length ? [{ title: 'New red flags', direction: 'lower is safer' as const, items: flagged }] : []),
    ],
    actions: buttons(
      lead,
      open.length > 0,
      open.every((e) => e.incident.status !== 'open'),
      entities,
    ),
    menus: resolveMenu(lead, open.length > 0),
  };
}

/** A short reply in the message's thread: a further crossing, or the condition clearing by itself. */
export function followupMessage(kind: 'again' | 'cleared', e: MessageEntry, verdict: Verdict, at: number): TextReply {
  const entity = entityOf(e);
  return {
    kind: 'text',
    title: kind === 'again' ? `🔁 Again: ${displayName(entity)}` : `✅ Cleared: ${displayName(entity)}`,
    text:
      kind === 'again'
        ? `${summaryOf(entity, e.rule.condition, verdict)} Alert #${e.incident.id} is still ${e.incident.status === 'open' ? 'open' : e.incident.status} (${utcTime(at)}).`
        : `${summaryOf(entity, e.rule.condition, verdict)} No longer ${describeCondition(e.rule.condition)}; alert #${e.incident.id} closed by itself (${utcTime(at)}).`,
  };
}

/** The step of an escalation being posted: its id (the reply's key), its place, whom it calls on, and the wait since the message. */
export interface EscalationReplyStep {
  id: number;
  step: number;
  steps: number;
  group: Group;
  sinceMessageSec: number;
}

/**
 * The reply in an alert's thread that calls on a group: the one place a polbot message mentions
 * anyone so that they are notified. It carries its key, so a replica taking the step over finds it.
 */
export function escalationMessage(e: MessageEntry, step: EscalationReplyStep): TextReply {
  const entity = entityOf(e);
  const place = step.steps > 1 ? `, step ${step.step} of ${step.steps}` : '';
  return {
    kind: 'text',
    title: `⏫ Escalated: ${displayName(entity)}`,
    text: [
      `Still unacknowledged after ${spanText(step.sinceMessageSec)}: `,
      { group: step.group.id, label: step.group.label },
      `, please look.\nAlert #${e.incident.id}${place} · ${escalationKey(step.id)}`,
    ],
  };
}
