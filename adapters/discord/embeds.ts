import {
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type APIEmbed,
  type APIEmbedField,
  type APISelectMenuOption,
  ButtonStyle,
  ComponentType,
} from 'discord.js';
import { groupsIn, personName, renderInline, typedText } from '../../src/reply/inline.js';
import { footerWords } from '../../src/reply/footer.js';
import { layoutTable } from '../../src/reply/table.js';
import { BANDS, styleOf } from '../../src/reply/palette.js';
import {
  audienceOf,
  type Action,
  type ChoiceReply,
  type CommandHelp,
  type CommandRef,
  type Footer,
  type GroupRef,
  type Headline,
  type Inline,
  type Menu,
  type PersonRef,
  type Reply,
  type ReplyImage,
  type Section,
  type TableReply,
} from '../../src/reply/model.js';
import { encodeInvocation } from './custom-id.js';
import { clip, codeText, escapeText, plainText } from './escape.js';

/**
 * Reply -> Discord message: one embed, components and files. Pure. Every Discord limit holds
 * for any input; whatever does not fit is cut with a visible marker, never rejected by Discord.
 */

export const LIMITS = {
  content: 2000,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  embedTotal: 6000,
  selectOptions: 25,
  optionText: 100,
  customId: 100,
  placeholder: 150,
  buttonLabel: 80,
  buttonsPerRow: 5,
  /** Discord allows five action rows; one is kept free for the rows a reply may add (a select). */
  buttonRows: 4,
} as const;

/** Select of candidates for an ambiguous or unknown name; values are command texts. */
export const CHOOSE_ID = 'pol:choose';
/** Buttons and selects on public answers that run a follow-up command (chart ranges, a table row). */
export const RUN_ID = 'pol:run';

export const COLOURS = {
  good: BANDS.good.colour,
  fair: BANDS.fair.colour,
  poor: BANDS.poor.colour,
  neutral: BANDS.neutral.colour,
} as const;

export type Row = APIActionRowComponent<APIComponentInMessageActionRow>;

export interface FilePayload {
  attachment: Buffer;
  name: string;
  description?: string;
}

export interface DiscordMessage {
  /** Empty when the message is only an embed. */
  content: string;
  embeds: APIEmbed[];
  components: Row[];
  files: FilePayload[];
  /**
   * Nobody is ever pinged by what polbot posts, whatever the data says, but the roles an alert's
   * escalation calls on (`roles`), and only those.
   */
  allowedMentions: { parse: []; roles?: string[] };
  /** Choices and errors are for the person who asked only. */
  private: boolean;
  /** Messages that follow it, for what one message cannot hold (help's digest and alert commands). */
  more?: DiscordMessage[];
}

export interface RenderOptions {
  /**
   * A command as a custom id or select value (at most 90 characters, under our prefix). The
   * adapter keeps long ones on its side under a short key; without it such commands are left out.
   */
  encode?: (ref: CommandRef) => string | undefined;
  /** A command named in text: a command mention with its options (see mentions.ts). */
  mention?: (ref: CommandRef) => string;
  /** A help entry's usage line. */
  usage?: (help: CommandHelp) => string;
  /** A help entry's examples, as this surface fills them in. */
  examples?: (help: CommandHelp) => string;
}

const defaultEncode = (ref: CommandRef): string | undefined => {
  const value = encodeInvocation(ref);
  return value.length <= 90 ? value : undefined;
};
const defaultMention = (ref: CommandRef): string => `\`/pol ${codeText(typedText(ref))}\``;

export const isPrivate = (reply: Reply): boolean => audienceOf(reply) === 'asker';

/**
 * A person as a user mention, which each client shows with their current name. Nobody is pinged:
 * every message and edit carries allowed_mentions that parse nothing, and embeds never ping.
 */
const personMention = (p: PersonRef): string => (/^\d{5,25}$/.test(p.user) ? `<@${p.user}>` : escapeText(personName(p)));

/** Inline text for markdown contexts: plain parts escaped, commands and people as mentions, groups in words. */
function inlineText(text: Inline, opts: RenderOptions): string {
  return renderInline(text, escapeText, opts.mention ?? defaultMention, personMention);
}

const isRoleId = (g: GroupRef): boolean => /^\d{5,25}$/.test(g.group);

