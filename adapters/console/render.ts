import { personName, renderInline, typedText } from '../../src/reply/inline.js';
import { footerWords } from '../../src/reply/footer.js';
import { layoutTable } from '../../src/reply/table.js';
import { styleOf } from '../../src/reply/palette.js';
import { sparkline } from '../../src/reply/sparkline.js';
import type { Action, CommandHelp, CommandRef, Footer, Inline, Menu, Reply, Section, Series } from '../../src/reply/model.js';

export interface ConsoleStyle {
  color: boolean;
  /**
   * How a command is written: as typed at the interactive prompt (`/pol exchange kraken`), or as
   * the command line that runs it (`polbot ask "exchange kraken"`).
   */
  commands?: 'prompt' | 'ask';
  /** Where the reply's chart PNG was written, if it was. */
  imagePath?: string;
  /** Where the reply's attached file (a CSV export) was written, if it was. */
  filePath?: string;
}

const CODES = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], magenta: [35, 39] } as const;
type Tone = keyof typeof CODES;

function paint(style: ConsoleStyle, tone: Tone, text: string): string {
  if (!style.color) return text;
  const [on, off] = CODES[tone];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}

/** Upstream text can carry terminal escapes; they are shown as text, never executed. */
export function clean(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '�').replace(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '');
}

const ratingTone = (rating: string | undefined): Tone => styleOf(rating).tone;

function section(style: ConsoleStyle, s: Section): string[] {
  const head = `${paint(style, 'bold', clean(s.title))}${s.direction ? paint(style, 'dim', ` (${s.direction})`) : ''}`;
  const lines = [head];
  const width = Math.min(28, Math.max(0, ...(s.fields ?? []).map((f) => clean(f.label).length)));
  for (const f of s.fields ?? []) {
    lines.push(
      `  ${clean(f.label).padEnd(width)}  ${inlineText(style, f.value)}${f.detail ? paint(style, 'dim', `  ${clean(f.detail)}`) : ''}`,
    );
  }
  if (s.items) {
    if (s.items.length === 0) lines.push(`  ${paint(style, 'dim', clean(s.empty ?? 'none'))}`);
    for (const item of s.items) lines.push(`  • ${inlineText(style, item)}`);
  }
  return lines;
}

function series(style: ConsoleStyle, s: Series | undefined): string[] {
  if (!s || s.values.length === 0) return [];
  return [
    `${paint(style, 'dim', clean(s.label))}  ${paint(style, 'cyan', sparkline(s.values))}${s.direction ? paint(style, 'dim', `  (${s.direction})`) : ''}`,
  ];
}

function footer(style: ConsoleStyle, f: Footer | undefined): string[] {
  if (!f) return [];
  const w = footerWords(f);
  const parts = [w.asOf, w.source];
  if (w.stale) parts.push(paint(style, 'yellow', w.stale));
  if (w.simulated) parts.push(paint(style, 'magenta', w.simulated));
  return [paint(style, 'dim', parts.join(' · ')), ...w.notes.map((n) => paint(style, 'dim', clean(n)))];
}

function image(style: ConsoleStyle): string[] {
  return [
    ...(style.imagePath ? [paint(style, 'dim', `chart: ${style.imagePath}`)] : []),
    ...(style.filePath ? [paint(style, 'dim', `file: ${style.filePath}`)] : []),
  ];
}

/** A command the person can run, in the form this console takes it. */
function commandText(style: ConsoleStyle, ref: CommandRef): string {
  const typed = clean(typedText(ref));
  return style.commands === 'ask' ? `polbot ask "${typed.replace(/"/g, '\\"')}"` : `/pol ${typed}`;
}

/** A terminal cannot mention anyone: people are named by what was stored with them. */
function inlineText(style: ConsoleStyle, text: Inline): string {
  return renderInline(
    text,
    clean,
    (r) => commandText(style, r),
    (p) => clean(personName(p)),
  );
}

function commandList(style: ConsoleStyle, commands: readonly CommandHelp[]): string[] {
  const lines = [paint(style, 'bold', 'Commands')];
  for (const c of commands) {
    lines.push(`  ${paint(style, 'bold', clean(c.typed))}`, `      ${clean(c.summary)}`);
    lines.push(paint(style, 'dim', `      e.g. ${c.examples.map((e) => commandText(style, e)).join(', ')}`));
  }
  return lines;
}

