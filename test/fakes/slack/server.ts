import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestHead, secretWatch } from '../../helpers/secret-watch.js';
import { parseArgs, readBody, mediaType } from './body.js';
import { FailurePlan, type FailOptions, type PlannedFailure, type RateLimitOptions } from './failures.js';
import { FileStore, type FakeFile, type UploadRecord } from './files.js';
import { FakeWorkspaces, type OAuthClient, type WorkspaceSpec } from './workspaces.js';
import { FakeAgentThreads } from './conversation.js';
import { FakeHome } from './home.js';
import { FakeSharedLinks } from './unfurl.js';
import { FakeFunctions } from './functions.js';
import { DEFAULT_APP_TOKEN, DEFAULT_BOT_TOKEN, DEFAULT_IDENTITY, createIdSequence, createTsClock, type FakeIdentity } from './identity.js';
import { CallRecorder, type CallPredicate, type RecordedCall } from './recorder.js';
import { FakeSocketMode, type SocketModeControls } from './socket-mode.js';
import {
  blockErrors,
  blocksOf,
  imageUrls,
  MESSAGE_METHODS,
  RateTiers,
  ResponseUrls,
  slackFiles,
  undownloadable,
  unusableFiles,
} from './rules.js';
import { METHODS, type ApiBody, type TokenKind } from './web-api.js';

export interface FakeSlackOptions {
  /** The only bot token the fake accepts. */
  botToken?: string;
  /** The only app-level token apps.connections.open accepts. */
  appToken?: string;
  identity?: Partial<FakeIdentity>;
  /**
   * The bot token's scopes, reported in `x-oauth-scopes` (which @slack/web-api copies into
   * `response_metadata.scopes`) and required by the methods that name one. Default: the scopes
   * polbot's manifest asks for.
   */
  scopes?: string[];
  /** Server pings on Socket Mode connections, as Slack sends them; off by default. */
  socketPingIntervalMs?: number;
  /** Enforce Slack's rate tiers (429 with Retry-After); off by default, see rules.ts. */
  rateLimits?: boolean;
  /** The app's OAuth client: `oauth.v2.access` exchanges codes from `installWorkspace` for workspace tokens. */
  oauth?: OAuthClient;
}

export interface FakeSlack {
  /** Web API base to pass as `slackApiUrl`; ends with `/api/` as the clients require. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`, for the non-API endpoints. */
  readonly origin: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly identity: Readonly<FakeIdentity>;
  readonly socket: SocketModeControls;
  /** People's channels (what users.conversations lists), their conversations with the app, and the Home view each was last shown. */
  readonly home: FakeHome;

  calls(method?: string): RecordedCall[];
  waitFor(method: string, predicate?: CallPredicate, timeoutMs?: number): Promise<RecordedCall>;
  /** Every HTTP request (line, headers, body) and WebSocket frame, as text, for leak scans. */
  rawPayloads(): string[];
  uploads(): UploadRecord[];
  /** Every file uploaded: its workspace, whether the upload was completed, the channels it was shared into. */
  files(): FakeFile[];
  /**
   * Slack processes a completed upload for a moment before a message can show it in an image
   * block; until then such a message is refused (`invalid slack file`). Applies to uploads
   * completed from now on; 0 (the default) makes files usable at once.
   */
  processFilesFor(ms: number): void;
  /** Forgets recorded calls, raw payloads and uploads; scheduled failures stay. */
  clear(): void;

  /**
   * A person allowed the app for a workspace at Slack's authorize page: the one-time code Slack
   * puts in the redirect. Exchanging it (`oauth.v2.access`) issues that workspace's own token.
   */
  installWorkspace(spec: WorkspaceSpec): string;
  /** The app was removed from the workspace: its token now gets `token_revoked`. */
  uninstallWorkspace(teamId: string): void;
  /** Who a workspace's current token posts as; undefined when it is not installed. */
  workspace(teamId: string): { identity: FakeIdentity; token: string } | undefined;

  /** A response_url on the fake, issued now; POSTs to it are recorded as method `response_url` with this id. */
  responseUrl(id?: string): string;
  /** Moves the fake's clock on, to reach Slack's time limits (a response_url's 30 minutes) without waiting. */
  advanceClock(ms: number): void;

