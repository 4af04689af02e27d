import type { types } from '@slack/bolt';
import { groupsIn, personName, plainInline, renderInline, typedText } from '../../src/reply/inline.js';
import { footerWords } from '../../src/reply/footer.js';
import { layoutTable } from '../../src/reply/table.js';
import { BANDS, styleOf } from '../../src/reply/palette.js';
import type {
  Action,
  CommandHelp,
  CommandRef,
  Inline,
  CardReply,
  ChoiceReply,
  ErrorReply,
  Field,
  Footer,
  GroupRef,
  Headline,
  Menu,
  PersonRef,
  Reply,
  ReplyImage,
  Section,
  TableReply,
  TextReply,
} from '../../src/reply/model.js';
import { code, flat, mrkdwn, plain, stripInvisible } from './escape.js';
import { andMore, clip, FALLBACK_TEXT_MAX, fitLines, LIMITS, MESSAGE_TEXT_BUDGET, TABLE_LIMITS } from './limits.js';

/**
 * Reply -> Block Kit. Pure: no I/O, no clock. Every piece of text from a Reply goes through
 * escape.ts on the way in, and every element is cut to Block Kit's limits with a visible
 * "…and N more" rather than being allowed to fail the whole message.
 */

export type Block = types.KnownBlock;

export interface SlackMessage {
  /** Notification and accessibility fallback; mrkdwn, escaped like the blocks. */
  text: string;
  blocks: Block[];
}

/** Button action ids: a choice between candidates, or a follow-up offered by a reply. */
export const CHOICE_ACTION_PREFIX = 'pol_choice_';
export const FOLLOW_UP_ACTION_PREFIX = 'pol_action_';
export const MENU_ACTION_PREFIX = 'pol_menu_';
/** Marks the block of a menu whose options are looked up as the person types; the lookup follows. */
export const LOOKUP_BLOCK_PREFIX = 'pol_lookup|';
export const ACTION_ID = /^pol_(?:choice|action|menu)_\d+$/;

/** Candidates beyond this are summarised; a list that long means the name needs narrowing anyway. */
const MAX_CHOICES = 20;
/** Fields beyond this many per Reply section are summarised, so one section cannot crowd out the rest. */
const MAX_FIELDS_PER_SECTION = 30;
/**
 * The parts every message keeps (title, headline, notes, footer) have their own small budgets, so
 * together they can never crowd the body out of the message's text budget.
 */
const SHORT_TEXT = 300;
const NOTE_TEXT = 500;
const LEAD_TEXT = 1_000;
const MAX_FOOTER_NOTES = 4;

/**
 * `chart`, when given, is a picture already in Slack (an uploaded file, or the one a posted message
 * shows), drawn where the reply's image goes instead of that image.
 */
export function renderReply(reply: Reply, chart?: types.ImageBlock): SlackMessage {
  switch (reply.kind) {
    case 'card':
      return card(reply, chart);
    case 'choice':
      return choice(reply);
    case 'table':
      return table(reply, chart);
    case 'text':
      return textReply(reply, chart);
    case 'error':
      return errorReply(reply);
  }
}

// ---- element builders ------------------------------------------------------------------------

const md = (text: string): types.MrkdwnElement => ({ type: 'mrkdwn', text });

const plainText = (text: string, max: number): types.PlainTextElement => ({
  type: 'plain_text',
  text: clip(plain(flat(text)), max),
  emoji: true,
});

/** Slack refuses empty text objects; text that was all invisible characters shows as a dash. */
const nonEmpty = (text: string): string => (text.trim() ? text : '—');

function section(text: string, max: number = LIMITS.sectionText): types.SectionBlock {
  return { type: 'section', text: md(nonEmpty(clip(text, max))) };
}

function context(...texts: string[]): types.ContextBlock {
  return { type: 'context', elements: texts.slice(0, LIMITS.contextElements).map((t) => md(nonEmpty(clip(t, LIMITS.contextText)))) };
}

function header(title: string): types.HeaderBlock[] {
  const text = plainText(title, LIMITS.headerText);
  return text.text ? [{ type: 'header', text }] : [];
}

function button(label: string, actionId: string, value: string): types.Button {
  const text = plainText(label, LIMITS.buttonText);
  return { type: 'button', text: text.text ? text : { type: 'plain_text', text: 'Open' }, action_id: actionId, value };
}

