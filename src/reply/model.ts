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
  value: string;
  /** Short note after the value, e.g. "high confidence". */
  detail?: string;
}

export interface Section {
  title: string;
  /** Which way the numbers in this section run, when they have a direction. */
  direction?: Direction;
  fields?: Field[];
  items?: string[];
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

/** Something the person can choose; `command` is fed back into the core as if typed. */
export interface Action {
  label: string;
  description?: string;
  command: string;
}

export interface CardReply {
  kind: 'card';
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
}

export interface ChoiceReply {
  kind: 'choice';
  reason: 'ambiguous' | 'not_found';
  query: string;
  prompt: string;
  options: Action[];
  note?: string;
}

export interface Column {
  key: string;
  label: string;
  align?: 'left' | 'right';
}

export interface TableReply {
  kind: 'table';
  title: string;
  note?: string;
  columns: Column[];
  rows: Record<string, string>[];
  /** Extra sections after the table (a digest's highlights). */
  sections?: Section[];
  image?: ReplyImage;
  footer?: Footer;
  actions?: Action[];
}

export interface TextReply {
  kind: 'text';
  title?: string;
  text?: string;
  sections?: Section[];
  image?: ReplyImage;
  series?: Series;
  footer?: Footer;
}

export interface ErrorReply {
  kind: 'error';
  message: string;
  hint?: string;
}
