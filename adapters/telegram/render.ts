import { footerWords } from '../../src/reply/footer.js';
import { personName, renderInline, typedText } from '../../src/reply/inline.js';
import {
  audienceOf,
  type Action,
  type CommandHelp,
  type Footer,
  type GroupRef,
  type Headline,
  type Inline,
  type Menu,
  type Reply,
  type ReplyFile,
  type ReplyImage,
  type Section,
  type Series,
  type TableReply,
} from '../../src/reply/model.js';
import { styleOf } from '../../src/reply/palette.js';
import { sparkline } from '../../src/reply/sparkline.js';
import { layoutTable } from '../../src/reply/table.js';
import { clip, escapeHtml, fitLines, LIMITS, packLines, plain, plainText, visibleLength } from './html.js';

/**
 * Reply -> what Telegram is sent: HTML texts that each fit a message, the chart, and an inline
 * keyboard. Pure. Every upstream string is escaped here and nowhere else; every limit holds for
 * any input, and what does not fit is cut with a visible mark or paged, never refused by Telegram.
 */

/** A button: a command it runs (as typed after `/pol`), or a link it opens. */
export interface Button {
  label: string;
  run?: string;
  /** The answer replaces the message the button is on (a choice, a page of a table) instead of following it. */
  replace?: boolean;
  /** For a table's pager: the page of the command's answer to show. */
  page?: number;
  url?: string;
}

export interface TelegramMessage {
  /** The texts to send in order, each at most 4,096 visible characters of HTML. */
  texts: string[];
  photo?: ReplyImage;
  /** A file that goes with the answer (a CSV export), sent after it as a document. */
  file?: ReplyFile;
  /** Under the last message sent. */
  keyboard: Button[][];
  /** For the person who asked alone (help, their mistakes, refusals, choices). */
  private: boolean;
  /** One plain line saying what it is: an inline result's title, a notice's words. */
  summary: string;
}

export interface RenderOptions {
  /** The command that gave this answer, as typed: a long table gets a pager that runs it again. */
  source?: string;
  /** The page of a table to show, from 1. */
  page?: number;
}

/** Where the caption must fit for the text to ride on the photo. */
export const captionFits = (m: TelegramMessage): boolean =>
  m.photo !== undefined && m.texts.length === 1 && visibleLength(m.texts[0]!) <= LIMITS.caption;

const command = (typed: string): string => `<code>/pol ${escapeHtml(typed)}</code>`;

/** A group named to call on it (an escalation): in Telegram a person by @username, written live so it notifies them. */
const callOn = (g: GroupRef): string => (/^[A-Za-z][A-Za-z0-9_]{4,31}$/.test(g.group) ? `@${g.group}` : escapeHtml(g.label));

function inline(text: Inline): string {
  return renderInline(
    text,
    escapeHtml,
    (r) => command(typedText(r)),
    // A mention would notify the person; a name tells who without calling them.
    (p) => escapeHtml(personName(p)),
    callOn,
  );
}

const TREND = { worse: '▲', better: '▼', flat: '▬' } as const;
/** The shared rating bands as the emoji Telegram shows. */
const BAND_MARK = { green: '🟢', yellow: '🟡', red: '🔴', cyan: '⚪' } as const;

function headline(h: Headline): string[] {
  const rating = h.rating ? `  ${BAND_MARK[styleOf(h.rating).tone]} <b>${escapeHtml(h.rating)}</b>` : '';
  const lines = [`${escapeHtml(h.label)}: <b>${escapeHtml(h.value)}</b>${rating}  <i>(${h.direction})</i>`];
  if (h.change) lines.push(`${TREND[h.change.trend]} ${escapeHtml(h.change.text)}`);
  return lines;
}

