import type { Message, User } from 'grammy/types';
import { formatPol } from '../../../src/charts/format.js';
import { polText } from '../truth.js';
import type { CommandRef, Reply } from '../../../src/reply/model.js';
import type { SimStore } from '../../../src/sim/data/store.js';
import { blockActionsBody, postToBolt, slashCommandBody } from '../../fakes/slack/index.js';
import type { RecordedCall as DiscordCall, InteractionHandle } from '../../fakes/discord/index.js';
import type { FakeMessage } from '../../fakes/telegram/index.js';
import { encodeInvocation } from '../../../adapters/discord/custom-id.js';
import { CHOOSE_ID, RUN_ID } from '../../../adapters/discord/embeds.js';
import { COMMANDS as REGISTERED } from '../../../commands/core/commands.js';
import { Registry } from '../../../commands/core/registry.js';
import { CHOICE_ACTION_PREFIX, FOLLOW_UP_ACTION_PREFIX } from '../../../adapters/slack/blocks.js';
import type { RecordedCall as SlackCall } from '../../fakes/slack/index.js';
import { slackText, visibleText } from '../core.js';
import {
  SIGNING_SECRET,
  SLACK_DIGEST_LIST_CHANNEL,
  SLACK_DIGEST_PREVIEW_CHANNEL,
  slackCaller,
  UPSTREAM_TIMEOUT_MS,
  type FaultStack,
  type TelegramWay,
} from './stack.js';

/**
 * What a person got, in a small vocabulary. The first four are answers; the rest are failures.
 *  ok        the normal answer, with the simulator's current values
 *  stale     data from before the fault, marked stale with a plausible age
 *  message   a clear error message with a hint what to do
 *  reported  /pol health saying the upstream is failing or unreachable
 *  crash     a generic "something went wrong": an exception got as far as the adapter
 *  hang      no acknowledgement within the platform's 3 s, no answer within ANSWER_BOUND_MS, or
 *            a Telegram button whose press was never answered (its spinner keeps turning)
 *  leak      a stack trace, a URL, a key or program internals in the text
 *  empty     an answer with nothing to read
 *  unclear   an error message without a hint what to do
 *  wrong     data that is not the simulator's, a missing or implausible stale marker, or a
 *            health report of "healthy" while the upstream is failing
 */
export type Cell = 'ok' | 'stale' | 'message' | 'reported' | 'crash' | 'hang' | 'leak' | 'empty' | 'unclear' | 'wrong';

/**
 * The command typed; carried by a button on one of polbot's messages (a card's follow-ups); or
 * picked from the list of candidates polbot offers for an ambiguous name (private in Slack and
 * Discord; in Telegram, in the person's private chat).
 */
export type Via =
  | 'core'
  | 'slack'
  | 'slack button'
  | 'slack choice'
  | 'discord'
  | 'discord button'
  | 'discord choice'
  | 'telegram'
  | 'telegram button'
  | 'telegram choice';

/** Slack and Discord both allow 3 s before an interaction must be acknowledged. */
export const ACK_DEADLINE_MS = 3_000;
/**
 * A command makes at most three upstream rounds one after another (resolve the name, fetch the
 * data, and a trial call when the circuit half-opens), each bounded by the upstream deadline; the
 * margin covers chart drawing and delivery on a busy machine.
 */
export const ANSWER_BOUND_MS = 3 * UPSTREAM_TIMEOUT_MS + 3_000;

export interface CommandSpec {
  /** Row name in the matrix. */
  id: string;
  /** The grammar text Slack and the core receive. */
  text(stack: FaultStack): string;
  /** The same command as Discord options. */
  discord(stack: FaultStack): { name: string; subcommand: string; options?: Record<string, string> };
  /** The text a Discord button carries, where it differs from `text` (digest ids are per platform). */
  discordText?(stack: FaultStack): string;
  /** Slack channel it must be asked in (digests belong to a channel); a fresh channel otherwise. */
  slackChannel?: string;
  /** The Telegram chat it must be asked in, and its text there; a new person's private chat otherwise. */
  telegram?(stack: FaultStack, way: TelegramWay): { user: User; text: string };
  /** Text that a data answer must contain, from the simulator's own store. */
  truth?(store: SimStore): string[];
  /**
   * Text that the chart's own description (its alt text) must contain. Slack and Discord carry it
   * with the image; a Telegram photo has none, so there the image must be there instead.
   */
  described?(store: SimStore): string[];
  /** The answer carries a chart image, whose description is part of what is checked. */
  chart?: boolean;
}

