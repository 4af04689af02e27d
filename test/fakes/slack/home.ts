/**
 * What an app's Home tab needs from Slack: `views.publish` (with the limits Slack checks on a view),
 * the person's own conversation with the app (`conversations.open`), which channels a person is in
 * (`users.conversations`), and the payloads Slack sends from a Home tab: the `app_home_opened`
 * event, clicks (`block_actions` from a view, which carry no channel and no response_url) and
 * external-select lookups.
 */
import { randomBytes } from 'node:crypto';
import { blockErrors } from './rules.js';
import { DEFAULT_IDENTITY, DEFAULT_USER_ID, DEFAULT_USER_NAME, type FakeIdentity } from './identity.js';

const VERIFICATION_TOKEN = 'fakeVerificationToken0000';

/** Slack's limits on a view, beyond the ones every block has. */
export const VIEW_LIMITS = {
  blocks: 100,
  /** `view_too_large` past this many bytes of view JSON. */
  bytes: 250_000,
  privateMetadata: 3000,
  callbackId: 255,
  externalId: 255,
  contextElements: 10,
  actionsElements: 25,
  buttonValue: 2000,
  buttonUrl: 3000,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
} as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Membership {
  channels: Map<string, 'public_channel' | 'private_channel'>;
}

/** The fake workspace's people, their channels and their views; tests arrange it through `FakeSlack.home`. */
export class FakeHome {
  private readonly members = new Map<string, Membership>();
  private readonly published = new Map<string, Obj>();
  private readonly dms = new Map<string, string>();
  private views = 0;

  /** The person is a member of the channel, as Slack would list it in users.conversations. */
  join(userId: string, channelId: string, type: 'public_channel' | 'private_channel' = 'public_channel'): void {
    const m = this.members.get(userId) ?? { channels: new Map() };
    m.channels.set(channelId, type);
    this.members.set(userId, m);
  }

  leave(userId: string, channelId: string): void {
    this.members.get(userId)?.channels.delete(channelId);
  }

  channelsOf(userId: string, types: readonly string[]): string[] {
    return [...(this.members.get(userId)?.channels ?? new Map<string, string>())].filter(([, t]) => types.includes(t)).map(([id]) => id);
  }

  /** The person's conversation with the app: one per person, the same id every time. */
  dmOf(userId: string): string {
    let id = this.dms.get(userId);
    if (!id) {
      id = `D${String(this.dms.size + 1).padStart(8, '0')}`;
      this.dms.set(userId, id);
    }
    return id;
  }

  /** The Home view Slack would show the person now: the last one published for them. */
  view(userId: string): Obj | undefined {
    return this.published.get(userId);
  }

  publish(userId: string, view: Obj): Obj {
    const id = (this.published.get(userId)?.id as string | undefined) ?? `V${String(++this.views).padStart(8, '0')}`;
    const stored = { ...view, id, hash: `${Date.now()}.${randomBytes(4).toString('hex')}`, state: { values: {} } };
    this.published.set(userId, stored);
    return stored;
  }
}

