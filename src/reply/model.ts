import type { EntityRef, SourceName } from '../api/domain.js';

/**
 * The platform-neutral answer to a command. It holds plain text only (adapters escape and style it)
 * and never a Slack or Discord type. Every number that has a direction says which way it runs.
 */
export type Reply = CardReply | ChoiceReply | TableReply | TextReply | ErrorReply;

export type Direction = 'lower is safer' | 'higher is better';

/** A chart as the adapters need it: PNG bytes to attach, or a URL to embed. */
export type ReplyImage =
  | { kind: 'png'; png: Buffer; width: number; height: number; filename: string; alt: string }
  | { kind: 'url'; url: string; width: number; height: number; alt: string };

/** A file sent with a reply (a CSV export): uploaded next to the message, never inlined. */
export interface ReplyFile {
  filename: string;
  contentType: 'text/csv';
  bytes: Buffer;
  /** What the file is, for the upload's title. */
  title: string;
}

export interface Footer {
  /** Epoch ms of the oldest data on the reply. */
  asOf: number;
  sources: SourceName[];
  /** Set when any part came from stale cache after an upstream failure. */
  stale?: { ageMs: number };
  /** The data is simulated (demo mode); always shown to the person. */
  simulated: boolean;
  /** Extra footnotes, e.g. "2 slots skipped while offline". */
  notes?: string[];
}

export interface Field {
  label: string;
  value: Inline;
  /** Short note after the value, e.g. "high confidence". */
  detail?: string;
}

export interface Section {
  title: string;
  /** Which way the numbers in this section run, when they have a direction. */
  direction?: Direction;
  fields?: Field[];
  items?: Inline[];
  /** Shown when `items` is empty, e.g. "none identified". */
  empty?: string;
}

export interface Headline {
  label: string;
  value: string;
  rating?: string;
  direction: Direction;
  change?: { text: string; trend: 'worse' | 'better' | 'flat' };
}

/** The numbers behind a chart, for renderers that draw text (a terminal sparkline). */
export interface Series {
  label: string;
  values: number[];
  direction?: Direction;
}

/**
 * A command with its arguments, as data: what a button runs, or what a hint tells the person to
 * type. Each adapter writes it in its own syntax (Slack `/pol exchange kraken`, a Discord command
 * mention with the option named, the console's `polbot ask "exchange kraken"`).
 */
export interface CommandRef {
  /** The registry's name of the command, e.g. `chart` or `digest-list`. */
  command: string;
  args?: Readonly<Record<string, RefArg>>;
  /** The same command as the console and Slack type it (`exchange kraken`), filled in by the core. */
  text?: string;
}

/** An argument's value; a placeholder stands for what the person fills in (`<text>`). */
export type RefArg = string | number | readonly string[] | { placeholder: string };

/**
 * A person, by their id on the platform the reply goes to (who acknowledged an alert). Each adapter
 * names them its own way: a mention the client shows with the person's current display name, and
 * that notifies nobody. `name` is what was known of them when it was stored, for surfaces that
 * cannot mention (a terminal) or must not (a new message, where a mention would notify).
 */
export interface PersonRef {
  user: string;
  name?: string;
}

/**
 * A group of people the platform can notify at once (a user group, a role), by its id there, with
 * the words it goes by (`@risk-oncall`). Unlike a person, a group is named to call on it: each
 * adapter writes it as a mention that notifies the group. Only an alert's escalation names one;
 * everywhere else a group is said in words, by its label.
 */
export interface GroupRef {
  group: string;
  label: string;
}

/** Text that may name commands, people and groups: plain strings, and references that each adapter writes its own way. */
export type Inline = string | readonly (string | { ref: CommandRef } | PersonRef | GroupRef)[];

/**
 * Something the person can choose. `run` is the command as data; `command` is the same command
 * as the console and Slack type it, filled in by the core (scripts follow it with `polbot ask`).
 */
export interface Action {
  label: string;
  description?: string;
  run: CommandRef;
  command?: string;
}

/** Who sees a reply: only the person who asked (help, their mistakes, refusals) or the channel. */
export type Audience = 'asker' | 'channel';

export interface CardReply {
  kind: 'card';
  audience?: Audience;
  entity: EntityRef;
  title: string;
  subtitle?: string;
  headline: Headline;
  sections: Section[];
  image?: ReplyImage;
  series?: Series;
  footer: Footer;
  /** Follow-up commands worth offering (chart ranges, flags). */
  actions?: Action[];
  /** Pick lists after the buttons (an alert's "Resolve as…"): each option runs its command. */
  menus?: Menu[];
}

export interface ChoiceReply {
  kind: 'choice';
  audience?: Audience;
  /** A name that could be several, one found nowhere, or a question a command asks before it acts. */
  reason: 'ambiguous' | 'not_found' | 'question';
  query: string;
  prompt: Inline;
  options: Action[];
  note?: Inline;
}

export interface Column {
  key: string;
  label: string;
  align?: 'left' | 'right';
}

export interface TableReply {
  kind: 'table';
  audience?: Audience;
  title: string;
  note?: Inline;
  columns: Column[];
  rows: Record<string, string>[];
  /** Extra sections after the table (a digest's highlights). */
  sections?: Section[];
  image?: ReplyImage;
  /** A file to attach, e.g. the whole filtered list as CSV. */
  file?: ReplyFile;
  footer?: Footer;
  actions?: Action[];
  /** Pick lists that narrow or reorder the table (the ratings filters), after it and before the buttons. */
  menus?: Menu[];
}

/**
 * A pick list: each option runs its command. Under a table, that is the same answer with that one
 * choice changed; under a card, a step that needs one word more (why an alert is resolved).
 */
export interface Menu {
  /** What it picks, as a placeholder: `Category`. */
  label: string;
  options: Action[];
  /** The option in force now, by label, if one of them is. */
  selected?: string;
  /** How a choice is typed instead, for surfaces without menus: `market_cap=`. */
  typed?: string;
  /**
   * For a list too long to send whole (the exchanges' tokens): no options, but a lookup that
   * `Core.lookup` answers as the person types. At most 200 characters.
   */
  search?: string;
}

/** One command in a list of commands (help): its usage and examples, written by each adapter its own way. */
export interface CommandHelp {
  /** Every option as a placeholder, for surfaces with options (Discord). */
  usage: CommandRef;
  /** The typed form with its options: `chart <name or slug> [7d|30d|...]`. */
  typed: string;
  summary: string;
  examples: CommandRef[];
  /** The family it manages (`alert`, `digest`), for surfaces that list those apart or more briefly. */
  group?: string;
}

export interface TextReply {
  kind: 'text';
  audience?: Audience;
  title?: string;
  text?: Inline;
  sections?: Section[];
  /** A list of commands, after the sections. */
  commands?: CommandHelp[];
  image?: ReplyImage;
  series?: Series;
  footer?: Footer;
  /** Steps to take from a short message (a compact alert's Acknowledge), after everything else. */
  actions?: Action[];
  menus?: Menu[];
}

export interface ErrorReply {
  kind: 'error';
  audience?: Audience;
  message: string;
  hint?: Inline;
}

/** Choices and errors are for the asker unless a command says otherwise; everything else for the channel. */
export function audienceOf(reply: Reply): Audience {
  return reply.audience ?? (reply.kind === 'choice' || reply.kind === 'error' ? 'asker' : 'channel');
}