const name = (store: SimStore, kind: 'project' | 'exchange', slug: string) => store.entity(kind, slug)!.name;
const pol = (store: SimStore, kind: 'project' | 'exchange', slug: string) => polText(store.entity(kind, slug)!.pol.at(-1)!);

export const COMMANDS: readonly CommandSpec[] = [
  {
    id: 'project card',
    text: () => 'project aave',
    discord: () => ({ name: 'pol', subcommand: 'project', options: { name: 'aave' } }),
    truth: (s) => [name(s, 'project', 'aave'), pol(s, 'project', 'aave')],
  },
  {
    id: 'exchange card',
    text: () => 'exchange kraken',
    discord: () => ({ name: 'pol', subcommand: 'exchange', options: { name: 'kraken' } }),
    truth: (s) => [name(s, 'exchange', 'kraken'), pol(s, 'exchange', 'kraken')],
  },
  {
    id: 'chart',
    text: () => 'chart aave 30d',
    discord: () => ({ name: 'pol', subcommand: 'chart', options: { name: 'aave', range: '30d' } }),
    chart: true,
    truth: (s) => [`${name(s, 'project', 'aave')}: Probability of Loss`],
    // The chart's description states the first and last values it draws.
    described: (s) => {
      const [from, to] = s.windowIndices(30);
      const series = s.project('aave')!.pol.slice(from, to);
      return [`PoL of ${name(s, 'project', 'aave')} over 30 days: from ${formatPol(series[0]!)} to ${formatPol(series.at(-1)!)}`];
    },
  },
  {
    id: 'compare',
    text: () => 'compare aave, kraken',
    discord: () => ({ name: 'pol', subcommand: 'compare', options: { a: 'aave', b: 'kraken' } }),
    truth: (s) => [name(s, 'project', 'aave'), name(s, 'exchange', 'kraken'), pol(s, 'project', 'aave'), pol(s, 'exchange', 'kraken')],
  },
  {
    id: 'flags',
    text: () => 'flags aave',
    discord: () => ({ name: 'pol', subcommand: 'flags', options: { name: 'aave' } }),
    truth: (s) => [`${name(s, 'project', 'aave')}: red flags and signals`],
  },
  {
    id: 'top',
    text: () => 'top exchanges',
    discord: () => ({ name: 'pol', subcommand: 'top', options: { list: 'exchanges' } }),
    truth: (s) => {
      const safest = [...s.entities('exchange')].sort((a, b) => a.pol.at(-1)! - b.pol.at(-1)!)[0]!;
      return [safest.name, polText(safest.pol.at(-1)!)];
    },
  },
  {
    id: 'search',
    text: () => 'search swap',
    discord: () => ({ name: 'pol', subcommand: 'search', options: { text: 'swap' } }),
    truth: (s) => [...s.entities('project'), ...s.entities('exchange')].filter((e) => /swap/i.test(e.name)).map((e) => e.name),
  },
  {
    id: 'trending',
    text: () => 'trending',
    discord: () => ({ name: 'pol', subcommand: 'trending' }),
    truth: (s) => [name(s, 'project', s.data.trending.projects[0]!), name(s, 'exchange', s.data.trending.exchanges[0]!)],
  },
  {
    id: 'index',
    text: () => 'index',
    discord: () => ({ name: 'pol', subcommand: 'index' }),
    truth: (s) => [polText(s.indexPol('project').at(-1)!)],
  },
  { id: 'health', text: () => 'health', discord: () => ({ name: 'pol', subcommand: 'health' }) },
  {
    id: 'help',
    text: () => 'help',
    discord: () => ({ name: 'pol', subcommand: 'help' }),
    truth: () => ['Up to 5 projects or exchanges side by side'],
  },
  {
    id: 'digest list',
    text: () => 'digest list',
    discord: () => ({ name: 'pol-digest', subcommand: 'list' }),
    slackChannel: SLACK_DIGEST_LIST_CHANNEL,
    telegram: (stack, way) => ({ user: stack.telegramDigests.list[way].user, text: 'digest list' }),
    truth: (s) => [`${name(s, 'project', 'aave')}, ${name(s, 'exchange', 'kraken')}`],
  },
  {
    id: 'digest preview',
    text: (stack) => `digest preview ${stack.digestIds.slackPreview}`,
    discord: (stack) => ({ name: 'pol-digest', subcommand: 'preview', options: { id: String(stack.digestIds.discord) } }),
    discordText: (stack) => `digest preview ${stack.digestIds.discord}`,
    slackChannel: SLACK_DIGEST_PREVIEW_CHANNEL,
    telegram: (stack, way) => {
      const { user, id } = stack.telegramDigests.preview[way];
      return { user, text: `digest preview ${id}` };
    },
    truth: (s) => [name(s, 'project', 'aave'), name(s, 'exchange', 'kraken'), pol(s, 'project', 'aave'), pol(s, 'exchange', 'kraken')],
  },
  {
    // Every name is resolved when the digest is added, so adding one needs the upstream's lists.
    id: 'digest add',
    text: () => 'digest add aave, kraken weekdays at 08:00 tz Europe/Berlin',
    discord: () => ({
      name: 'pol-digest',
      subcommand: 'add',
      options: { names: 'aave, kraken', schedule: 'weekdays', at: '08:00', tz: 'Europe/Berlin' },
    }),
    truth: (s) => [name(s, 'project', 'aave'), name(s, 'exchange', 'kraken'), 'Europe/Berlin'],
  },
];

