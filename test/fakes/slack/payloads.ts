import { randomBytes } from 'node:crypto';
import { DEFAULT_CHANNEL_ID, DEFAULT_CHANNEL_NAME, DEFAULT_IDENTITY, DEFAULT_USER_ID, DEFAULT_USER_NAME } from './identity.js';

/** The deprecated verification token Slack still puts in every payload. */
const VERIFICATION_TOKEN = 'fakeVerificationToken0000';

export interface SlashCommandInput {
  command?: string;
  text?: string;
  /** Required so a handler's respond() can never reach a real Slack host by default. */
  response_url: string;
  user_id?: string;
  user_name?: string;
  channel_id?: string;
  channel_name?: string;
  team_id?: string;
  team_domain?: string;
  trigger_id?: string;
  api_app_id?: string;
  /** Extra fields (enterprise_id...) are sent as given. */
  [field: string]: string | undefined;
}

/** The fields of a slash command in the order Slack sends them; Socket Mode delivers the same object. */
export function slashCommandPayload(input: SlashCommandInput): Record<string, string> {
  const known: Record<string, string> = {
    token: VERIFICATION_TOKEN,
    team_id: input.team_id ?? DEFAULT_IDENTITY.teamId,
    team_domain: input.team_domain ?? DEFAULT_IDENTITY.teamDomain,
    channel_id: input.channel_id ?? DEFAULT_CHANNEL_ID,
    channel_name: input.channel_name ?? DEFAULT_CHANNEL_NAME,
    user_id: input.user_id ?? DEFAULT_USER_ID,
    user_name: input.user_name ?? DEFAULT_USER_NAME,
    command: input.command ?? '/pol',
    text: input.text ?? '',
    api_app_id: input.api_app_id ?? DEFAULT_IDENTITY.appId,
    is_enterprise_install: 'false',
    response_url: input.response_url,
    trigger_id: input.trigger_id ?? triggerId(),
  };
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined && !(key in known)) known[key] = value;
  }
  return known;
}

/** Form-encoded exactly as Slack posts a slash command to a Request URL. */
export function slashCommandBody(input: SlashCommandInput): string {
  return new URLSearchParams(slashCommandPayload(input)).toString();
}

export interface ActionInput {
  action_id: string;
  value?: string;
  block_id?: string;
  type?: string;
  text?: { type: 'plain_text'; text: string; emoji?: boolean };
  action_ts?: string;
  [field: string]: unknown;
}

export interface BlockActionsInput {
  actions: ActionInput[];
  response_url: string;
  /** A user id, or the full user object. */
  user?: string | { id: string; username?: string; name?: string; team_id?: string };
  /** A channel id, or the full channel object. */
  channel?: string | { id: string; name?: string };
  /** The message holding the clicked block; its `ts` becomes the container's message_ts. */
  message?: Record<string, unknown> & { ts?: string };
  container?: Record<string, unknown>;
  team?: { id: string; domain: string } | null;
  state?: Record<string, unknown>;
  trigger_id?: string;
  api_app_id?: string;
  [field: string]: unknown;
}