/**
 * A command is only offered when it fits in a button value whole: a cut command would run
 * something the person never chose.
 */
const offerable = (a: Action): boolean => typedText(a.run).trim() !== '' && typedText(a.run).length <= LIMITS.buttonValue;

function followUps(actions: readonly Action[] | undefined): Block[] {
  if (!actions?.length) return [];
  const usable = actions.filter(offerable);
  const shown = usable.slice(0, LIMITS.actionsElements);
  const blocks: Block[] = [];
  if (shown.length) {
    blocks.push({ type: 'actions', elements: shown.map((a, i) => button(a.label, `${FOLLOW_UP_ACTION_PREFIX}${i}`, typedText(a.run))) });
  }
  const hidden = usable.length - shown.length;
  if (hidden > 0) blocks.push(context(andMore(hidden)));
  return blocks;
}

/**
 * Pick lists as static selects, each option's value the command it runs. An option whose command
 * does not fit Slack's option value is left out rather than cut; so are options past Slack's 100.
 */
function menuBlocks(menus: readonly Menu[] | undefined): Block[] {
  const list = menus ?? [];
  // A menu looked up as the person types is an external select in a block of its own: its block id
  // carries the lookup, which Slack sends back with each keystroke (see app.ts).
  const lookups: Block[] = list.flatMap((m, i): Block[] => {
    const blockId = m.search ? `${LOOKUP_BLOCK_PREFIX}${m.search}` : '';
    if (!m.search || blockId.length > LIMITS.blockId) return [];
    return [
      {
        type: 'actions',
        block_id: blockId,
        elements: [
          {
            type: 'external_select',
            action_id: `${MENU_ACTION_PREFIX}${i}`,
            placeholder: plainText(`${m.label}: type a name`, LIMITS.placeholderText),
            min_query_length: 1,
          },
        ],
      },
    ];
  });
  const elements = list.flatMap((m, i): types.StaticSelect[] => {
    if (m.search) return [];
    const usable = m.options
      .filter((o) => typedText(o.run).trim() !== '' && typedText(o.run).length <= LIMITS.optionValue)
      .slice(0, LIMITS.selectOptions);
    const options = usable.map((o) => ({ text: plainText(o.label, LIMITS.optionText), value: typedText(o.run) }));
    if (!options.length) return [];
    const initial = options[usable.findIndex((o) => o.label === m.selected)];
    return [
      {
        type: 'static_select',
        action_id: `${MENU_ACTION_PREFIX}${i}`,
        placeholder: plainText(m.label, LIMITS.placeholderText),
        options,
        ...(m.selected && initial ? { initial_option: initial } : {}),
      },
    ];
  });
  return [...(elements.length ? [{ type: 'actions' as const, elements: elements.slice(0, LIMITS.actionsElements) }] : []), ...lookups];
}

/** The image block of a chart uploaded to Slack as a file: its alt text cut to Slack's limit. */
export function uploadedChart(fileId: string, alt: string): types.ImageBlock {
  return { type: 'image', slack_file: { id: fileId }, alt_text: clip(plain(flat(alt)), LEAD_TEXT) || 'chart' };
}