/** What a person saw, reduced to what the classification needs. */
export interface Answer {
  /** Rendered as an error message (Slack: a :warning: section; Discord: ⚠️ text with no embed). */
  error: boolean;
  /** The text that is read: the error message and hint, or the whole answer. */
  lines: string[];
  /** Everything else the person was shown (fallback texts, later notices, chart descriptions). */
  alsoShown: string[];
  /** The stale marker's age as shown ("3 s"), or for the core the age in milliseconds. */
  staleShown?: string;
  staleAgeMs?: number;
  /** The chart came as an image the platform gives no description (a Telegram photo): its bytes arrived, its values cannot be read. */
  undescribedChart?: boolean;
  /** Epoch ms when the answer arrived. */
  at: number;
}

export type Attempt = { answer: Answer } | { hang: string };

/** What an answer must say, and what its chart's description must say, per command. */
export interface Expected {
  shown: string[];
  described: string[];
}

export interface Truth {
  /** The store's values now. */
  current: Map<string, Expected>;
  /** The store's values when the cache was warmed, and when warming started. */
  warm?: { values: Map<string, Expected>; startedAt: number };
}

export function truthOf(store: SimStore): Map<string, Expected> {
  return new Map(COMMANDS.filter((c) => c.truth).map((c) => [c.id, { shown: c.truth!(store), described: c.described?.(store) ?? [] }]));
}

const CRASH = /something went wrong|couldn't post the answer|could not be attached|no longer works|has expired/i;
// A frame is `at name (file:line:col)`; "weekdays at 08:00 (Europe/Berlin)" is not one.
const STACK = /\n\s*at\s|\bat\s+\S+\s+\([^)]*:\d+:\d+\)|\b[A-Z][A-Za-z]*Error\b|\.(?:ts|js|mjs):\d+|node:internal/;
// The link command's help shows links to public sites as examples (what it reads a link for);
// any other URL in an answer is the upstream's or the machine's, leaking.
const URL = /https?:\/\/(?!(?:www\.coingecko\.com|example\.com)\/)|\blocalhost\b|\b\d{1,3}(?:\.\d{1,3}){3}\b/i;
// A Telegram bot token is `<bot id>:<35 characters>`.
const SECRET = /\bsvc_[A-Za-z0-9_-]+|\bxox[abpe]-|\bxapp-|\bBot\s+[A-Za-z0-9._-]{20,}|\b\d{8,10}:[A-Za-z0-9_-]{30,}/;
const INTERNALS = /\bundefined\b|\[object Object\]|\bNaN\b/;
const MAX_MESSAGE_CHARS = 400;
/** A hint names something the person can do. */
const ACTIONABLE = /\b(try|check|wait|ask|use|run|pick|type|see)\b/i;
const STALE_MARK = /stale \((\d+) (s|min|h|d) old\)/;

const UNIT_MS: Record<string, number> = { s: 1_000, min: 60_000, h: 3_600_000, d: 86_400_000 };