/** Slack's messages for a view it refuses: `[ERROR] ... [json-pointer:/view/...]`. */
export function viewErrors(view: Obj): string[] {
  const errors: string[] = [];
  const err = (pointer: string, what: string) => errors.push(`[ERROR] ${what} [json-pointer:/view${pointer}]`);
  if (view.type !== 'home') err('/type', 'must be one of: home');
  if (!Array.isArray(view.blocks)) {
    err('', 'missing required field: blocks');
    return errors;
  }
  const blocks: unknown[] = view.blocks;
  if (blocks.length > VIEW_LIMITS.blocks) err('/blocks', `no more than ${VIEW_LIMITS.blocks} items allowed`);
  // The limits every block has (text lengths, selects, action ids), as for a message, bar the count.
  for (const e of blockErrors(blocks, VIEW_LIMITS.blocks)) errors.push(e.replace('[json-pointer:/blocks', '[json-pointer:/view/blocks'));
  for (const [field, max] of [
    ['private_metadata', VIEW_LIMITS.privateMetadata],
    ['callback_id', VIEW_LIMITS.callbackId],
    ['external_id', VIEW_LIMITS.externalId],
  ] as const) {
    const v = view[field];
    if (v !== undefined && (typeof v !== 'string' || v.length > max)) err(`/${field}`, `must be less than ${max + 1} characters`);
  }
  const blockIds = new Set<string>();
  blocks.forEach((b, i) => {
    const at = `/blocks/${i}`;
    if (!isObj(b)) return err(at, 'must be an object');
    if (typeof b.block_id === 'string') {
      if (blockIds.has(b.block_id)) err(`${at}/block_id`, 'block_id already exists');
      blockIds.add(b.block_id);
    }
    const text = (v: unknown, pointer: string, kinds: readonly string[] = ['plain_text', 'mrkdwn']) => {
      if (!isObj(v) || typeof v.text !== 'string' || !kinds.includes(String(v.type)))
        return err(pointer, `must be a text object of type ${kinds.join(' or ')}`);
      if (v.text.length === 0) err(`${pointer}/text`, 'must be more than 0 characters');
    };
    const element = (e: unknown, pointer: string) => {
      if (!isObj(e)) return err(pointer, 'must be an object');
      if (e.type === 'button') {
        text(e.text, `${pointer}/text`, ['plain_text']);
        if (typeof e.value === 'string' && e.value.length > VIEW_LIMITS.buttonValue)
          err(`${pointer}/value`, `must be less than ${VIEW_LIMITS.buttonValue + 1} characters`);
        if (typeof e.url === 'string' && e.url.length > VIEW_LIMITS.buttonUrl)
          err(`${pointer}/url`, `must be less than ${VIEW_LIMITS.buttonUrl + 1} characters`);
        if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger')
          err(`${pointer}/style`, 'must be one of: primary, danger');
      }
      if (e.type === 'external_select') {
        text(e.placeholder, `${pointer}/placeholder`, ['plain_text']);
        if (e.min_query_length !== undefined && !(Number.isInteger(e.min_query_length) && Number(e.min_query_length) >= 0))
          err(`${pointer}/min_query_length`, 'must be a non-negative integer');
      }
      if (e.confirm !== undefined) {
        const c = e.confirm;
        if (!isObj(c)) return err(`${pointer}/confirm`, 'must be an object');
        for (const [field, max] of [
          ['title', VIEW_LIMITS.confirmTitle],
          ['text', VIEW_LIMITS.confirmText],
          ['confirm', VIEW_LIMITS.confirmButton],
          ['deny', VIEW_LIMITS.confirmButton],
        ] as const) {
          text(c[field], `${pointer}/confirm/${field}`, field === 'text' ? ['plain_text', 'mrkdwn'] : ['plain_text']);
          const v = isObj(c[field]) ? (c[field] as Obj).text : undefined;
          if (typeof v === 'string' && v.length > max) err(`${pointer}/confirm/${field}/text`, `must be less than ${max + 1} characters`);
        }
      }
      if (typeof e.action_id !== 'string' || e.action_id === '') err(`${pointer}/action_id`, 'must be provided');
    };
    switch (b.type) {
      case 'header':
        text(b.text, `${at}/text`, ['plain_text']);
        break;
      case 'section':
        if (b.text === undefined && b.fields === undefined) err(at, 'must provide text or fields');
        if (b.text !== undefined) text(b.text, `${at}/text`);
        if (b.accessory !== undefined) element(b.accessory, `${at}/accessory`);
        break;
      case 'context':
        if (!Array.isArray(b.elements) || b.elements.length === 0) err(`${at}/elements`, 'must provide at least 1 items');
        else if (b.elements.length > VIEW_LIMITS.contextElements)
          err(`${at}/elements`, `no more than ${VIEW_LIMITS.contextElements} items allowed`);
        else b.elements.forEach((e, j) => text(e, `${at}/elements/${j}`));
        break;
      case 'actions':
        if (!Array.isArray(b.elements) || b.elements.length === 0) err(`${at}/elements`, 'must provide at least 1 items');
        else if (b.elements.length > VIEW_LIMITS.actionsElements)
          err(`${at}/elements`, `no more than ${VIEW_LIMITS.actionsElements} items allowed`);
        else b.elements.forEach((e, j) => element(e, `${at}/elements/${j}`));
        break;
      case 'divider':
      case 'image':
      case 'input':
      case 'rich_text':
        break;
      default:
        err(`${at}/type`, `unsupported block type: ${String(b.type)}`);
    }
  });
  return errors;
}

type HomeBody = { ok: boolean; error?: string } & Obj;

interface HomeApiContext {
  args: Obj;
  identity: FakeIdentity;
  home: FakeHome;
}

const fail = (error: string, messages?: string[]): HomeBody => ({
  ok: false,
  error,
  ...(messages ? { response_metadata: { messages } } : {}),
});

