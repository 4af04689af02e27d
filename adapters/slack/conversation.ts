import type { App, webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { Caller, RunResult } from '../../commands/core/index.js';
import { understand } from '../../src/intents/understand.js';
import type { Logger } from '../../src/log.js';
import { renderReply } from './blocks.js';
import { placementOf, postAsOneMessage, slackErrorCode } from './delivery.js';
import { somethingWentWrong } from './notices.js';

/**
 * polbot where people talk to it rather than type a command: a mention in a channel or thread
 * (`app_mention`), a message in its DM (`message.im`), and Slack's agent surface in that DM (the
 * assistant container: suggested prompts when it opens, a status line while an answer is on its
 * way, the thread titled from the question). What they write goes through the core's `converse`:
 * plain words, or anything the slash grammar takes. Where the workspace has no agent features the
 * DM is a plain DM and the agent calls are skipped or, when Slack refuses them, let go.
 */

export interface ConversationOptions {
  converse(text: string, caller: Caller): Promise<RunResult>;
  callerOf(userId: string, channelId: string, who: { userName?: string; teamId?: string; enterpriseId?: string | null }): Caller;
  /** What a workspace's people look up most, most first: the suggested prompts' names. */
  mostAsked?(teamId: string, limit: number): Promise<string[]>;
  log: Logger;
  track<T>(work: Promise<T>): Promise<T>;
  myTurn(): Promise<void>;
}

/** Four prompts when nothing is known of what a workspace asks; each is a question polbot understands. */
export const DEFAULT_PROMPTS: readonly string[] = [
  'Is Binance safe?',
  'Compare Binance and Kraken',
  'Any red flags on Uniswap?',
  'Top exchanges',
];

/** Slack shows at most four suggested prompts. */
const PROMPTS = 4;
/** Threads already titled, so the title stays the first question's. */
const TITLED = 10_000;

interface Said {
  text: string;
  user: string;
  channel: string;
  /** The thread to answer in, if any; a top-level DM is answered top-level. */
  threadTs?: string;
  teamId?: string;
  enterpriseId?: string | null;
  /** A DM: everything is between polbot and the person, so nothing needs to be ephemeral. */
  direct: boolean;
}

/** The bot's own mention, wherever it is in the text (`<@U0BOT>` or `<@U0BOT|polbot>`). */
const withoutMention = (text: string, botUserId: string | undefined): string =>
  (botUserId ? text.replace(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g'), ' ') : text).replace(/\s+/g, ' ').trim();

/** What the status line says while an answer is on its way: the name asked about, when one was. */
export function statusFor(text: string): string {
  const args = understand(text)?.command.args;
  const names = [args?.name, ...(Array.isArray(args?.names) ? (args.names as string[]) : [])].filter(
    (n): n is string => typeof n === 'string' && n.length > 0,
  );
  if (!names.length) return 'is looking it up…';
  const titled = names.map((n) => n.replace(/\b\p{L}/gu, (c) => c.toUpperCase()));
  return `is looking up ${titled.join(' and ')}…`.slice(0, 100);
}

/** Prompts from the names a workspace asks about most, the defaults filling what is missing. */
export function promptsFor(names: readonly string[]): { title: string; message: string }[] {
  const [a, b, c] = names;
  const drawn = [
    ...(a ? [`Is ${a} safe?`] : []),
    ...(a && b ? [`Compare ${a} and ${b}`] : []),
    ...(c ? [`Why is ${c} so risky?`] : b ? [`Why is ${b} so risky?`] : []),
  ];
  const prompts = [...drawn, ...DEFAULT_PROMPTS.filter((d) => !drawn.some((p) => p.split(' ')[0] === d.split(' ')[0]))].slice(0, PROMPTS);
  return prompts.map((p) => ({ title: p, message: p }));
}

export function registerConversation(app: App, o: ConversationOptions): void {
  const titled = new LRUCache<string, true>({ max: TITLED });

  app.event('app_mention', async ({ event, body, client, context }) => {
    // Slack sends a mention by another app or a bot too; polbot answers people.
    if ((event as { bot_id?: string }).bot_id || event.subtype || !event.user || event.user === context.botUserId) return;
    await o.track(
      answer(client, context.botUserId, {
        text: event.text,
        user: event.user,
        channel: event.channel,
        // In a thread, answered in it; at the channel's top level, in a thread under the question.
        threadTs: event.thread_ts ?? event.ts,
        ...(body.team_id ? { teamId: body.team_id } : {}),
        enterpriseId: body.enterprise_id ?? null,
        direct: false,
      }),
    );
  });

  app.event('message', async ({ event, body, client, context }) => {
    const m = event as {
      channel_type?: string;
      subtype?: string;
      bot_id?: string;
      user?: string;
      text?: string;
      channel: string;
      ts: string;
      thread_ts?: string;
    };
    // The DM alone: channel messages reach polbot only as mentions. Edits, deletions, joins, its
    // own messages and other bots' are not questions.
    if (m.channel_type !== 'im' || m.subtype !== undefined || m.bot_id || !m.user || m.user === context.botUserId || !m.text?.trim())
      return;
    await o.track(
      answer(client, context.botUserId, {
        text: m.text,
        user: m.user,
        channel: m.channel,
        ...(m.thread_ts ? { threadTs: m.thread_ts } : {}),
        ...(body.team_id ? { teamId: body.team_id } : {}),
        enterpriseId: body.enterprise_id ?? null,
        direct: true,
      }),
    );
  });

  app.event('assistant_thread_started', async ({ event, body, client }) => {
    const thread = (event as { assistant_thread?: { channel_id?: string; thread_ts?: string } }).assistant_thread;
    if (!thread?.channel_id || !thread.thread_ts) return;
    const names = body.team_id && o.mostAsked ? await o.mostAsked(body.team_id, 3).catch(() => []) : [];
    await client.assistant.threads
      .setSuggestedPrompts({
        channel_id: thread.channel_id,
        thread_ts: thread.thread_ts,
        title: 'Ask about any project or exchange',
        prompts: promptsFor(names) as [{ title: string; message: string }],
      })
      .catch((err: unknown) => o.log.warn({ code: slackErrorCode(err) }, 'slack: suggested prompts not set'));
  });

  async function answer(client: webApi.WebClient, botUserId: string | undefined, said: Said): Promise<void> {
    const text = withoutMention(said.text, botUserId);
    const { log } = o;
    // In a DM thread (the agent surface's, where the workspace has it): a status line meanwhile,
    // and the thread named after its first question. Slack refuses both outside an agent thread:
    // that costs nothing but the call.
    const agentThread = said.direct && said.threadTs !== undefined;
    if (agentThread) {
      const where = { channel_id: said.channel, thread_ts: said.threadTs! };
      void client.assistant.threads
        .setStatus({ ...where, status: statusFor(text) })
        .catch((err: unknown) => log.debug({ code: slackErrorCode(err) }, 'slack: no status line (not an agent thread)'));
      const key = `${said.channel}:${said.threadTs}`;
      if (!titled.has(key)) {
        titled.set(key, true);
        void client.assistant.threads
          .setTitle({ ...where, title: text.slice(0, 80) || 'polbot' })
          .catch((err: unknown) => log.debug({ code: slackErrorCode(err) }, 'slack: thread not titled (not an agent thread)'));
      }
    }
    const caller = o.callerOf(said.user, said.channel, {
      ...(said.teamId ? { teamId: said.teamId } : {}),
      enterpriseId: said.enterpriseId ?? null,
    });
    try {
      const result = await o.converse(text || 'help', caller);
      await o.myTurn();
      // In a channel, what is for the asker alone (a choice, a refusal) is ephemeral in the thread.
      if (!said.direct && placementOf(result) === 'ephemeral') {
        const message = renderReply(result.reply);
        await client.chat.postEphemeral({
          channel: said.channel,
          user: said.user,
          text: message.text,
          blocks: message.blocks,
          ...(said.threadTs ? { thread_ts: said.threadTs } : {}),
        });
      } else {
        await postAsOneMessage(client, log, said.channel, result.reply, said.threadTs);
      }
      log.info({ command: result.command, reply: result.reply.kind, direct: said.direct }, 'slack: answered in conversation');
    } catch (err) {
      log.warn({ code: slackErrorCode(err) ?? 'unknown_error' }, 'slack: a conversation answer could not be posted');
      const notice = somethingWentWrong();
      await client.chat
        .postEphemeral({
          channel: said.channel,
          user: said.user,
          text: notice.text,
          ...(said.threadTs ? { thread_ts: said.threadTs } : {}),
        })
        .catch(() => undefined);
    }
  }
}