export interface Observed {
  cell: Cell;
  /** Why a cell is what it is, for the report of a failing cell. */
  why?: string;
}

export function classify(spec: CommandSpec, attempt: Attempt, truth: Truth): Observed {
  if ('hang' in attempt) return { cell: 'hang', why: attempt.hang };
  const a = attempt.answer;
  const text = a.lines.join('\n');
  const shown = [...a.lines, ...a.alsoShown].join('\n');
  if (CRASH.test(shown)) return { cell: 'crash', why: excerpt(shown, CRASH) };
  for (const [what, pattern] of [
    ['stack trace', STACK],
    ['URL', URL],
    ['secret', SECRET],
    ['internals', INTERNALS],
  ] as const) {
    if (pattern.test(shown)) return { cell: 'leak', why: `${what}: ${excerpt(shown, pattern)}` };
  }
  if (!text.replace(/[—\s]/g, '')) return { cell: 'empty', why: 'no visible text' };
  if (a.error) {
    const [message = '', ...hints] = a.lines
      .join('\n')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    if (message.length < 10) return { cell: 'empty', why: `error message too short: ${JSON.stringify(message)}` };
    // A message is read at a glance in a chat window; a wall of text is not clear.
    if (text.length > MAX_MESSAGE_CHARS)
      return { cell: 'unclear', why: `${text.length} characters: ${JSON.stringify(text.slice(0, 200))}` };
    if (!hints.some((h) => ACTIONABLE.test(h)))
      return { cell: 'unclear', why: `no hint what to do: ${JSON.stringify(text.slice(0, 200))}` };
    return { cell: 'message' };
  }
  const stale = a.staleShown !== undefined || a.staleAgeMs !== undefined;
  if (spec.id === 'health') {
    if (/not reachable|has problems|answers through the/i.test(text)) return { cell: 'reported' };
    if (/is healthy/i.test(text)) return stale ? { cell: 'wrong', why: 'says healthy from stale data' } : { cell: 'ok' };
    return { cell: 'wrong', why: `unrecognised health answer: ${text.slice(0, 200)}` };
  }
  const expected = stale ? truth.warm?.values.get(spec.id) : truth.current.get(spec.id);
  if (stale && !truth.warm)
    return { cell: 'wrong', why: `marked stale (${a.staleShown ?? `${a.staleAgeMs} ms`} old) where only fresh data can be` };
  const wanted = expected ? [...expected.shown, ...(a.undescribedChart ? [] : expected.described)] : [];
  const missing = wanted.filter((t) => !shown.includes(t));
  if (missing.length)
    return { cell: 'wrong', why: `${stale ? 'stale' : 'fresh'} answer lacks ${JSON.stringify(missing)}: ${text.slice(0, 300)}` };
  if (!stale) return { cell: 'ok' };
  // The data was fetched while warming, so it cannot be older than the time since warming started.
  const ageMs = a.staleAgeMs ?? parseAge(a.staleShown!);
  const oldest = a.at - truth.warm!.startedAt;
  const slack = a.staleAgeMs !== undefined ? 0 : UNIT_MS[/(s|min|h|d)$/.exec(a.staleShown!)?.[1] ?? 's']!;
  if (!(ageMs >= 0 && ageMs <= oldest + slack))
    return { cell: 'wrong', why: `stale age ${a.staleShown ?? `${ageMs} ms`} but the data is at most ${oldest} ms old` };
  return { cell: 'stale' };
}

function parseAge(shown: string): number {
  const m = /^(\d+) (s|min|h|d)$/.exec(shown);
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : Number.NaN;
}

function excerpt(text: string, pattern: RegExp): string {
  const at = text.search(pattern);
  return JSON.stringify(text.slice(Math.max(0, at - 60), at + 80));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `find` until it returns something or the deadline passes; the fakes record, they do not notify. */
async function poll<T>(find: () => T | undefined, deadline: number, everyMs = 20): Promise<T | undefined> {
  for (;;) {
    const found = find();
    if (found !== undefined || Date.now() >= deadline) return found;
    await sleep(everyMs);
  }
}

// ---- the core ----------------------------------------------------------------------------------

export async function viaCore(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  const caller = slackCaller(spec.slackChannel ?? 'CCOREONLY1');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(resolve, ANSWER_BOUND_MS, 'late');
  });
  const result = await Promise.race([stack.core.run(spec.text(stack), caller), late]);
  clearTimeout(timer);
  if (result === 'late') return { hang: `the core gave no reply within ${ANSWER_BOUND_MS} ms` };
  return { answer: coreAnswer(result.reply) };
}