function section(s: Section): string[] {
  const lines = [`<b>${escapeHtml(s.title)}</b>${s.direction ? ` <i>(${s.direction})</i>` : ''}`];
  for (const f of s.fields ?? []) {
    lines.push(`${escapeHtml(f.label)}: ${inline(f.value)}${f.detail ? `  <i>${escapeHtml(f.detail)}</i>` : ''}`);
  }
  if (s.items) {
    if (s.items.length === 0) lines.push(`<i>${escapeHtml(s.empty ?? 'none')}</i>`);
    for (const item of s.items) lines.push(`• ${inline(item)}`);
  }
  return lines;
}

/** Without a chart (an inline result, a chart that could not be drawn), the series as a line of bars. */
function series(s: Series | undefined, image: ReplyImage | undefined): string[] {
  const bars = s && !image ? sparkline(s.values, 24) : '';
  if (!s || bars.length < 2) return [];
  return [`<i>${escapeHtml(s.label)}</i> ${bars}${s.direction ? ` <i>(${s.direction})</i>` : ''}`];
}

function footer(f: Footer | undefined): string[] {
  if (!f) return [];
  const w = footerWords(f);
  const parts = [w.asOf, w.source, ...(w.stale ? [`⚠️ ${w.stale}`] : []), ...(w.simulated ? [`<b>${w.simulated}</b>`] : [])];
  return [
    `<i>${parts.map((p) => (p.startsWith('<b>') ? p : escapeHtml(p))).join(' · ')}</i>`,
    ...w.notes.map((n) => `<i>${escapeHtml(n)}</i>`),
  ];
}

/** A command is offered only when it is whole: a cut command would run something nobody chose. */
const runnable = (a: Action): boolean => typedText(a.run).trim() !== '';

function rows(buttons: Button[], perRow: number): Button[][] {
  const out: Button[][] = [];
  for (let i = 0; i < buttons.length; i += perRow) out.push(buttons.slice(i, i + perRow));
  return out;
}

const actionButton = (a: Action, replace = false): Button => ({
  label: plain(a.label, LIMITS.buttonLabel) || 'Open',
  run: typedText(a.run),
  ...(replace ? { replace: true } : {}),
});

/** Telegram has no pick lists: each option is a button, the one in force marked, the list's name said above them. */
const MENU_OPTIONS = 12;

function menuParts(menus: readonly Menu[] | undefined): { lines: string[]; keyboard: Button[][] } {
  const lines: string[] = [];
  const keyboard: Button[][] = [];
  for (const m of menus ?? []) {
    const options = m.search ? [] : m.options.filter(runnable);
    const shown = options.slice(0, MENU_OPTIONS);
    const hidden = options.length - shown.length;
    const how = m.typed ? `, or type <code>${escapeHtml(m.typed)}…</code>` : '';
    if (m.search) {
      lines.push(`<i>${escapeHtml(m.label)}: type ${m.typed ? `<code>${escapeHtml(m.typed)}…</code>` : 'a name'} after the command</i>`);
      continue;
    }
    lines.push(`<i>${escapeHtml(m.label)}: pick below${hidden > 0 ? ` (${hidden} more not shown${how})` : ''}</i>`);
    keyboard.push(
      ...rows(
        shown.map((o) => ({ ...actionButton(o), label: plain(`${o.label === m.selected ? '✓ ' : ''}${o.label}`, LIMITS.buttonLabel) })),
        3,
      ),
    );
  }
  return { lines, keyboard };
}

function actionRows(actions: readonly Action[] | undefined): Button[][] {
  return rows(
    (actions ?? []).filter(runnable).map((a) => actionButton(a)),
    3,
  );
}

function commandList(commands: readonly CommandHelp[]): string[] {
  const lines: string[] = [];
  let family: string | undefined;
  for (const c of commands) {
    if (c.group && c.group !== family) {
      family = c.group;
      lines.push('', `<b>${escapeHtml(`${c.group.charAt(0).toUpperCase()}${c.group.slice(1)} commands`)}</b>`);
    }
    lines.push(`<b>/pol ${escapeHtml(c.typed)}</b> — ${escapeHtml(c.summary)}`);
    if (c.examples.length) lines.push(`   e.g. ${c.examples.map((e) => command(typedText(e))).join(', ')}`);
  }
  return lines;
}