  /** Threads of the agent surface in the app's DM: open one, and read what the app set on it. */
  agent: FakeAgentThreads;
  /** Links pasted in messages: make the `link_shared` body, and read the unfurls the app made. */
  links: FakeSharedLinks;
  /** Workflow steps: start an execution (the `function_executed` body), and read how it ended. */
  functions: FakeFunctions;
  /** A user group of the workspace with this handle (`risk-oncall`), as an admin creates one; returns its id (`S…`). */
  addUserGroup(handle: string): string;
  /**
   * Slash command text as Slack delivers what a person typed, with the command's escaping on
   * (`should_escape: true`): each `@handle` of a user group that exists becomes
   * `<!subteam^ID|@handle>`; any other `@word` stays as typed.
   */
  asTyped(text: string): string;

  /** `method` may also be `upload` or `response_url` to fail those endpoints. */
  failNext(method: string, options: FailOptions): void;
  rateLimitNext(method: string, options: RateLimitOptions): void;
  /** Every call naming the channel (`channel` or `channel_id`) fails with `error`; `null` restores it. */
  failChannel(channelId: string, error: string | null): void;
  clearFailures(): void;

  close(): Promise<void>;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const botToken = options.botToken ?? DEFAULT_BOT_TOKEN;
  const appToken = options.appToken ?? DEFAULT_APP_TOKEN;
  secretWatch.secret(botToken, 'fake Slack bot token');
  secretWatch.secret(appToken, 'fake Slack app-level token');
  const identity: FakeIdentity = { ...DEFAULT_IDENTITY, ...options.identity };
  const granted = options.scopes ?? [
    'commands',
    'chat:write',
    'files:write',
    'channels:history',
    'groups:history',
    'im:write',
    'channels:read',
    'groups:read',
    'app_mentions:read',
    'im:history',
    'assistant:write',
    'links:read',
    'links:write',
  ];
  const scopes = granted.join(',');
  const recorder = new CallRecorder();
  const failures = new FailurePlan();
  const fileStore = new FileStore();
  const nextTs = createTsClock();
  const history = new Map<string, Record<string, unknown>[]>();
  const home = new FakeHome();
  const agent = new FakeAgentThreads();
  const links = new FakeSharedLinks();
  const functions = new FakeFunctions();
  const nextResponseId = createIdSequence('R');
  const nextGroupId = createIdSequence('S');
  const userGroups = new Map<string, string>();
  const socket = new FakeSocketMode({
    appId: identity.appId,
    pingIntervalMs: options.socketPingIntervalMs ?? 0,
    recordRaw: (text) => recorder.recordRaw(text),
    onClientMessage: (text) => secretWatch.payload('fake Slack Socket Mode message', text),
  });
  let origin = '';
  let clockOffsetMs = 0;
  const now = () => Date.now() + clockOffsetMs;
  const responseUrls = new ResponseUrls();
  const rateTiers = options.rateLimits ? new RateTiers() : null;

  /** Block Kit limits, Slack files and image downloads, as Slack checks them before taking a message from `team`. */
  const messageError = async (args: Record<string, unknown>, team: string): Promise<string[]> => {
    const blocks = blocksOf(args);
    const errors = blockErrors(blocks);
    if (errors.length) return errors;
    const files = unusableFiles(slackFiles(blocks), (ref) => fileStore.unusable(ref, team, now()));
    return files.length ? files : undownloadable(imageUrls(blocks));
  };
  const invalidBlocks = (errors: string[]) => ({ ok: false, error: 'invalid_blocks', errors, response_metadata: { messages: errors } });

  const workspaces = new FakeWorkspaces(options.oauth, identity.appId, scopes);
  if (options.oauth) secretWatch.secret(options.oauth.clientSecret, 'fake Slack client secret');

  const tokenError = (kind: TokenKind, token: string | undefined): string | undefined => {
    if (!token) return 'not_authed';
    const installed = kind === 'bot' ? workspaces.ofToken(token) : undefined;
    if (installed) return installed.revoked ? 'token_revoked' : undefined;
    // A workflow step's calls come with the token Slack made for that execution.
    if (kind === 'bot' && functions.ownsToken(token)) return undefined;
    const expected = kind === 'app' ? appToken : botToken;
    const other = kind === 'app' ? botToken : appToken;
    if (token === expected) return undefined;
    return token === other ? 'not_allowed_token_type' : 'invalid_auth';
  };