function coreAnswer(reply: Reply): Answer {
  const footer = 'footer' in reply ? reply.footer : undefined;
  const lines = reply.kind === 'error' ? [reply.message, ...(reply.hint ? [slackText(reply.hint)] : [])] : visibleText(reply).split('\n');
  return {
    error: reply.kind === 'error',
    lines,
    alsoShown: [],
    ...(footer?.stale ? { staleAgeMs: footer.stale.ageMs } : {}),
    at: Date.now(),
  };
}

// ---- Slack ------------------------------------------------------------------------------------

let slackSequence = 0;

/** Texts a person reads in a Slack message: the fallback text and every text object of the blocks. */
function slackLines(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof args.text === 'string') out.push(args.text);
  const blocks = typeof args.blocks === 'string' ? (JSON.parse(args.blocks) as unknown) : args.blocks;
  const walk = (v: unknown, key?: string): void => {
    if (typeof v === 'string') {
      if (key === 'text' || key === 'alt_text') out.push(v);
    } else if (Array.isArray(v)) v.forEach((x) => walk(x));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(blocks);
  return out;
}

function slackAnswer(call: SlackCall): Answer {
  const lines = slackLines(call.args);
  const blocks =
    typeof call.args.blocks === 'string' ? (JSON.parse(call.args.blocks) as unknown[]) : ((call.args.blocks ?? []) as unknown[]);
  const first = blocks[0] as { type?: string; text?: { text?: string } } | undefined;
  const error = blocks.length === 1 && first?.type === 'section' && /^:warning: /.test(first.text?.text ?? '');
  const stale = STALE_MARK.exec(lines.join('\n'));
  return {
    error,
    // The :warning: prefix is decoration; the message and hint are what is read.
    lines: error ? [(first!.text!.text ?? '').replace(/^:warning: /, '')] : lines,
    alsoShown: error ? lines : [],
    ...(stale ? { staleShown: `${stale[1]} ${stale[2]}` } : {}),
    at: call.at.getTime(),
  };
}

/** The description of the chart file shared into a channel (uploaded in three steps, after the message). */
function slackChartDescription(stack: FaultStack, channel: string, since: number): string | undefined {
  const completed = stack.slackFake
    .calls('files.completeUploadExternal')
    .find((c) => c.args.channel_id === channel && c.at.getTime() >= since);
  if (!completed) return undefined;
  const files = (typeof completed.args.files === 'string' ? JSON.parse(completed.args.files) : completed.args.files) as { id: string }[];
  const ids = new Set(files.map((f) => f.id));
  const issued = stack.slackFake
    .calls('files.getUploadURLExternal')
    .find((c) => ids.has(String((c.response as { file_id?: unknown })?.file_id)));
  return typeof issued?.args.alt_text === 'string' ? issued.args.alt_text : undefined;
}

/**
 * A signed slash command as Slack delivers it, then the answer wherever the adapter put it: a
 * message in the channel (cards, tables) or a private reply on the response_url (errors, help,
 * health), skipping the "Looking up…" placeholder.
 */
export function viaSlack(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  return slackAttempt(stack, spec, (channel, responseUrl) =>
    slashCommandBody({ command: '/pol', text: spec.text(stack), channel_id: channel, response_url: responseUrl }),
  );
}

/**
 * The same command as a click on a button of one of polbot's messages in the channel, as a card's
 * follow-ups are: answered in that message's thread, or privately on the response_url.
 */
export function viaSlackButton(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  return slackClick(stack, spec, `${FOLLOW_UP_ACTION_PREFIX}0`, false);
}

/**
 * The same command picked from the private list of candidates for an ambiguous name: the choice
 * turns into "Looking up…" while it runs, and the answer replaces it or goes to the channel.
 */
export function viaSlackChoice(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  return slackClick(stack, spec, `${CHOICE_ACTION_PREFIX}0`, true);
}