/** Rows of a table per page: as many as fit a message with everything else the message says. */
function tablePages(reply: TableReply, budget: number): string[][] {
  // Padded first, escaped after: widths count what is shown, and `&amp;` is one character wide.
  const layout = layoutTable(reply.columns, reply.rows, plainText);
  const head = [layout.header, layout.rule('─')];
  const fixed = head.join('\n').length + 1;
  const pages: string[][] = [];
  let page: string[] = [];
  let used = fixed;
  for (const row of layout.rows) {
    if (page.length && used + row.length + 1 > budget) {
      pages.push(page);
      page = [];
      used = fixed;
    }
    page.push(row);
    used += row.length + 1;
  }
  pages.push(page);
  return pages.map((p) => [...head, ...p]);
}

const TABLE_BUDGET = LIMITS.text - 600;

function tableMessage(reply: TableReply, opts: RenderOptions): TelegramMessage {
  const pages = tablePages(reply, TABLE_BUDGET - Math.min(1500, reply.note ? visibleLength(inline(reply.note)) : 0));
  const at = Math.min(Math.max(1, opts.page ?? 1), pages.length);
  const pre = `<pre>${escapeHtml(pages[at - 1]!.join('\n'))}</pre>`;
  const head = [`<b>${escapeHtml(reply.title)}</b>`, ...(reply.note ? [inline(reply.note)] : [])];
  const paged = pages.length > 1;
  const where = paged
    ? opts.source !== undefined
      ? [`<i>page ${at} of ${pages.length} (${reply.rows.length} rows)</i>`]
      : [`<i>the first ${pages[0]!.length - 2} of ${reply.rows.length} rows</i>`]
    : [];
  const menus = menuParts(reply.menus);
  const tail = [
    ...where,
    ...(reply.sections ?? []).flatMap((s) => ['', ...section(s)]),
    ...menus.lines,
    ...(reply.footer ? ['', ...footer(reply.footer)] : []),
  ];
  const first = fitLines(head, 1500);
  const texts = [[first, pre].join('\n')];
  // What follows the table goes in the same message when it fits, else in the next.
  const rest = packLines(tail, LIMITS.text);
  if (tail.length && visibleLength(texts[0]!) + 1 + visibleLength(rest[0] ?? '') <= LIMITS.text) texts[0] = `${texts[0]}\n${rest.shift()}`;
  texts.push(...rest.filter((t) => t !== '—'));
  const pager: Button[] =
    paged && opts.source !== undefined
      ? [
          ...(at > 1 ? [{ label: '◀ Previous', run: opts.source, replace: true, page: at - 1 }] : []),
          ...(at < pages.length ? [{ label: 'Next ▶', run: opts.source, replace: true, page: at + 1 }] : []),
        ]
      : [];
  return {
    texts,
    ...(reply.image ? { photo: reply.image } : {}),
    ...(reply.file ? { file: reply.file } : {}),
    keyboard: [...(pager.length ? [pager] : []), ...menus.keyboard, ...actionRows(reply.actions)],
    private: audienceOf(reply) === 'asker',
    summary: plain(reply.title, 200),
  };
}

function cardMessage(reply: Extract<Reply, { kind: 'card' }>): TelegramMessage {
  const menus = menuParts(reply.menus);
  const lines = [
    `<b>${escapeHtml(reply.title)}</b>${reply.subtitle ? `  <i>${escapeHtml(reply.subtitle)}</i>` : ''}`,
    ...headline(reply.headline),
    ...series(reply.series, reply.image),
    ...reply.sections.flatMap((s) => ['', ...section(s)]),
    ...(menus.lines.length ? ['', ...menus.lines] : []),
    '',
    ...footer(reply.footer),
  ];
  const h = reply.headline;
  return {
    texts: packLines(lines, LIMITS.text),
    ...(reply.image ? { photo: reply.image } : {}),
    keyboard: [...actionRows(reply.actions), ...menus.keyboard],
    private: audienceOf(reply) === 'asker',
    summary: plain(`${reply.title}: ${h.label} ${h.value}${h.rating ? ` · ${h.rating}` : ''} (${h.direction})`, 200),
  };
}