  const webApi = async (method: string, req: IncomingMessage, raw: Buffer, url: URL): Promise<[Reply, Record<string, unknown>]> => {
    const parsed = await parseArgs(raw, req.headers['content-type'], url.searchParams);
    if (!parsed.ok) return [json(200, { ok: false, error: parsed.error }), {}];
    const { args } = parsed;
    // The one method called without a token: the app's client credentials are its authentication.
    if (method === 'oauth.v2.access') return [json(200, workspaces.exchange(args, req.headers.authorization, now())), args];
    const spec = METHODS[method];
    // Whatever token a client presents is one of its secrets, right or wrong.
    secretWatch.secret(stringArg(args.token), 'Slack token sent to the fake');
    const authError = tokenError(spec?.token ?? 'bot', bearer(req) ?? stringArg(args.token));
    if (authError) return [json(200, { ok: false, error: authError }), args];
    const planned = failures.take(method);
    if (planned) return [fromPlan(planned), args];
    if (!spec) return [json(200, { ok: false, error: 'unknown_method', req_method: method }), args];
    if (spec.scopes && !spec.scopes.some((s) => granted.includes(s))) {
      return [
        json(200, { ok: false, error: 'missing_scope', needed: spec.scopes.join(','), provided: scopes }, { 'x-oauth-scopes': scopes }),
        args,
      ];
    }
    // Each token acts as its own workspace, and reaches only that workspace's channels.
    const caller = workspaces.ofToken(bearer(req) ?? stringArg(args.token))?.identity ?? identity;
    const owner = workspaces.ownerOf(args.channel ?? args.channel_id);
    if (owner !== undefined && owner !== caller.teamId) return [json(200, { ok: false, error: 'channel_not_found' }), args];
    const channelError = failures.channelError(args.channel ?? args.channel_id);
    if (channelError) return [json(200, { ok: false, error: channelError }), args];
    const wait = rateTiers?.take(method, stringArg(args.channel ?? args.channel_id), now());
    if (wait !== undefined) return [json(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(wait) }), args];
    if (MESSAGE_METHODS.has(method)) {
      const errors = await messageError(args, caller.teamId);
      if (errors.length) return [json(200, invalidBlocks(errors)), args];
    }
    const body: ApiBody = spec.handle({
      args,
      identity: caller,
      history,
      home,
      agent,
      links,
      functions,
      nextTs,
      files: fileStore,
      now,
      origin,
      issueSocketUrl: () => socket.issueUrl(origin.replace(/^http/, 'ws')),
    });
    return [json(200, body, spec.token === 'bot' ? { 'x-oauth-scopes': scopes } : {}), args];
  };

  const upload = async (fileId: string, req: IncomingMessage, raw: Buffer): Promise<[Reply, Record<string, unknown>]> => {
    const parsed = await parseArgs(raw, req.headers['content-type'], new URLSearchParams());
    // @slack/web-api posts the bytes as a multipart part named `body`; other
    // clients send them raw, which Slack's upload host also takes.
    const part = parsed.ok ? parsed.files[0] : undefined;
    const isMultipart = mediaType(req.headers['content-type']) === 'multipart/form-data';
    const bytes = part?.bytes ?? (isMultipart ? Buffer.alloc(0) : raw);
    const contentType = part?.contentType ?? req.headers['content-type'] ?? 'application/octet-stream';
    const args = { filename: part?.filename, length: bytes.length };
    const planned = failures.take('upload');
    if (planned) return [fromPlan(planned), args];
    if (!fileStore.receive(fileId, bytes, contentType)) return [text(404, 'file_not_found'), args];
    return [text(200, `OK - ${bytes.length}`), args];
  };

  const responseUrl = async (id: string, req: IncomingMessage, raw: Buffer): Promise<[Reply, Record<string, unknown>]> => {
    const parsed = await parseArgs(raw, req.headers['content-type'], new URLSearchParams());
    if (!parsed.ok || mediaType(req.headers['content-type']) !== 'application/json') {
      return [text(400, 'invalid_payload'), parsed.ok ? parsed.args : {}];
    }
    // Slack answers a spent or stale response_url with 404 and its reason as the body.
    const spent = responseUrls.use(id, now());
    if (spent) return [text(404, spent), parsed.args];
    const planned = failures.take('response_url');
    if (planned) return [fromPlan(planned), parsed.args];
    // A response_url belongs to the app's own workspace.
    const errors = await messageError(parsed.args, identity.teamId);
    if (errors.length) return [json(400, invalidBlocks(errors)), parsed.args];
    return [json(200, { ok: true }), parsed.args];
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = new Date();
    const raw = await readBody(req);
    const bodyText = raw.toString('utf8');
    recorder.recordRaw(`${req.method} ${req.url}\n${rawHeaders(req)}\n\n${bodyText}`);
    watchRequest(req, bodyText);
    const url = new URL(req.url ?? '/', origin);
    const [, area, rest = ''] = /^\/([^/]+)\/(.*)$/.exec(url.pathname) ?? [];
    let method: string;
    let id: string | undefined;
    let outcome: [Reply, Record<string, unknown>];
    if (area === 'api' && rest !== '') {
      method = rest;
      outcome = await webApi(method, req, raw, url);
    } else if (area === 'upload' && rest !== '' && req.method === 'POST') {
      method = 'upload';
      id = rest;
      outcome = await upload(rest, req, raw);
    } else if (area === 'response' && rest !== '' && req.method === 'POST') {
      method = 'response_url';
      id = rest;
      outcome = await responseUrl(rest, req, raw);
    } else {
      send(res, text(404, 'not_found'));
      return;
    }
    const [reply, args] = outcome;
    const call: RecordedCall = { method, args, headers: flatHeaders(req), at, status: reply.status, response: reply.body };
    if (id !== undefined) call.id = id;
    recorder.record(call);
    send(res, reply);
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, text(500, `fake Slack failed: ${error instanceof Error ? error.stack : String(error)}`));
      else res.destroy();
    });
  });
  server.on('upgrade', (req, sock, head) => {
    watchRequest(req, '');
    socket.handleUpgrade(req, sock, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}/api/`,
    origin,
    botToken,
    appToken,
    identity,
    socket,
    home,
    calls: (method) => recorder.calls(method),
    waitFor: (method, predicate, timeoutMs) => recorder.waitFor(method, predicate, timeoutMs),
    rawPayloads: () => recorder.rawPayloads(),
    uploads: () => fileStore.uploads(),
    files: () => fileStore.files(),
    processFilesFor: (ms) => {
      fileStore.processingMs = ms;
    },
    clear: () => {
      recorder.clear();
      fileStore.clearRecords();
    },
    installWorkspace: (spec) => workspaces.authorize(spec, now()),
    uninstallWorkspace: (teamId) => workspaces.uninstall(teamId),
    workspace: (teamId) => workspaces.ofTeam(teamId),
    responseUrl: (id) => {
      const key = id ?? nextResponseId();
      responseUrls.issue(encodeURIComponent(key), now());
      return `${origin}/response/${encodeURIComponent(key)}`;
    },
    advanceClock: (ms) => {
      clockOffsetMs += ms;
    },
    agent,
    links,
    functions,
    addUserGroup: (handle) => {
      const key = handle.replace(/^@/, '').toLowerCase();
      const id = userGroups.get(key) ?? nextGroupId();
      userGroups.set(key, id);
      return id;
    },
    asTyped: (typed) =>
      typed.replace(/(^|\s)@([a-z0-9._-]+)/gi, (whole, before: string, handle: string) => {
        const id = userGroups.get(handle.toLowerCase());
        return id ? `${before}<!subteam^${id}|@${handle}>` : whole;
      }),
    failNext: (method, opts) => failures.failNext(method, opts),
    rateLimitNext: (method, opts) => failures.rateLimitNext(method, opts),
    failChannel: (channelId, error) => failures.failChannel(channelId, error),
    clearFailures: () => failures.clear(),
    close: async () => {
      recorder.rejectAll('fake Slack closed while a waitFor was pending');
      await socket.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Clients keep idle keep-alive sockets open; without this close() would wait for them to time out.
      server.closeAllConnections();
      await closed;
    },
  };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, body, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } };
}

function text(status: number, body: string): Reply {
  return { status, body, headers: { 'content-type': 'text/plain; charset=utf-8' } };
}

function fromPlan(planned: PlannedFailure): Reply {
  return json(planned.status, planned.body, planned.headers);
}

function send(res: ServerResponse, reply: Reply): void {
  const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function watchRequest(req: IncomingMessage, body: string): void {
  const token = bearer(req);
  secretWatch.secret(token, 'Slack token sent to the fake');
  const { line, headers } = requestHead(req);
  // The token exchange carries the app's client secret in its form body by design, as other calls
  // carry their token in the Authorization header; that one field is the credential, not a leak.
  const shown = req.url?.startsWith('/api/oauth.v2.access')
    ? body.replace(/(^|&)client_secret=[^&]*/, '$1client_secret=(credential)')
    : body;
  secretWatch.payload(`fake Slack ${line}`, `${headers}\n\n${shown}`);
}

function bearer(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

function stringArg(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function rawHeaders(req: IncomingMessage): string {
  const lines: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  return lines.join('\n');
}