/** A click on a button carrying the command, on a message in the channel or on a private one. */
function slackClick(stack: FaultStack, spec: CommandSpec, actionId: string, ephemeral: boolean): Promise<Attempt> {
  return slackAttempt(stack, spec, (channel, responseUrl, n) => {
    const messageTs = `${Math.floor(Date.now() / 1000)}.${String(n).padStart(6, '0')}`;
    return blockActionsBody({
      actions: [{ action_id: actionId, value: spec.text(stack), type: 'button' }],
      channel,
      response_url: responseUrl,
      container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: ephemeral },
      // Only a message in the channel comes with the message itself; an ephemeral one does not.
      ...(ephemeral ? {} : { message: { ts: messageTs, text: 'card' } }),
    });
  });
}

async function slackAttempt(
  stack: FaultStack,
  spec: CommandSpec,
  bodyFor: (channel: string, responseUrl: string, n: number) => string,
): Promise<Attempt> {
  const n = ++slackSequence;
  const channel = spec.slackChannel ?? `CFAULT${String(n).padStart(5, '0')}`;
  const responseId = `fault-${n}`;
  const sentAt = Date.now();
  const ack = await postToBolt(stack.slackEndpoint, bodyFor(channel, stack.slackFake.responseUrl(responseId), n), SIGNING_SECRET);
  if (ack.status !== 200 || ack.elapsedMs > ACK_DEADLINE_MS)
    return { hang: `acknowledged with ${ack.status} after ${Math.round(ack.elapsedMs)} ms` };
  const deadline = sentAt + ANSWER_BOUND_MS;
  const call = await poll(() => {
    const posted = stack.slackFake.calls('chat.postMessage').find((c) => c.args.channel === channel && c.at.getTime() >= sentAt);
    if (posted) return posted;
    return stack.slackFake
      .calls('response_url')
      .find(
        (c) => c.id === responseId && c.args.response_type === 'ephemeral' && !/Looking up|Working on it/.test(String(c.args.text ?? '')),
      );
  }, deadline);
  if (!call) return { hang: `no answer within ${ANSWER_BOUND_MS} ms` };
  const answer = slackAnswer(call);
  const description =
    spec.chart && call.method === 'chat.postMessage'
      ? await poll(() => slackChartDescription(stack, channel, sentAt), deadline)
      : undefined;
  // A notice after the answer (a chart that could not be attached) is part of what the person saw.
  const notices = stack.slackFake
    .calls('response_url')
    .filter((c) => c.id === responseId && c !== call && !/Looking up|Working on it/.test(String(c.args.text ?? '')));
  return {
    answer: {
      ...answer,
      alsoShown: [...answer.alsoShown, ...(description ? [description] : []), ...notices.flatMap((c) => slackLines(c.args))],
    },
  };
}

// ---- Discord ----------------------------------------------------------------------------------

interface DiscordBody {
  content?: string;
  attachments?: { description?: string }[];
  embeds?: {
    title?: string;
    description?: string;
    author?: { name?: string };
    fields?: { name: string; value: string }[];
    footer?: { text?: string };
  }[];
}

function discordAnswer(body: DiscordBody, at: number): Answer {
  const lines: string[] = [];
  if (body.content) lines.push(body.content);
  for (const e of body.embeds ?? []) {
    for (const t of [e.author?.name, e.title, e.description, ...(e.fields ?? []).flatMap((f) => [f.name, f.value]), e.footer?.text])
      if (t) lines.push(t);
  }
  const error = !(body.embeds ?? []).length && /^⚠️ /.test(body.content ?? '');
  const stale = STALE_MARK.exec(lines.join('\n'));
  return {
    error,
    lines: error ? [body.content!.replace(/^⚠️ /, '')] : lines,
    alsoShown: (body.attachments ?? []).flatMap((a) => (a.description ? [a.description] : [])),
    ...(stale ? { staleShown: `${stale[1]} ${stale[2]}` } : {}),
    at,
  };
}

/** Manage Server, which /pol-digest requires by default, on top of an ordinary member's permissions. */
const MEMBER_PERMISSIONS = ((1n << 5n) | (1n << 10n) | (1n << 11n) | (1n << 31n)).toString();

/**
 * An interaction through the fake gateway, then its answer: the edit of the deferred reply, or the
 * private follow-up that replaces a public deferral when the answer turns out to be an error.
 */
export function viaDiscord(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  const { name, subcommand, options } = spec.discord(stack);
  return discordAttempt(() =>
    stack.discordFake.sendCommand({
      name,
      subcommand,
      ...(options ? { options } : {}),
      channelId: stack.discordChannel,
      memberPermissions: MEMBER_PERMISSIONS,
    }),
  );
}