function textMessage(reply: Extract<Reply, { kind: 'text' }>): TelegramMessage {
  const menus = menuParts(reply.menus);
  const lines = [
    ...(reply.title ? [`<b>${escapeHtml(reply.title)}</b>`] : []),
    ...(reply.text ? [inline(reply.text)] : []),
    ...series(reply.series, reply.image),
    ...(reply.sections ?? []).flatMap((s) => ['', ...section(s)]),
    ...(reply.commands?.length ? ['', ...commandList(reply.commands)] : []),
    ...(menus.lines.length ? ['', ...menus.lines] : []),
    ...(reply.footer ? ['', ...footer(reply.footer)] : []),
  ];
  return {
    texts: packLines(lines.length ? lines : ['—'], LIMITS.text),
    ...(reply.image ? { photo: reply.image } : {}),
    keyboard: [...actionRows(reply.actions), ...menus.keyboard],
    private: audienceOf(reply) === 'asker',
    summary: plain(reply.title ?? (typeof reply.text === 'string' ? reply.text : 'polbot'), 200),
  };
}

/** Candidates as buttons, one a row so each name reads whole; picking one replaces the question with its answer. */
const CHOICES = 10;

function choiceMessage(reply: Extract<Reply, { kind: 'choice' }>): TelegramMessage {
  const options = reply.options.filter(runnable);
  const shown = options.slice(0, CHOICES);
  const lines = [inline(reply.prompt), ...(reply.note ? [inline(reply.note)] : [])];
  if (options.length > shown.length) lines.push(`<i>${options.length - shown.length} more not shown: type a more specific name.</i>`);
  return {
    texts: [fitLines(lines, LIMITS.text)],
    keyboard: shown.map((o) => [
      {
        ...actionButton(o, true),
        label: plain(
          o.description?.startsWith(o.label) ? o.description : o.description ? `${o.label} · ${o.description}` : o.label,
          LIMITS.buttonLabel,
        ),
      },
    ]),
    private: audienceOf(reply) === 'asker',
    summary: plain(typeof reply.prompt === 'string' ? reply.prompt : `Which ${reply.query}?`, 200),
  };
}

function errorMessage(reply: Extract<Reply, { kind: 'error' }>): TelegramMessage {
  const lines = [`⚠️ ${escapeHtml(reply.message)}`, ...(reply.hint ? [inline(reply.hint)] : [])];
  return {
    texts: [fitLines(lines, LIMITS.text)],
    keyboard: [],
    private: audienceOf(reply) === 'asker',
    summary: plain(reply.message, LIMITS.callbackText),
  };
}

export function renderReply(reply: Reply, opts: RenderOptions = {}): TelegramMessage {
  const msg = (() => {
    switch (reply.kind) {
      case 'card':
        return cardMessage(reply);
      case 'table':
        return tableMessage(reply, opts);
      case 'text':
        return textMessage(reply);
      case 'choice':
        return choiceMessage(reply);
      case 'error':
        return errorMessage(reply);
    }
  })();
  return { ...msg, keyboard: capKeyboard(msg.keyboard) };
}

/** At most 100 buttons and 8 a row, as Telegram allows. */
function capKeyboard(keyboard: Button[][]): Button[][] {
  const out: Button[][] = [];
  let left = LIMITS.buttons;
  for (const row of keyboard) {
    const kept = row.slice(0, Math.min(LIMITS.buttonsPerRow, left));
    if (!kept.length) break;
    out.push(kept);
    left -= kept.length;
  }
  return out;
}

/** A short line for the chat, with nothing from the reply in it. */
export function notice(text: string, keyboard: Button[][] = []): TelegramMessage {
  return { texts: [escapeHtml(clip(text, LIMITS.text))], keyboard, private: false, summary: plain(text, 200) };
}