/** The follow-up commands of an answer, as the person would type them. */
function more(style: ConsoleStyle, actions: readonly Action[] | undefined): string[] {
  return actions?.length ? ['', paint(style, 'dim', `more: ${actions.map((a) => commandText(style, a.run)).join('  ')}`)] : [];
}

/** Pick lists as their choices, the one in force marked; any choice is its command typed. */
function menus(style: ConsoleStyle, list: readonly Menu[] | undefined): string[] {
  if (!list?.length) return [];
  const lines = list.map((m) => {
    const choices = m.search
      ? 'type a ticker or name'
      : m.options.map((o) => (o.label === m.selected ? `${clean(o.label)} (now)` : clean(o.label))).join(' · ');
    return `  ${paint(style, 'bold', clean(m.label))}${m.typed ? paint(style, 'dim', ` (${clean(m.typed)})`) : ''}: ${choices}`;
  });
  const example = list.flatMap((m) => m.options.filter((o) => o.label !== m.selected && o.label !== 'Any'))[0];
  return ['', ...lines, ...(example ? [paint(style, 'dim', `  e.g. ${commandText(style, example.run)}`)] : [])];
}

/** A Reply as terminal text. Choices are numbered so the person can answer with the number. */
export function renderReply(reply: Reply, style: ConsoleStyle): string {
  const out: string[] = [];
  switch (reply.kind) {
    case 'card': {
      out.push(`${paint(style, 'bold', clean(reply.title))}${reply.subtitle ? paint(style, 'dim', `  ${clean(reply.subtitle)}`) : ''}`);
      const h = reply.headline;
      out.push(
        `${h.label}: ${paint(style, 'bold', h.value)}${h.rating ? `  ${paint(style, ratingTone(h.rating), h.rating)}` : ''}${paint(style, 'dim', `  (${h.direction})`)}`,
      );
      if (h.change)
        out.push(paint(style, h.change.trend === 'worse' ? 'red' : h.change.trend === 'better' ? 'green' : 'dim', h.change.text));
      out.push(...series(style, reply.series));
      for (const s of reply.sections) out.push('', ...section(style, s));
      out.push(...more(style, reply.actions), ...menus(style, reply.menus));
      out.push('', ...image(style), ...footer(style, reply.footer));
      break;
    }
    case 'choice': {
      out.push(inlineText(style, reply.prompt));
      reply.options.forEach((o, i) => {
        const label = clean(o.label);
        const description = o.description ? clean(o.description) : '';
        // A description that restates the label ("dYdX (DYDX) · project") replaces it rather than repeating it.
        const text = description.startsWith(label) ? description : `${label}${description ? paint(style, 'dim', `  ${description}`) : ''}`;
        out.push(`  ${paint(style, 'bold', String(i + 1))}. ${text}`);
      });
      if (reply.note) out.push(paint(style, 'dim', inlineText(style, reply.note)));
      if (reply.options.length) out.push(paint(style, 'dim', 'Answer with a number to choose.'));
      break;
    }
    case 'table': {
      out.push(paint(style, 'bold', clean(reply.title)));
      if (reply.note) out.push(paint(style, 'dim', inlineText(style, reply.note)));
      const layout = layoutTable(reply.columns, reply.rows, clean);
      out.push(paint(style, 'dim', layout.header), ...layout.rows);
      for (const s of reply.sections ?? []) out.push('', ...section(style, s));
      // A row's card is its name typed; what else the table offers (pages, export) is spelled out.
      out.push(...menus(style, reply.menus));
      out.push(
        ...more(
          style,
          reply.actions?.filter((a) => a.run.command !== 'card'),
        ),
      );
      out.push(...image(style), ...footer(style, reply.footer));
      break;
    }
    case 'text': {
      if (reply.title) out.push(paint(style, 'bold', clean(reply.title)));
      if (reply.text) out.push(inlineText(style, reply.text));
      out.push(...series(style, reply.series));
      for (const s of reply.sections ?? []) out.push('', ...section(style, s));
      if (reply.commands?.length) out.push('', ...commandList(style, reply.commands));
      out.push(...more(style, reply.actions), ...menus(style, reply.menus));
      if (reply.image || reply.footer) out.push('');
      out.push(...image(style), ...footer(style, reply.footer));
      break;
    }
    case 'error':
      out.push(paint(style, 'red', clean(reply.message)));
      if (reply.hint) out.push(paint(style, 'dim', inlineText(style, reply.hint)));
      break;
  }
  return out.join('\n');
}