const registry = new Registry(REGISTERED);

/** A command as polbot's own buttons and menus carry it: the invocation, encoded. */
function componentValue(text: string): string {
  const parsed = registry.grammar.parse(text);
  if (!parsed.ok) throw new Error(`not a command: ${text}`);
  return encodeInvocation(parsed.invocation as CommandRef);
}

/** The same command as a button of one of polbot's messages, which carries the command itself. */
export function viaDiscordButton(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  return discordAttempt(() =>
    stack.discordFake.sendComponent({
      custom_id: `${RUN_ID}:${componentValue((spec.discordText ?? spec.text)(stack))}`,
      component_type: 2,
      channelId: stack.discordChannel,
      memberPermissions: MEMBER_PERMISSIONS,
    }),
  );
}

/**
 * The same command picked from the menu of candidates for an ambiguous name: the menu becomes
 * "Looking up…", then the answer follows in the channel, or an error replaces the menu.
 */
export function viaDiscordChoice(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  return discordAttempt(() =>
    stack.discordFake.sendComponent({
      custom_id: CHOOSE_ID,
      component_type: 3,
      values: [componentValue((spec.discordText ?? spec.text)(stack))],
      channelId: stack.discordChannel,
      memberPermissions: MEMBER_PERMISSIONS,
    }),
  );
}

async function discordAttempt(send: () => InteractionHandle): Promise<Attempt> {
  const sentAt = Date.now();
  const handle = send();
  let callback: Awaited<ReturnType<InteractionHandle['callback']>>;
  try {
    callback = await handle.callback(ACK_DEADLINE_MS + 500);
  } catch {
    return { hang: `no accepted deferral within ${ACK_DEADLINE_MS} ms` };
  }
  const deferredMs = callback.call.at - sentAt;
  if (deferredMs > ACK_DEADLINE_MS) return { hang: `deferred after ${deferredMs} ms` };
  if (callback.type === 4) return { answer: discordAnswer(callback.data as DiscordBody, callback.call.at) };
  const found = await poll((): DiscordCall | undefined => handle.followups()[0] ?? handle.originalEdits()[0], sentAt + ANSWER_BOUND_MS);
  if (!found) return { hang: `no answer within ${ANSWER_BOUND_MS} ms` };
  const answer = discordAnswer(found.body as DiscordBody, found.at);
  // A failure notice sent after the answer is part of what the person saw.
  const later = [...handle.followups(), ...handle.originalEdits()].filter((c) => c !== found);
  return {
    answer: { ...answer, alsoShown: [...answer.alsoShown, ...later.flatMap((c) => discordAnswer(c.body as DiscordBody, c.at).lines)] },
  };
}

// ---- Telegram ---------------------------------------------------------------------------------

/**
 * Telegram has no acknowledgement deadline for a message; a press's spinner runs until the bot
 * answers the callback, which Telegram accepts for about 15 s. What a person gets is what the
 * chat holds: polbot's messages (a photo's caption, or a photo and then the text) and edits, and
 * the words of a callback's answer.
 */

/** What polbot holds in a chat now: each of its messages with how often it was edited. */
const telegramVersions = (stack: FaultStack, chatId: number) =>
  new Map(stack.telegramFake.messages(chatId).map((m) => [m.messageId, m.versions.length]));

/** polbot's messages in the chat that are new or edited since `before`, in order. */
function telegramChanged(stack: FaultStack, chatId: number, before: Map<number, number>): FakeMessage[] {
  return stack.telegramFake
    .messages(chatId)
    .filter((m) => m.sender === 'bot' && !m.deleted && (before.get(m.messageId) ?? -1) < m.versions.length);
}

const telegramWords = (m: FakeMessage): string => {
  const message = m.message as Message;
  return message.text ?? message.caption ?? '';
};

/**
 * Where a cell asks: the chat its command belongs to, or else a new person's private chat, as
 * polbot sends at most one message a second into a chat and cells sharing one would queue.
 */
let telegramPeople = 0;
function telegramPlace(stack: FaultStack, spec: CommandSpec, way: TelegramWay): { user: User; text: string } {
  return (
    spec.telegram?.(stack, way) ?? { user: stack.telegramFake.addUser({ first_name: `Cell ${++telegramPeople}` }), text: spec.text(stack) }
  );
}