/** `view` arrives as JSON text in a form field (how @slack/web-api sends it) or as an object. */
function viewArg(raw: unknown): Obj | undefined {
  if (isObj(raw)) return raw;
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObj(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export const HOME_METHODS: Readonly<
  Record<string, { token: 'bot'; scopes?: readonly string[]; handle: (ctx: HomeApiContext) => HomeBody }>
> = {
  'views.publish': {
    token: 'bot',
    handle: ({ args, identity, home }) => {
      const userId = typeof args.user_id === 'string' ? args.user_id : '';
      if (!userId) return fail('invalid_arguments', ['[ERROR] missing required field: user_id [json-pointer:/user_id]']);
      const view = viewArg(args.view);
      if (!view) return fail('invalid_arguments', ['[ERROR] must provide an object [json-pointer:/view]']);
      const raw = typeof args.view === 'string' ? args.view : JSON.stringify(args.view);
      if (Buffer.byteLength(raw) > VIEW_LIMITS.bytes) return fail('view_too_large');
      const errors = viewErrors(view);
      if (errors.length) return fail('invalid_arguments', errors);
      const stored = home.publish(userId, view);
      return { ok: true, view: { ...stored, team_id: identity.teamId, app_id: identity.appId, bot_id: identity.botId } };
    },
  },

  'conversations.open': {
    token: 'bot',
    scopes: ['im:write'],
    handle: ({ args, home }) => {
      const users = typeof args.users === 'string' ? args.users.split(',').filter(Boolean) : [];
      if (users.length !== 1) return fail(users.length === 0 ? 'users_list_not_supplied' : 'not_enough_users');
      return { ok: true, channel: { id: home.dmOf(users[0]!) } };
    },
  },

  'users.conversations': {
    token: 'bot',
    scopes: ['channels:read', 'groups:read'],
    handle: ({ args, home }) => {
      const user = typeof args.user === 'string' ? args.user : '';
      if (!user) return fail('user_not_found');
      const types = typeof args.types === 'string' ? args.types.split(',') : ['public_channel'];
      const all = home.channelsOf(user, types);
      // Slack's page: 100 unless asked, under 1,000; the cursor is where the next page starts.
      const limit = Math.min(999, Number(args.limit ?? 100) || 100);
      const start =
        typeof args.cursor === 'string' && args.cursor
          ? Number(
              Buffer.from(args.cursor, 'base64')
                .toString('utf8')
                .replace(/^offset:/, ''),
            )
          : 0;
      if (!Number.isInteger(start) || start < 0) return fail('invalid_cursor');
      const page = all.slice(start, start + limit);
      const next = start + limit < all.length ? Buffer.from(`offset:${start + limit}`).toString('base64') : '';
      return {
        ok: true,
        channels: page.map((id) => ({ id, is_channel: true, is_member: true })),
        response_metadata: { next_cursor: next },
      };
    },
  },
};

// ---- payloads Slack sends from a Home tab ----------------------------------------------------

function eventId(): string {
  return `Ev${randomBytes(5).toString('hex').toUpperCase()}`;
}

/** `app_home_opened` as Slack posts it to the Events API (JSON, signed like any request). */
export function appHomeOpenedBody(input: { user?: string; tab?: 'home' | 'messages'; channel?: string; team_id?: string } = {}): string {
  const now = Date.now() / 1000;
  return JSON.stringify({
    token: VERIFICATION_TOKEN,
    team_id: input.team_id ?? DEFAULT_IDENTITY.teamId,
    api_app_id: DEFAULT_IDENTITY.appId,
    event: {
      type: 'app_home_opened',
      user: input.user ?? DEFAULT_USER_ID,
      channel: input.channel ?? 'D00000000',
      tab: input.tab ?? 'home',
      event_ts: now.toFixed(6),
    },
    type: 'event_callback',
    event_id: eventId(),
    event_time: Math.floor(now),
    authorizations: [
      {
        enterprise_id: null,
        team_id: input.team_id ?? DEFAULT_IDENTITY.teamId,
        user_id: DEFAULT_IDENTITY.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  });
}

function viewOf(view: Obj | undefined): Obj {
  return {
    id: 'V00000000',
    team_id: DEFAULT_IDENTITY.teamId,
    type: 'home',
    blocks: [],
    private_metadata: '',
    callback_id: '',
    state: { values: {} },
    hash: '0.0',
    app_id: DEFAULT_IDENTITY.appId,
    bot_id: DEFAULT_IDENTITY.botId,
    ...view,
  };
}

const userObject = (user: string | undefined) => {
  const id = user ?? DEFAULT_USER_ID;
  return {
    id,
    username: id === DEFAULT_USER_ID ? DEFAULT_USER_NAME : id.toLowerCase(),
    name: id === DEFAULT_USER_ID ? DEFAULT_USER_NAME : id.toLowerCase(),
    team_id: DEFAULT_IDENTITY.teamId,
  };
};

/** A click in a Home tab: `block_actions` with the view as its container, and no channel or response_url. */
export function homeBlockActionsBody(input: { user?: string; view?: Obj; action: Obj & { action_id: string } }): string {
  const view = viewOf(input.view);
  const payload = {
    type: 'block_actions',
    user: userObject(input.user),
    api_app_id: DEFAULT_IDENTITY.appId,
    token: VERIFICATION_TOKEN,
    container: { type: 'view', view_id: view.id },
    trigger_id: `${Date.now()}.${randomBytes(8).toString('hex')}`,
    team: { id: DEFAULT_IDENTITY.teamId, domain: DEFAULT_IDENTITY.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    view,
    actions: [{ block_id: 'home', type: 'button', action_ts: (Date.now() / 1000).toFixed(6), ...input.action }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** An external select in a Home tab asking for its options as the person types. */
export function homeBlockSuggestionBody(input: { user?: string; action_id: string; block_id: string; value: string; view?: Obj }): string {
  const view = viewOf(input.view);
  const payload = {
    type: 'block_suggestion',
    user: userObject(input.user),
    container: { type: 'view', view_id: view.id },
    api_app_id: DEFAULT_IDENTITY.appId,
    token: VERIFICATION_TOKEN,
    action_id: input.action_id,
    block_id: input.block_id,
    value: input.value,
    team: { id: DEFAULT_IDENTITY.teamId, domain: DEFAULT_IDENTITY.teamDomain },
    view,
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
