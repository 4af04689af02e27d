import { agentMethod, type FakeAgentThreads } from './conversation.js';
import type { FileStore } from './files.js';
import type { FakeSharedLinks } from './unfurl.js';
import type { FakeFunctions } from './functions.js';
import { HOME_METHODS, type FakeHome } from './home.js';
import type { FakeIdentity } from './identity.js';

export interface ApiContext {
  args: Record<string, unknown>;
  identity: FakeIdentity;
  nextTs: () => string;
  files: FileStore;
  /** The fake's clock (moved on by `advanceClock`), in milliseconds. */
  now: () => number;
  /** Scheme, host and port of the fake, for URLs it hands out. */
  origin: string;
  issueSocketUrl: () => string;
  /** Messages the bot posted, per channel, oldest first: what `conversations.history` reads. */
  history: Map<string, Record<string, unknown>[]>;
  /** People's channels, their conversations with the app and their Home views. */
  home: FakeHome;
  /** Threads of the agent surface in the app's DM. */
  agent: FakeAgentThreads;
  /** Links Slack told the app of, per message, and the unfurls it took. */
  links: FakeSharedLinks;
  /** Workflow steps running, and how each ended. */
  functions: FakeFunctions;
}

export type ApiBody = { ok: boolean; error?: string } & Record<string, unknown>;

/** Which token a method accepts: Socket Mode's connection call only takes app-level tokens. */
export type TokenKind = 'bot' | 'app';

interface MethodSpec {
  token: TokenKind;
  /** Scopes of which the bot token needs one, else `missing_scope`; set on the methods whose scope the fake checks. */
  scopes?: readonly string[];
  handle: (ctx: ApiContext) => ApiBody;
}

const fail = (error: string): ApiBody => ({ ok: false, error });

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function botMessage(ctx: ApiContext, ts: string): Record<string, unknown> {
  const { args, identity } = ctx;
  const message: Record<string, unknown> = {
    user: identity.botUserId,
    type: 'message',
    ts,
    bot_id: identity.botId,
    app_id: identity.appId,
    text: typeof args.text === 'string' ? args.text : '',
    team: identity.teamId,
  };
  for (const key of ['blocks', 'attachments', 'metadata', 'thread_ts'] as const) {
    if (args[key] !== undefined) message[key] = args[key];
  }
  return message;
}

function hasContent(args: Record<string, unknown>): boolean {
  return ['text', 'blocks', 'attachments', 'markdown_text'].some((key) => {
    const value = args[key];
    return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== '';
  });
}

/**
 * conversations.history's time range: messages after `oldest` and before `latest` (now unless
 * given), each end included only with `inclusive`. Reading one message is `latest` = its ts,
 * `inclusive`, `limit` 1.
 */
function timeRange(args: Record<string, unknown>): (ts: string) => boolean {
  const latest = str(args.latest);
  const oldest = str(args.oldest);
  const inclusive = args.inclusive === true || args.inclusive === 'true' || args.inclusive === '1' || args.inclusive === 1;
  return (ts) => {
    const at = Number(ts);
    if (latest !== undefined && (inclusive ? at > Number(latest) : at >= Number(latest))) return false;
    if (oldest !== undefined && (inclusive ? at < Number(oldest) : at <= Number(oldest))) return false;
    return true;
  };
}

const MIME_BY_EXTENSION: Record<string, string> = {
  csv: 'text/csv',
  gif: 'image/gif',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  json: 'application/json',
  pdf: 'application/pdf',
  png: 'image/png',
  svg: 'image/svg+xml',
  txt: 'text/plain',
};

function describeFile(ctx: ApiContext, id: string, title: string | undefined): Record<string, unknown> | undefined {
  const file = ctx.files.uploaded(id, ctx.identity.teamId);
  if (!file) return undefined;
  const { identity, origin } = ctx;
  const extension = file.filename.includes('.') ? (file.filename.split('.').pop() ?? '').toLowerCase() : '';
  const privateUrl = `${origin}/files-pri/${identity.teamId}-${id}/${encodeURIComponent(file.filename)}`;
  return {
    id,
    created: file.created,
    timestamp: file.created,
    name: file.filename,
    title: title ?? file.filename,
    mimetype: MIME_BY_EXTENSION[extension] ?? 'application/octet-stream',
    filetype: extension || 'binary',
    user: identity.botUserId,
    user_team: identity.teamId,
    size: file.bytes.length,
    mode: 'hosted',
    is_external: false,
    is_public: false,
    url_private: privateUrl,
    url_private_download: `${privateUrl}?download=1`,
    permalink: `https://${identity.teamDomain}.slack.com/files/${identity.botUserId}/${id}/${encodeURIComponent(file.filename)}`,
    // Sharing into the channel happens asynchronously on real Slack, so the
    // completion answer carries no shares yet.
    shares: {},
    channels: [],
    groups: [],
    ims: [],
    comments_count: 0,
    file_access: 'visible',
  };
}