/** A role called on, as the mention that pings it: only in content (embeds never ping), and allowed by id. */
const roleMention = (g: GroupRef): string => (isRoleId(g) ? `<@&${g.group}>` : escapeText(g.label));

const TRUNCATED = '… (truncated)';

// ---------------------------------------------------------------------------------------------
// Pieces

/** The embed colour of a rating, from the one scale every surface uses. */
export function ratingColour(rating: string | undefined): number {
  return styleOf(rating).colour;
}

export function footerText(f: Footer): string {
  const w = footerWords(f);
  const parts = [w.asOf, w.source, w.stale, w.simulated, ...w.notes].filter((p): p is string => Boolean(p));
  return clip(plainText(parts.join(' · ')), LIMITS.footer);
}

const TREND_MARK = { worse: '▲', better: '▼', flat: '▬' } as const;

function headlineField(h: Headline): APIEmbedField {
  const lines = [`**${escapeText(h.value)}**${h.rating ? ` · rating **${escapeText(h.rating)}**` : ''}`];
  if (h.change) lines.push(`${TREND_MARK[h.change.trend]} ${escapeText(h.change.text)}`);
  return {
    name: clip(escapeText(`${h.label} (${h.direction})`), LIMITS.fieldName),
    value: clip(lines.join('\n'), LIMITS.fieldValue),
    inline: false,
  };
}

function sectionLines(s: Section, opts: RenderOptions): string[] {
  const lines = (s.fields ?? []).map(
    (f) => `${escapeText(f.label)}: **${inlineText(f.value, opts)}**${f.detail ? ` · ${escapeText(f.detail)}` : ''}`,
  );
  if (s.items) {
    if (s.items.length === 0) lines.push(`_${escapeText(s.empty ?? 'none')}_`);
    for (const item of s.items) lines.push(`• ${inlineText(item, opts)}`);
  }
  return lines;
}

/** Lines packed into as many fields as they need; a single overlong line is cut. */
export function linesToFields(name: string, lines: string[], inline = false): APIEmbedField[] {
  const fields: APIEmbedField[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length === 0) return;
    const fieldName = fields.length === 0 ? name : `${clip(name, LIMITS.fieldName - 12)} (continued)`;
    fields.push({ name: clip(fieldName, LIMITS.fieldName), value: current.join('\n'), inline });
    current = [];
    size = 0;
  };
  for (const raw of lines) {
    const line = clip(raw, LIMITS.fieldValue);
    if (size + line.length + (current.length ? 1 : 0) > LIMITS.fieldValue) flush();
    size += line.length + (current.length ? 1 : 0);
    current.push(line);
  }
  flush();
  return fields;
}

function sectionFields(sections: readonly Section[], opts: RenderOptions): APIEmbedField[] {
  return sections.flatMap((s) => {
    const lines = sectionLines(s, opts);
    if (lines.length === 0) return [];
    const name = escapeText(`${s.title}${s.direction ? ` (${s.direction})` : ''}`);
    // Small plain sections sit side by side; scored and listed ones get the full width.
    const inline = !s.direction && !s.items && lines.length <= 4;
    return linesToFields(name, lines, inline);
  });
}

function safeFilename(name: string): string {
  const base = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+/, '')
    .slice(0, 80);
  return /\.png$/i.test(base) ? base : `${base || 'chart'}.png`;
}

function imageParts(image: ReplyImage | undefined): { image?: APIEmbed['image']; files: FilePayload[] } {
  if (!image) return { files: [] };
  if (image.kind === 'png') {
    const name = safeFilename(image.filename);
    return {
      image: { url: `attachment://${name}` },
      files: [{ attachment: image.png, name, description: clip(plainText(image.alt), 1024) }],
    };
  }
  return /^https?:\/\//i.test(image.url) ? { image: { url: image.url }, files: [] } : { files: [] };
}

function embedSize(e: APIEmbed): number {
  return (
    (e.title?.length ?? 0) +
    (e.description?.length ?? 0) +
    (e.footer?.text.length ?? 0) +
    (e.author?.name.length ?? 0) +
    (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0)
  );
}

/** What stays of a footer squeezed for the embed's total: the as-of time and source fit in it. */
const FOOTER_KEEP = 200;