function image(img: ReplyImage | undefined, chart: types.ImageBlock | undefined): Block[] {
  if (chart) return [chart];
  // A PNG is shown only once uploaded (see `chart`); hosted images are blocks of their own.
  if (img?.kind !== 'url' || img.url.length > LIMITS.imageUrl || !/^https?:\/\//i.test(img.url)) return [];
  const alt = clip(plain(flat(img.alt)), LEAD_TEXT) || 'chart';
  return [{ type: 'image', image_url: img.url, alt_text: alt }];
}

function footer(f: Footer | undefined): Block[] {
  if (!f) return [];
  const w = footerWords(f);
  const parts = [w.asOf, mrkdwn(w.source)];
  if (w.stale) parts.push(`:warning: ${w.stale}`);
  if (w.simulated) parts.push(`:test_tube: *${w.simulated}*`);
  const notes = w.notes.map((n) => clip(mrkdwn(flat(n)), SHORT_TEXT)).filter(Boolean);
  const shown = notes.slice(0, MAX_FOOTER_NOTES);
  if (notes.length > shown.length) shown.push(andMore(notes.length - shown.length, 'more notes'));
  return [context(parts.join(' · '), ...shown)];
}

// ---- commands named in text -----------------------------------------------------------------

/** A command as a person types it in Slack, in code so it reads as something to type. */
const slackCommand = (r: CommandRef): string => `\`${mrkdwn(flat(`/pol ${typedText(r)}`))}\``;

/**
 * A person as a user mention, which Slack shows with their current display name. A message that is
 * updated notifies nobody of the mentions it gains; a new one would, so delivery.ts names people
 * in words before posting (`namesOnly`).
 */
const slackPerson = (p: PersonRef): string => (/^[UW][A-Z0-9]{2,}$/.test(p.user) ? `<@${p.user}>` : mrkdwn(flat(personName(p))));

/**
 * A user group called on, as the mention that notifies its members (`<!subteam^S…>`). Only an
 * escalation's reply names a group this way; an id that is not a user group's stays its label in words.
 */
const slackGroup = (g: GroupRef): string => (/^S[A-Z0-9]{2,}$/.test(g.group) ? `<!subteam^${g.group}>` : mrkdwn(flat(g.label)));

/** Inline text as mrkdwn: plain parts escaped (and flattened to one line unless told), commands as code, people and groups as mentions. */
function inline(text: Inline, oneLine = true): string {
  // Parts are flattened, not trimmed: the space before a command ("then /pol …") is part of the sentence.
  const rendered = renderInline(text, (t) => mrkdwn(oneLine ? t.replace(/\s+/g, ' ') : t), slackCommand, slackPerson, slackGroup);
  return oneLine ? rendered.trim() : rendered;
}

/** Inline text for the notification fallback, which is escaped as a whole later. */
const flatInline = (text: Inline): string => plainInline(text, (r) => `/pol ${typedText(r)}`);

/** A list of commands: the typed usage, what it does, and a runnable example. */
function commandBlocks(commands: readonly CommandHelp[]): Block[] {
  const lines = commands.map(
    (c) =>
      `${slackCommand({ command: c.usage.command, text: c.typed })}\n${mrkdwn(flat(c.summary))}  _e.g._ ${c.examples.map(slackCommand).join(', ')}`,
  );
  const blocks: Block[] = [];
  let current: string[] = [];
  for (const line of lines) {
    if ([...current, line].join('\n').length > LIMITS.sectionText - 100) {
      blocks.push(section(current.join('\n')));
      current = [];
    }
    current.push(line);
  }
  if (current.length) blocks.push(section(current.join('\n')));
  return blocks;
}

// ---- Reply sections --------------------------------------------------------------------------

function sectionTitle(s: Section): string {
  const title = clip(mrkdwn(flat(s.title)), SHORT_TEXT);
  return `${title ? `*${title}*` : ''}${s.direction ? `  _(${s.direction})_` : ''}`;
}

function fieldText(f: Field): string {
  const label = mrkdwn(flat(f.label));
  const value = (typeof f.value === 'string' ? mrkdwn(f.value.trim()) : inline(f.value, false).trim()) || '—';
  const detail = f.detail ? mrkdwn(flat(f.detail)) : '';
  return clip(`${label ? `*${label}*\n` : ''}${value}${detail ? `  _${detail}_` : ''}`, LIMITS.fieldText);
}

function sectionBlocks(s: Section): Block[] {
  const blocks: Block[] = [];
  const title = sectionTitle(s);
  const fields = s.fields ?? [];
  const shown = fields.slice(0, MAX_FIELDS_PER_SECTION);
  for (let i = 0; i < shown.length; i += LIMITS.sectionFields) {
    const chunk = shown.slice(i, i + LIMITS.sectionFields).map((f) => md(fieldText(f)));
    blocks.push(i === 0 && title ? { type: 'section', text: md(title), fields: chunk } : { type: 'section', fields: chunk });
  }
  if (fields.length > shown.length) blocks.push(context(andMore(fields.length - shown.length)));

  const head = blocks.length ? '' : title;
  if (s.items?.length) {
    blocks.push(
      section(
        fitLines(
          head,
          s.items.map((item) => `• ${typeof item === 'string' ? mrkdwn(flat(item)) : inline(item)}`),
          LIMITS.sectionText,
        ),
      ),
    );
  } else if (s.items || !blocks.length) {
    const empty = `_${mrkdwn(flat(s.empty ?? 'none'))}_`;
    blocks.push(section(head ? `${head}\n${empty}` : empty));
  }
  return blocks;
}

/** The rating's band marker, from the one scale every surface uses. */
function badge(rating: string): string {
  const style = styleOf(rating);
  return style === BANDS.neutral ? '' : `${style.emoji} `;
}

function headline(h: Headline): string {
  const rating = h.rating ? `   ${badge(h.rating)}*${mrkdwn(flat(h.rating))}*` : '';
  const first = `*${mrkdwn(flat(h.label))}:*  *${mrkdwn(flat(h.value))}*${rating}   _(${h.direction})_`;
  return h.change ? `${first}\n${mrkdwn(flat(h.change.text))}` : first;
}

// ---- whole messages --------------------------------------------------------------------------

/**
 * Fixed parts (title, headline, footer, buttons) always go out; body blocks are kept in order
 * while they fit the block count and the text budget, and whatever is left is counted.
 */
function assemble(head: Block[], body: Block[], tail: Block[]): Block[] {
  const fixed = [...head, ...tail];
  const roomForNote = 1;
  let blocksLeft = LIMITS.blocks - fixed.length - roomForNote;
  let textLeft = MESSAGE_TEXT_BUDGET - textLength(fixed) - 64;
  const kept: Block[] = [];
  for (const block of body) {
    const size = textLength(block);
    if (blocksLeft <= 0 || size > textLeft) break;
    kept.push(block);
    blocksLeft -= 1;
    textLeft -= size;
  }
  const dropped = body.length - kept.length;
  const note = dropped > 0 ? [context(`${andMore(dropped)} not shown here`)] : [];
  return [...head, ...kept, ...note, ...tail];
}

function fallback(text: string, simulated = false): string {
  const summary = clip(mrkdwn(flat(text)), FALLBACK_TEXT_MAX - 20) || 'polbot';
  return simulated ? `${summary} · SIMULATED DATA` : summary;
}

function card(r: CardReply, chart: types.ImageBlock | undefined): SlackMessage {
  const head: Block[] = [...header(r.title)];
  if (r.subtitle) head.push(context(clip(mrkdwn(flat(r.subtitle)), SHORT_TEXT)));
  head.push(section(headline(r.headline), LEAD_TEXT), { type: 'divider' });
  const body = r.sections.flatMap(sectionBlocks);
  // A card's menus follow its buttons: they finish a step (resolve, and why) rather than narrow a list.
  const tail = [...image(r.image, chart), ...followUps(r.actions), ...menuBlocks(r.menus), ...footer(r.footer)];
  const h = r.headline;
  const summary = `${r.title}: ${h.label} ${h.value}${h.rating ? `, rated ${h.rating}` : ''} (${h.direction})`;
  return { text: fallback(summary, r.footer.simulated), blocks: assemble(head, body, tail) };
}

function choice(r: ChoiceReply): SlackMessage {
  const usable = r.options.filter(offerable);
  const shown = usable.slice(0, MAX_CHOICES);
  const body: Block[] = shown.map((o, i) => {
    const label = mrkdwn(flat(o.label));
    const description = o.description ? mrkdwn(flat(o.description)) : '';
    const name = clip(label || mrkdwn(flat(typedText(o.run))) || `Option ${i + 1}`, SHORT_TEXT);
    const text = `*${name}*${description && description !== label ? `\n${clip(description, NOTE_TEXT)}` : ''}`;
    return { ...section(text), accessory: button('Choose', `${CHOICE_ACTION_PREFIX}${i}`, typedText(o.run)) };
  });
  const tail: Block[] = [];
  if (usable.length > shown.length) tail.push(context(`${andMore(usable.length - shown.length)}: try a more specific name`));
  if (r.note) tail.push(context(clip(inline(r.note), NOTE_TEXT)));
  return { text: fallback(flatInline(r.prompt)), blocks: assemble([section(inline(r.prompt, false), LEAD_TEXT)], body, tail) };
}

function tableCode(r: TableReply): string {
  const columns = r.columns;
  if (!columns.length) return '_no columns_';
  // Padding happens before escaping: `&amp;` renders as one character, so columns stay aligned.
  const layout = layoutTable(columns, r.rows, (value) => flat(stripInvisible(value)));
  const head = [code(layout.header), code(layout.rule('─'))];
  const rows = layout.rows.map(code);
  const open = '```\n';
  const close = '\n```';
  const reserve = `\n${andMore(r.rows.length, 'more rows')}`.length;
  let body = head.join('\n');
  let shown = 0;
  for (const row of rows) {
    if (open.length + body.length + 1 + row.length + close.length + reserve > LIMITS.sectionText) break;
    body += `\n${row}`;
    shown += 1;
  }
  const more = r.rows.length - shown;
  const text = `${open}${body}${close}${more > 0 ? `\n${andMore(more, 'more rows')}` : ''}`;
  return r.rows.length ? text : `${text}\n_no rows_`;
}

/**
 * A table as Slack's own `table` block, its header row first and its numbers aligned as the
 * columns say; undefined when it does not fit the block's limits (rows, columns, a cell's text),
 * when the monospaced rendering of today carries it instead, its rows cut with a count.
 */
export function nativeTable(r: TableReply): Block | undefined {
  const { columns, rows } = r;
  if (!columns.length || !rows.length || columns.length > TABLE_LIMITS.columns || rows.length + 1 > TABLE_LIMITS.rows) return undefined;
  const cellOf = (value: string): { type: 'raw_text'; text: string } | undefined => {
    // Shown as written, as plain text is: upstream text gets the same neutralising as any plain_text.
    const text = plain(flat(stripInvisible(value))).trim();
    return text.length > TABLE_LIMITS.cellText ? undefined : { type: 'raw_text', text: text || '—' };
  };
  const grid = [columns.map((c) => c.label), ...rows.map((row) => columns.map((c) => row[c.key] ?? ''))].map((cells) => cells.map(cellOf));
  if (grid.some((cells) => cells.some((c) => c === undefined))) return undefined;
  if (grid.flat().reduce((n, c) => n + c!.text.length, 0) > TABLE_LIMITS.totalText) return undefined;
  // @slack/types knows no table block yet: it is built as Slack documents it.
  return {
    type: 'table',
    column_settings: columns.map((c) => (c.align === 'right' ? { align: 'right' } : { is_wrapped: true })),
    rows: grid,
  } as unknown as Block;
}

function table(r: TableReply, chart: types.ImageBlock | undefined): SlackMessage {
  const head: Block[] = [...header(r.title)];
  if (r.note) head.push(context(clip(inline(r.note), NOTE_TEXT)));
  const body: Block[] = [nativeTable(r) ?? section(tableCode(r)), ...(r.sections ?? []).flatMap(sectionBlocks)];
  const tail = [...image(r.image, chart), ...menuBlocks(r.menus), ...followUps(r.actions), ...footer(r.footer)];
  return { text: fallback(r.title, r.footer?.simulated), blocks: assemble(head, body, tail) };
}

function textReply(r: TextReply, chart: types.ImageBlock | undefined): SlackMessage {
  const head: Block[] = r.title ? header(r.title) : [];
  const body: Block[] = [];
  const text = r.text === undefined ? '' : flatInline(r.text).trim();
  if (text) body.push(section(inline(r.text!, false).trim()));
  for (const s of r.sections ?? []) body.push(...sectionBlocks(s));
  if (r.commands?.length) body.push(...commandBlocks(r.commands));
  const tail = [...image(r.image, chart), ...followUps(r.actions), ...menuBlocks(r.menus), ...footer(r.footer)];
  if (!head.length && !body.length && !tail.length) body.push(section('_nothing to show_'));
  const summary = r.title ?? (text.split('\n')[0] || 'polbot');
  // A reply that calls on a group says so in its notification text too, mention and all.
  const calling = r.text !== undefined && groupsIn(r.text).length > 0;
  return {
    text: calling ? clip(inline(r.text!), FALLBACK_TEXT_MAX) : fallback(summary, r.footer?.simulated),
    blocks: assemble(head, body, tail),
  };
}

function errorReply(r: ErrorReply): SlackMessage {
  const hint = r.hint ? `\n${clip(inline(r.hint, false), NOTE_TEXT)}` : '';
  return { text: fallback(r.message), blocks: [section(`:warning: ${clip(mrkdwn(r.message), LEAD_TEXT)}${hint}`)] };
}

/** Characters of visible text in blocks: text objects, button labels and alt texts. */
export function textLength(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + textLength(v), 0);
  if (!value || typeof value !== 'object') return 0;
  let n = 0;
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string') n += key === 'text' || key === 'alt_text' ? v.length : 0;
    else n += textLength(v);
  }
  return n;
}