/** A `block_actions` interaction payload shaped like @slack/bolt's BlockAction type. */
export function blockActionsPayload(input: BlockActionsInput): Record<string, unknown> {
  const { actions, response_url, user, channel, message, container, team, state, trigger_id, api_app_id, ...extra } = input;
  const userObject =
    typeof user === 'object'
      ? { username: user.id, name: user.id, team_id: DEFAULT_IDENTITY.teamId, ...user }
      : { id: user ?? DEFAULT_USER_ID, username: DEFAULT_USER_NAME, name: DEFAULT_USER_NAME, team_id: DEFAULT_IDENTITY.teamId };
  const channelObject =
    typeof channel === 'object'
      ? { name: DEFAULT_CHANNEL_NAME, ...channel }
      : { id: channel ?? DEFAULT_CHANNEL_ID, name: DEFAULT_CHANNEL_NAME };
  const messageTs = message?.ts ?? actionTs();
  return {
    type: 'block_actions',
    user: userObject,
    api_app_id: api_app_id ?? DEFAULT_IDENTITY.appId,
    token: VERIFICATION_TOKEN,
    container: container ?? { type: 'message', message_ts: messageTs, channel_id: channelObject.id, is_ephemeral: false },
    trigger_id: trigger_id ?? triggerId(),
    team: team === undefined ? { id: DEFAULT_IDENTITY.teamId, domain: DEFAULT_IDENTITY.teamDomain } : team,
    enterprise: null,
    is_enterprise_install: false,
    channel: channelObject,
    ...(message ? { message: { type: 'message', ...message, ts: messageTs } } : {}),
    state: state ?? { values: {} },
    response_url,
    actions: actions.map((action) => ({
      block_id: 'actions',
      type: 'button',
      text: { type: 'plain_text', text: action.action_id, emoji: true },
      action_ts: actionTs(),
      ...action,
    })),
    ...extra,
  };
}

/** Form-encoded `payload=<json>`, as Slack posts interactions to a Request URL. */
export function blockActionsBody(input: BlockActionsInput): string {
  return new URLSearchParams({ payload: JSON.stringify(blockActionsPayload(input)) }).toString();
}

/** A message shortcut used on a message, as Slack posts it (`message_action`), form-encoded. */
export function messageActionBody(input: {
  callback_id: string;
  message: { text: string; ts?: string; blocks?: unknown[] };
  channel?: string;
  response_url: string;
  user?: string;
}): string {
  const channel = input.channel ?? DEFAULT_CHANNEL_ID;
  const ts = input.message.ts ?? actionTs();
  const payload = {
    type: 'message_action',
    callback_id: input.callback_id,
    trigger_id: triggerId(),
    message_ts: ts,
    response_url: input.response_url,
    message: { type: 'message', ts, text: input.message.text, ...(input.message.blocks ? { blocks: input.message.blocks } : {}) },
    user: { id: input.user ?? DEFAULT_USER_ID, name: DEFAULT_USER_NAME, username: DEFAULT_USER_NAME, team_id: DEFAULT_IDENTITY.teamId },
    channel: { id: channel, name: DEFAULT_CHANNEL_NAME },
    team: { id: DEFAULT_IDENTITY.teamId, domain: 'fake' },
    token: VERIFICATION_TOKEN,
    action_ts: actionTs(),
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

function triggerId(): string {
  const digits = (n: number): string => String(Math.floor(Math.random() * 10 ** n)).padStart(n, '0');
  return `${digits(13)}.${digits(12)}.${randomBytes(16).toString('hex')}`;
}

function actionTs(): string {
  return (Date.now() / 1000).toFixed(6);
}

export interface BlockSuggestionInput {
  action_id: string;
  block_id: string;
  /** What the person has typed into the external select so far. */
  value: string;
  channel?: string;
}

/** A `block_suggestion` payload: Slack asking for an external select's options as the person types. */
export function blockSuggestionBody(input: BlockSuggestionInput): string {
  const payload = {
    type: 'block_suggestion',
    user: { id: DEFAULT_USER_ID, username: DEFAULT_USER_NAME, name: DEFAULT_USER_NAME, team_id: DEFAULT_IDENTITY.teamId },
    container: { type: 'message', message_ts: actionTs(), channel_id: input.channel ?? DEFAULT_CHANNEL_ID, is_ephemeral: false },
    api_app_id: DEFAULT_IDENTITY.appId,
    token: VERIFICATION_TOKEN,
    action_id: input.action_id,
    block_id: input.block_id,
    value: input.value,
    team: { id: DEFAULT_IDENTITY.teamId, domain: DEFAULT_IDENTITY.teamDomain },
    channel: { id: input.channel ?? DEFAULT_CHANNEL_ID, name: DEFAULT_CHANNEL_NAME },
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