const FENCE = '\n```';

/**
 * Cuts a description to `max` with the truncation marker; a cut inside a code block (a table)
 * closes the block first, so the marker and anything after it do not render as code.
 */
function clipDescription(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n${TRUNCATED}`;
  // Cut with room for a closing fence, then see whether the kept text ends inside a block.
  const kept = clip(text, max - FENCE.length, marker).slice(0, -marker.length);
  return (kept.match(/```/g)?.length ?? 0) % 2 === 1 ? `${kept}${FENCE}${marker}` : clip(text, max, marker);
}

/**
 * Enforces every per-embed limit. Over the 6000 total, the description shrinks first, then
 * fields go from the end, replaced by one field that says how many were left out.
 */
export function fitEmbed(input: APIEmbed): APIEmbed {
  const e: APIEmbed = { ...input };
  if (e.title !== undefined) e.title = clip(e.title, LIMITS.title);
  if (e.description !== undefined) e.description = clipDescription(e.description, LIMITS.description);
  if (e.footer) e.footer = { ...e.footer, text: clip(e.footer.text, LIMITS.footer) };
  if (e.author) e.author = { ...e.author, name: clip(e.author.name, LIMITS.author) };
  let fields = (e.fields ?? []).map((f) => ({
    ...f,
    name: clip(f.name, LIMITS.fieldName) || '—',
    value: clip(f.value, LIMITS.fieldValue) || '—',
  }));
  let dropped = 0;
  const marker = () => ({
    name: 'Not shown',
    value: `… ${dropped} more field${dropped === 1 ? '' : 's'} (Discord's size limit)`,
    inline: false,
  });
  if (fields.length > LIMITS.fields) {
    dropped = fields.length - (LIMITS.fields - 1);
    fields = fields.slice(0, LIMITS.fields - 1);
  }
  const withMarker = () => (dropped ? [...fields, marker()] : fields);
  e.fields = withMarker();

  let over = embedSize(e) - LIMITS.embedTotal;
  // The footer (as-of time, source, notes) gives way first: a long one must not cost the answer.
  if (over > 0 && e.footer && e.footer.text.length > FOOTER_KEEP) {
    e.footer = { ...e.footer, text: clip(e.footer.text, Math.max(FOOTER_KEEP, e.footer.text.length - over)) };
    over = embedSize(e) - LIMITS.embedTotal;
  }
  if (over > 0 && e.description) {
    const keep = Math.max(0, e.description.length - over);
    e.description = keep > TRUNCATED.length + 1 ? clipDescription(e.description, keep) : undefined;
    over = embedSize(e) - LIMITS.embedTotal;
  }
  while (over > 0 && fields.length > 0) {
    fields.pop();
    dropped += 1;
    e.fields = withMarker();
    over = embedSize(e) - LIMITS.embedTotal;
  }
  if (over > 0 && e.title) e.title = clip(e.title, Math.max(1, e.title.length - over));
  if (e.fields.length === 0) delete e.fields;
  return e;
}

// ---------------------------------------------------------------------------------------------
// Components

function selectOptions(actions: readonly Action[], values: (a: Action, i: number) => string | null): APISelectMenuOption[] {
  const out: APISelectMenuOption[] = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    const value = values(a, i);
    if (value === null || !value.trim() || value.length > LIMITS.optionText || seen.has(value) || out.length >= LIMITS.selectOptions)
      return;
    seen.add(value);
    const label = clip(plainText(a.label), LIMITS.optionText) || value;
    const description = a.description ? clip(plainText(a.description), LIMITS.optionText) : undefined;
    out.push({ label, value, ...(description && description !== label ? { description } : {}) });
  });
  return out;
}

const MAX_ROWS = 5;

/**
 * Pick lists as string selects, one row each, leaving the last row to the table's own "Show one…".
 * A list longer than Discord's 25 options is not offered here (it would be cut): the `filters`
 * option's autocomplete reaches every value.
 */