/**
 * `/pol <command>` in the person's private chat; the answer replies to it (a photo's text
 * replies to the photo).
 */
export async function viaTelegram(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  const { user, text } = telegramPlace(stack, spec, 'typed');
  const before = telegramVersions(stack, user.id);
  const sentAt = Date.now();
  stack.telegramFake.say({ chatId: user.id, from: user, text: `/pol ${text}` });
  return telegramAttempt(stack, spec, user.id, before, sentAt);
}

/** The same command as a button of one of polbot's messages (a card's follow-up): its answer is a new message. */
export function viaTelegramButton(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  return telegramPress(stack, spec, 'button', 'A card, with what to look at next:', { label: 'Next', replace: false });
}

/**
 * The same command picked from the candidates polbot offered for an ambiguous name: the answer
 * replaces the question in place, or, with a chart, the question goes and the answer follows.
 */
export function viaTelegramChoice(stack: FaultStack, spec: CommandSpec): Promise<Attempt> {
  return telegramPress(stack, spec, 'choice', 'Which one do you mean?', { label: 'The one', replace: true });
}

async function telegramPress(
  stack: FaultStack,
  spec: CommandSpec,
  way: TelegramWay,
  words: string,
  button: { label: string; replace: boolean },
): Promise<Attempt> {
  const { user, text } = telegramPlace(stack, spec, way);
  // The button as polbot makes it (a long command parked in the database under a key).
  const markup = (await stack.telegram.adapter.keyboards.markup([[{ ...button, run: text }]]))!;
  const data = (markup.inline_keyboard[0]![0] as { callback_data: string }).callback_data;
  const carrier = await stack.telegramApi.sendMessage(user.id, words, { reply_markup: markup });
  const before = telegramVersions(stack, user.id);
  const sentAt = Date.now();
  const { query } = stack.telegramFake.pressButton({ chatId: user.id, messageId: carrier.message_id, from: user, data });
  return telegramAttempt(stack, spec, user.id, before, sentAt, query.id);
}

async function telegramAttempt(
  stack: FaultStack,
  spec: CommandSpec,
  chatId: number,
  before: Map<number, number>,
  sentAt: number,
  queryId?: string,
): Promise<Attempt> {
  const fake = stack.telegramFake;
  const deadline = sentAt + ANSWER_BOUND_MS;
  const said = () => fake.callbackAnswers().find((a) => a.queryId === queryId);
  const first = await poll(() => (telegramChanged(stack, chatId, before).length > 0 || said()?.text ? Date.now() : undefined), deadline);
  if (first === undefined) return { hang: `no answer within ${ANSWER_BOUND_MS} ms` };
  // The first message may be followed by more (a photo's text, a long answer's next part, paced a
  // second apart in a chat): the answer is whole once the adapter has finished what it was doing.
  const done = await Promise.race([
    stack.telegram.adapter.drain().then(() => true),
    sleep(Math.max(0, deadline + ANSWER_BOUND_MS - Date.now())).then(() => false),
  ]);
  if (!done) return { hang: `the answer was still being sent ${Date.now() - sentAt} ms after the command` };
  if (queryId !== undefined && !said()) return { hang: 'the button was never answered: its spinner kept turning' };
  const messages = telegramChanged(stack, chatId, before);
  const callback = said()?.text;
  const texts = messages.map(telegramWords);
  const photos = messages.flatMap((m) => (m.message as Message).photo ?? []);
  const png = photos.some((p) => fake.fileBytes(p.file_id)?.subarray(0, 8).toString('hex') === '89504e470d0a1a0a');
  // polbot's error is one message, `⚠️ ` and the message, then its hint; a refused press may say it in a pop-up instead.
  const lone = messages.length === 1 && photos.length === 0 ? texts[0]! : messages.length === 0 ? (callback ?? '') : undefined;
  const error = lone !== undefined && (/^⚠️ /.test(lone) || messages.length === 0);
  const stale = STALE_MARK.exec(texts.join('\n'));
  return {
    answer: {
      error,
      lines: error ? [lone!.replace(/^⚠️ /, '')] : texts,
      alsoShown: messages.length > 0 && callback ? [callback] : [],
      ...(stale ? { staleShown: `${stale[1]} ${stale[2]}` } : {}),
      ...(spec.chart && png ? { undescribedChart: true } : {}),
      at: first,
    },
  };
}
