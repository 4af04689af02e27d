/**
 * What a person says to the app, as Slack delivers it to the Events API (JSON, signed like any
 * request): `app_mention` in a channel or thread, `message` in the app's DM (`channel_type: im`),
 * and the agent surface's `assistant_thread_started`; and the Web API methods of that surface,
 * which Slack refuses on a thread that is not an agent thread. Each event carries an `event_id`;
 * Slack retries with the same one.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_IDENTITY, DEFAULT_USER_ID } from './identity.js';

const eventId = (): string => `Ev${randomBytes(5).toString('hex').toUpperCase()}`;
let tsSequence = 0;
/** A message timestamp as Slack writes them, unique within the test run. */
export const messageTs = (): string => `${Math.floor(Date.now() / 1000)}.${String(++tsSequence).padStart(6, '0')}`;

function envelope(event: Record<string, unknown>, input: { eventId?: string; teamId?: string }): string {
  const team = input.teamId ?? DEFAULT_IDENTITY.teamId;
  return JSON.stringify({
    token: 'fakeVerificationToken0000',
    team_id: team,
    api_app_id: DEFAULT_IDENTITY.appId,
    event: { ...event, event_ts: event.ts ?? messageTs() },
    type: 'event_callback',
    event_id: input.eventId ?? eventId(),
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      { enterprise_id: null, team_id: team, user_id: DEFAULT_IDENTITY.botUserId, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
  });
}

export interface SaidInput {
  text: string;
  channel: string;
  user?: string;
  ts?: string;
  /** In a thread: its parent's timestamp. */
  threadTs?: string;
  eventId?: string;
  /** Sent by an app or a bot (`bot_id`), which a bot must not answer. */
  botId?: string;
  /** `message_changed` and other subtypes: not something a person just said. */
  subtype?: string;
}

function said(type: string, input: SaidInput, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type,
    user: input.user ?? DEFAULT_USER_ID,
    text: input.text,
    ts: input.ts ?? messageTs(),
    channel: input.channel,
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    ...(input.botId ? { bot_id: input.botId } : {}),
    ...(input.subtype ? { subtype: input.subtype } : {}),
    ...extra,
  };
}

/** `@polbot …` in a channel: Slack writes the mention as `<@BOTUSERID>` in the text. */
export function appMentionBody(input: SaidInput): string {
  return envelope(said('app_mention', input), input);
}

/** A message in the app's DM. */
export function directMessageBody(input: SaidInput): string {
  return envelope(said('message', input, { channel_type: 'im' }), input);
}

/** The person opened the agent surface in the app's DM: a new thread, whose prompts the app may set. */
export function assistantThreadStartedBody(input: { user?: string; channel: string; threadTs: string; eventId?: string }): string {
  return envelope(
    {
      type: 'assistant_thread_started',
      assistant_thread: {
        user_id: input.user ?? DEFAULT_USER_ID,
        context: {},
        channel_id: input.channel,
        thread_ts: input.threadTs,
      },
    },
    input,
  );
}

/** Agent threads the fake has opened, and what the app set on each. */
export class FakeAgentThreads {
  private readonly threads = new Map<string, { status: string[]; titles: string[]; prompts: { title: string; message: string }[][] }>();

  /** Opens an agent thread in `channel` (the app's DM with the person): its parent's timestamp. */
  open(channel: string): string {
    const ts = messageTs();
    this.threads.set(`${channel}:${ts}`, { status: [], titles: [], prompts: [] });
    return ts;
  }

  of(channel: string, threadTs: string) {
    return this.threads.get(`${channel}:${threadTs}`);
  }
}

type Body = { ok: boolean; error?: string } & Record<string, unknown>;
const fail = (error: string): Body => ({ ok: false, error });
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The agent surface's methods as Slack answers them; `threads` is the fake's. */
export function agentMethod(
  method: 'assistant.threads.setStatus' | 'assistant.threads.setSuggestedPrompts' | 'assistant.threads.setTitle',
  args: Record<string, unknown>,
  threads: FakeAgentThreads,
): Body {
  const channel = text(args.channel_id);
  const ts = text(args.thread_ts);
  if (!channel || !ts) return fail('invalid_arguments');
  const thread = threads.of(channel, ts);
  // Slack keeps these for threads of the agent surface; an ordinary DM thread has none.
  if (!thread) return fail('invalid_thread');
  if (method === 'assistant.threads.setStatus') {
    if (typeof args.status !== 'string') return fail('invalid_arguments');
    thread.status.push(args.status);
    return { ok: true };
  }
  if (method === 'assistant.threads.setTitle') {
    const title = text(args.title);
    if (!title) return fail('invalid_arguments');
    thread.titles.push(title);
    return { ok: true };
  }
  const prompts = typeof args.prompts === 'string' ? (JSON.parse(args.prompts) as unknown) : args.prompts;
  // Slack takes one to four prompts, each a title and the message it sends.
  if (!Array.isArray(prompts) || prompts.length < 1 || prompts.length > 4) return fail('invalid_arguments');
  if (!prompts.every((p: { title?: unknown; message?: unknown }) => text(p?.title) && text(p?.message))) return fail('invalid_arguments');
  thread.prompts.push(prompts as { title: string; message: string }[]);
  return { ok: true };
}