function menuRows(menus: readonly Menu[], opts: RenderOptions): Row[] {
  const encode = opts.encode ?? defaultEncode;
  return (
    menus
      // A menu looked up as the person types has no options to send: the autocomplete of the
      // `filters` option is Discord's way to the same list.
      .filter((m) => m.options.length > 0 && m.options.length <= LIMITS.selectOptions)
      .flatMap((m, i) => {
        const options = selectOptions(m.options, (a) => encode(a.run) ?? null);
        // A menu missing an option (a command that would not encode) is not offered half.
        if (options.length !== m.options.length) return [];
        const marked = options.map((o, k) => (m.options[k]!.label === m.selected ? { ...o, default: true } : o));
        return [selectRow(`${RUN_ID}:menu-${i}`, clip(plainText(m.label), LIMITS.placeholder), marked)];
      })
      .slice(0, MAX_ROWS - 1)
  );
}

function selectRow(customId: string, placeholder: string, options: APISelectMenuOption[]): Row {
  return {
    type: ComponentType.ActionRow,
    components: [{ type: ComponentType.StringSelect, custom_id: customId, placeholder, min_values: 1, max_values: 1, options }],
  };
}

/** Follow-up commands as buttons; one whose command does not fit a custom id is left out. */
function actionButtons(actions: readonly Action[] | undefined, opts: RenderOptions): Row[] {
  const encode = opts.encode ?? defaultEncode;
  const buttons = (actions ?? [])
    .map((a) => ({ a, value: encode(a.run) }))
    .filter((b): b is { a: Action; value: string } => b.value !== undefined)
    .map(({ a, value }) => ({ a, id: `${RUN_ID}:${value}` }))
    // Discord refuses a message whose custom ids repeat: the same command is offered once.
    .filter(({ id }, i, all) => id.length <= LIMITS.customId && all.findIndex((o) => o.id === id) === i)
    .slice(0, LIMITS.buttonsPerRow * LIMITS.buttonRows)
    .map(({ a, id }) => ({
      type: ComponentType.Button as const,
      style: ButtonStyle.Secondary as const,
      custom_id: id,
      label: clip(plainText(a.label), LIMITS.buttonLabel) || 'More',
    }));
  const rows: Row[] = [];
  for (let i = 0; i < buttons.length; i += LIMITS.buttonsPerRow)
    rows.push({ type: ComponentType.ActionRow, components: buttons.slice(i, i + LIMITS.buttonsPerRow) });
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Replies

function message(parts: Partial<DiscordMessage>): DiscordMessage {
  const empty = !parts.content?.trim() && !parts.embeds?.length && !parts.components?.length && !parts.files?.length;
  return {
    // Discord refuses an empty message; a reply whose text was all invisible characters still answers.
    content: empty ? '—' : clip(parts.content ?? '', LIMITS.content, `\n${TRUNCATED}`),
    embeds: (parts.embeds ?? []).map(fitEmbed),
    components: parts.components ?? [],
    files: parts.files ?? [],
    allowedMentions: parts.allowedMentions ?? { parse: [] },
    private: parts.private ?? false,
    ...(parts.more?.length ? { more: parts.more } : {}),
  };
}

function footerParts(f: Footer | undefined): Pick<APIEmbed, 'footer' | 'timestamp'> {
  return f ? { footer: { text: footerText(f) }, timestamp: new Date(f.asOf).toISOString() } : {};
}

function cardMessage(reply: Extract<Reply, { kind: 'card' }>, opts: RenderOptions): DiscordMessage {
  const { image, files } = imageParts(reply.image);
  const embed: APIEmbed = {
    title: escapeText(reply.title),
    color: ratingColour(reply.headline.rating),
    ...(reply.subtitle ? { author: { name: plainText(reply.subtitle) } } : {}),
    fields: [headlineField(reply.headline), ...sectionFields(reply.sections, opts)],
    ...(image ? { image } : {}),
    ...footerParts(reply.footer),
  };
  const buttons = actionButtons(reply.actions, opts);
  // A card's menus follow its buttons: they finish a step (resolve, and why) rather than narrow a list.
  const components = [...buttons, ...menuRows(reply.menus ?? [], opts)].slice(0, MAX_ROWS);
  return message({ embeds: [embed], files, components });
}

/** A monospace table inside a code block, as many rows as fit, the rest counted. */
export function tableBlock(table: Pick<TableReply, 'columns' | 'rows'>, budget: number): string {
  const layout = layoutTable(table.columns, table.rows, codeText);
  const lines = [layout.header, layout.rule('-')];
  const fence = 8;
  let used = lines.join('\n').length + fence;
  let shown = 0;
  for (const line of layout.rows) {
    const more = `\n… ${table.rows.length - shown} more rows`;
    if (used + line.length + 1 + more.length > budget) break;
    lines.push(line);
    used += line.length + 1;
    shown += 1;
  }
  const rest = table.rows.length - shown;
  return `\`\`\`\n${lines.join('\n')}\n\`\`\`${rest > 0 ? `\n… ${rest} more row${rest === 1 ? '' : 's'}` : ''}`;
}

function tableMessage(reply: TableReply, opts: RenderOptions): DiscordMessage {
  const { image, files } = imageParts(reply.image);
  // The note introduces the table; a long one is cut so that the table itself always has room.
  const note = reply.note ? clip(inlineText(reply.note, opts), 1000) : '';
  const budget = LIMITS.description - (note ? note.length + 2 : 0) - 40;
  const options = selectOptions(reply.actions ?? [], (a) => (opts.encode ?? defaultEncode)(a.run) ?? null);
  const embed: APIEmbed = {
    title: escapeText(reply.title),
    color: COLOURS.neutral,
    description: [note, tableBlock(reply, budget)].filter(Boolean).join('\n\n'),
    ...(reply.sections?.length ? { fields: sectionFields(reply.sections, opts) } : {}),
    ...(image ? { image } : {}),
    ...footerParts(reply.footer),
  };
  const components = [...menuRows(reply.menus ?? [], opts), ...(options.length ? [selectRow(RUN_ID, 'Show one…', options)] : [])].slice(
    -MAX_ROWS,
  );
  const attached = reply.file
    ? [{ attachment: reply.file.bytes, name: reply.file.filename, description: clip(plainText(reply.file.title), 1024) }]
    : [];
  return message({ embeds: [embed], files: [...files, ...attached], components });
}

function textMessage(reply: Extract<Reply, { kind: 'text' }>, opts: RenderOptions): DiscordMessage {
  const roles = [
    ...new Set(
      groupsIn(reply.text)
        .filter(isRoleId)
        .map((g) => g.group),
    ),
  ];
  if (roles.length) return callingMessage(reply, roles, opts);
  const { image, files } = imageParts(reply.image);
  // An embed holds 6,000 characters: a list with digest and alert commands besides /pol's gives
  // each of those families a message of its own after the first.
  const commands = reply.commands ?? [];
  const own = commands.some((c) => !c.group) ? commands.filter((c) => !c.group) : commands;
  const families = [...new Set(commands.filter((c) => !own.includes(c)).map((c) => c.group!))];
  const more = families.map((family) =>
    message({
      embeds: [
        {
          title: `${family.charAt(0).toUpperCase()}${family.slice(1)} commands`,
          color: COLOURS.neutral,
          fields: commandFields(
            commands.filter((c) => c.group === family),
            opts,
            LIMITS.embedTotal - 100,
          ),
        },
      ],
    }),
  );
  const body: APIEmbed = {
    ...(reply.title ? { title: escapeText(reply.title) } : {}),
    color: COLOURS.neutral,
    ...(reply.text ? { description: inlineText(reply.text, opts) } : {}),
    fields: sectionFields(reply.sections ?? [], opts),
    ...(image ? { image } : {}),
    ...footerParts(reply.footer),
  };
  const embed: APIEmbed = {
    ...body,
    fields: [...body.fields!, ...commandFields(own, opts, LIMITS.embedTotal - embedSize(body))],
  };
  // An embed needs something in it; a bare text reply without a title still has its text.
  if (!embed.title && !embed.description && !embed.fields?.length && !embed.image) embed.description = '—';
  const components = [...actionButtons(reply.actions, opts), ...menuRows(reply.menus ?? [], opts)].slice(0, MAX_ROWS);
  return message({ embeds: [embed], files, ...(components.length ? { components } : {}), more });
}

/**
 * A text reply that calls on roles (an alert's escalation): its words go in the content, where a
 * role mention pings, and allowed_mentions lets those roles alone be pinged. Anything else it has
 * follows in an embed.
 */
function callingMessage(reply: Extract<Reply, { kind: 'text' }>, roles: string[], opts: RenderOptions): DiscordMessage {
  const { image, files } = imageParts(reply.image);
  const text = renderInline(reply.text!, escapeText, opts.mention ?? defaultMention, personMention, roleMention);
  const fields = [...sectionFields(reply.sections ?? [], opts), ...commandFields(reply.commands ?? [], opts, LIMITS.embedTotal - 2_000)];
  const rest = fields.length || image || reply.footer;
  const embed: APIEmbed = { color: COLOURS.neutral, fields, ...(image ? { image } : {}), ...footerParts(reply.footer) };
  return message({
    content: [...(reply.title ? [`**${escapeText(reply.title)}**`] : []), text].join('\n'),
    embeds: rest ? [embed] : [],
    files,
    allowedMentions: { parse: [], roles },
  });
}

function choiceMessage(reply: ChoiceReply, opts: RenderOptions): DiscordMessage {
  const lines = [inlineText(reply.prompt, opts)];
  if (reply.note) lines.push(inlineText(reply.note, opts));
  // Long commands (a compare of five names) stay on the adapter's side under a short key.
  const options = selectOptions(reply.options, (a) => (opts.encode ?? defaultEncode)(a.run) ?? null);
  const customId = CHOOSE_ID;
  const hidden = reply.options.length - options.length;
  if (hidden > 0) lines.push(`_${hidden} more not shown: type a more specific name._`);
  return message({
    content: lines.join('\n'),
    components: options.length ? [selectRow(customId.slice(0, LIMITS.customId), 'Choose one…', options)] : [],
    private: true,
  });
}

function errorMessage(reply: Extract<Reply, { kind: 'error' }>, opts: RenderOptions): DiscordMessage {
  const lines = [`⚠️ ${escapeText(reply.message)}`];
  if (reply.hint) lines.push(inlineText(reply.hint, opts));
  return message({ content: lines.join('\n'), private: true });
}

export function renderReply(reply: Reply, opts: RenderOptions = {}): DiscordMessage {
  switch (reply.kind) {
    case 'card':
      return withAudience(reply, cardMessage(reply, opts));
    case 'table':
      return withAudience(reply, tableMessage(reply, opts));
    case 'text':
      return withAudience(reply, textMessage(reply, opts));
    case 'choice':
      return withAudience(reply, choiceMessage(reply, opts));
    case 'error':
      return withAudience(reply, errorMessage(reply, opts));
  }
}

/** The reply says who sees it; an ephemeral flag follows from that alone. */
function withAudience(reply: Reply, msg: DiscordMessage): DiscordMessage {
  const own = isPrivate(reply);
  return { ...msg, private: own, ...(msg.more ? { more: msg.more.map((m) => ({ ...m, private: own })) } : {}) };
}

/**
 * Commands listed the Discord way: the command (a mention) with its options, and what it does,
 * with its examples. Discord counts every character of a message's embeds against one total: when
 * the list does not fit in `budget`, examples give way from the end of the list (the `/pol-digest`
 * and `/pol-alert` commands come last, and Discord's command picker shows their options), so that
 * no command and none of the text above the list is cut.
 */
function commandFields(commands: readonly CommandHelp[], opts: RenderOptions, budget: number): APIEmbedField[] {
  // A command with no place in Discord's list (the digest overview) is left out: nothing runs it there.
  const entries = commands.flatMap((c) => {
    const usage = opts.usage ? opts.usage(c) : defaultMention(c.usage);
    if (!usage) return [];
    const examples = opts.examples ? opts.examples(c) : `e.g. ${c.examples.map(defaultMention).join(' · ')}`;
    return [{ line: `${usage} — ${escapeText(c.summary)}`, examples }];
  });
  const fieldsOf = () =>
    linesToFields(
      'Commands',
      entries.map((e) => (e.examples ? `${e.line}\n${e.examples}` : e.line)),
    );
  let fields = fieldsOf();
  for (let i = entries.length - 1; i >= 0 && embedSize({ fields }) > budget; i--) {
    if (!entries[i]!.examples) continue;
    entries[i] = { ...entries[i]!, examples: '' };
    fields = fieldsOf();
  }
  return fields;
}

/** A short status line of ours (never upstream text), for an ephemeral confirmation. */
export function notice(text: string): DiscordMessage {
  return message({ content: text, private: true });
}