export const METHODS: Readonly<Record<string, MethodSpec>> = {
  // The agent surface: Slack lists chat:write for the status line, assistant:write for the rest.
  'functions.completeSuccess': { token: 'bot', handle: (ctx) => ctx.functions.complete('functions.completeSuccess', ctx.args) },
  'functions.completeError': { token: 'bot', handle: (ctx) => ctx.functions.complete('functions.completeError', ctx.args) },
  'chat.unfurl': {
    token: 'bot',
    scopes: ['links:write'],
    handle: (ctx) => ctx.links.unfurl(ctx.args),
  },
  'assistant.threads.setStatus': {
    token: 'bot',
    scopes: ['chat:write'],
    handle: (ctx) => agentMethod('assistant.threads.setStatus', ctx.args, ctx.agent),
  },
  'assistant.threads.setSuggestedPrompts': {
    token: 'bot',
    scopes: ['assistant:write'],
    handle: (ctx) => agentMethod('assistant.threads.setSuggestedPrompts', ctx.args, ctx.agent),
  },
  'assistant.threads.setTitle': {
    token: 'bot',
    scopes: ['assistant:write'],
    handle: (ctx) => agentMethod('assistant.threads.setTitle', ctx.args, ctx.agent),
  },
  'auth.test': {
    token: 'bot',
    handle: ({ identity }) => ({
      ok: true,
      url: `https://${identity.teamDomain}.slack.com/`,
      team: identity.teamName,
      user: identity.botUserName,
      team_id: identity.teamId,
      user_id: identity.botUserId,
      bot_id: identity.botId,
      is_enterprise_install: false,
    }),
  },

  'chat.postMessage': {
    token: 'bot',
    handle: (ctx) => {
      const channel = str(ctx.args.channel);
      if (!channel) return fail('channel_not_found');
      if (!hasContent(ctx.args)) return fail('no_text');
      const ts = ctx.nextTs();
      const message = botMessage(ctx, ts);
      const list = ctx.history.get(channel) ?? [];
      list.push(message);
      ctx.history.set(channel, list);
      return { ok: true, channel, ts, message };
    },
  },

  'conversations.history': {
    token: 'bot',
    // The fake's channels are public channels; a private one would need groups:history instead.
    scopes: ['channels:history'],
    handle: (ctx) => {
      const channel = str(ctx.args.channel);
      if (!channel) return fail('channel_not_found');
      // Slack's limit: 100 unless asked, at most 999 a page.
      const limit = Math.min(999, Number(ctx.args.limit ?? 100) || 100);
      // The channel's own messages, newest first: thread replies stay in their threads.
      const within = timeRange(ctx.args);
      const messages = [...(ctx.history.get(channel) ?? [])]
        .filter((m) => (m.thread_ts === undefined || m.thread_ts === m.ts) && within(String(m.ts)))
        .reverse();
      // A page goes on from the cursor the previous page handed out (`next_ts:<ts>`, base64).
      let start = 0;
      const cursor = str(ctx.args.cursor);
      if (cursor) {
        const ts = /^next_ts:(\d+\.\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'))?.[1];
        start = ts === undefined ? -1 : messages.findIndex((m) => m.ts === ts);
        if (start === -1) return fail('invalid_cursor');
      }
      const page = messages.slice(start, start + limit);
      const next = messages[start + limit];
      return {
        ok: true,
        messages: page,
        has_more: next !== undefined,
        pin_count: 0,
        ...(next ? { response_metadata: { next_cursor: Buffer.from(`next_ts:${String(next.ts)}`).toString('base64') } } : {}),
      };
    },
  },

  'conversations.replies': {
    token: 'bot',
    scopes: ['channels:history'],
    handle: (ctx) => {
      const channel = str(ctx.args.channel);
      const ts = str(ctx.args.ts);
      if (!channel) return fail('channel_not_found');
      if (!ts) return fail('invalid_arguments');
      const messages = ctx.history.get(channel) ?? [];
      // `ts` may be the thread's parent or any message in it; either way the whole thread comes back.
      const named = messages.find((m) => m.ts === ts);
      if (!named) return fail('thread_not_found');
      const root = typeof named.thread_ts === 'string' ? named.thread_ts : ts;
      const parent = messages.find((m) => m.ts === root);
      const thread = [...(parent ? [parent] : []), ...messages.filter((m) => m.thread_ts === root && m.ts !== root)];
      // Slack's limit: 1,000 at most a page, oldest first.
      const limit = Math.min(1000, Number(ctx.args.limit ?? 1000) || 1000);
      return { ok: true, messages: thread.slice(0, limit), has_more: thread.length > limit };
    },
  },

  'chat.postEphemeral': {
    token: 'bot',
    handle: (ctx) => {
      if (!str(ctx.args.channel)) return fail('channel_not_found');
      if (!str(ctx.args.user)) return fail('invalid_arguments');
      if (!hasContent(ctx.args)) return fail('no_text');
      return { ok: true, message_ts: ctx.nextTs() };
    },
  },

  'chat.update': {
    token: 'bot',
    handle: (ctx) => {
      const channel = str(ctx.args.channel);
      const ts = str(ctx.args.ts);
      if (!channel) return fail('channel_not_found');
      if (!ts) return fail('invalid_arguments');
      // Slack updates only a message that exists in that channel, and never to nothing.
      const list = ctx.history.get(channel) ?? [];
      const at = list.findIndex((m) => m.ts === ts);
      if (at === -1) return fail('message_not_found');
      if (!hasContent(ctx.args)) return fail('no_text');
      const message = botMessage(ctx, ts);
      list[at] = { ...list[at], ...message };
      return { ok: true, channel, ts, text: message.text, message };
    },
  },

  'chat.delete': {
    token: 'bot',
    handle: (ctx) => {
      const channel = str(ctx.args.channel);
      const ts = str(ctx.args.ts);
      if (!channel) return fail('channel_not_found');
      if (!ts) return fail('invalid_arguments');
      return { ok: true, channel, ts };
    },
  },

  'files.getUploadURLExternal': {
    token: 'bot',
    handle: (ctx) => {
      const filename = str(ctx.args.filename);
      const length = Number(ctx.args.length);
      if (!filename || !Number.isInteger(length) || length < 0) return fail('invalid_arguments');
      const file = ctx.files.issue(filename, length, ctx.identity.teamId);
      return { ok: true, upload_url: `${ctx.origin}/upload/${file.id}`, file_id: file.id };
    },
  },

  'files.completeUploadExternal': {
    token: 'bot',
    handle: (ctx) => {
      const requested = ctx.args.files;
      if (!Array.isArray(requested) || requested.length === 0) return fail('invalid_arguments');
      const channel = str(ctx.args.channel_id) ?? str(ctx.args.channels);
      const threadTs = str(ctx.args.thread_ts);
      const described: Record<string, unknown>[] = [];
      const completed: NonNullable<ReturnType<FileStore['uploaded']>>[] = [];
      for (const entry of requested as unknown[]) {
        const { id, title } = (entry ?? {}) as { id?: unknown; title?: unknown };
        const fileId = str(id);
        if (!fileId) return fail('invalid_arguments');
        // An id whose bytes never arrived, or that another workspace uploaded, is treated as
        // missing, so a skipped upload step fails loudly instead of sharing an empty file.
        const file = describeFile(ctx, fileId, str(title));
        if (!file) return fail('file_not_found');
        described.push(file);
        completed.push(ctx.files.uploaded(fileId, ctx.identity.teamId)!);
      }
      for (const file of completed) ctx.files.complete(file, ctx.now());
      // Without a channel the files stay private to the uploader: nothing appears anywhere.
      if (channel) {
        for (const file of completed) ctx.files.share(file, channel);
        // Sharing posts the files as a message of their own in the channel (or thread).
        const ts = ctx.nextTs();
        const message: Record<string, unknown> = {
          type: 'message',
          user: ctx.identity.botUserId,
          bot_id: ctx.identity.botId,
          ts,
          text: str(ctx.args.initial_comment) ?? '',
          files: described,
          upload: true,
          team: ctx.identity.teamId,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        };
        const list = ctx.history.get(channel) ?? [];
        list.push(message);
        ctx.history.set(channel, list);
      }
      return { ok: true, files: described };
    },
  },

  'apps.connections.open': {
    token: 'app',
    handle: (ctx) => ({ ok: true, url: ctx.issueSocketUrl() }),
  },

  ...HOME_METHODS,
};
