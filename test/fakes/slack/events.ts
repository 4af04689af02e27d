/**
 * Events API bodies about an installation, as Slack sends them (JSON, signed like everything
 * else): `app_uninstalled` when a workspace removes the app, and `tokens_revoked` when its tokens
 * are revoked. Each carries an `event_id`; Slack retries with the same one.
 */
import { randomBytes } from 'node:crypto';

export interface InstallEventInput {
  teamId: string;
  appId?: string;
  /** Slack's id of this event; a retry carries the same. */
  eventId?: string;
  enterpriseId?: string;
}

const newEventId = (): string => `Ev${randomBytes(5).toString('hex').toUpperCase()}`;

function envelope(input: InstallEventInput, event: Record<string, unknown>): string {
  return JSON.stringify({
    token: 'fakeVerificationToken0000',
    team_id: input.teamId,
    enterprise_id: input.enterpriseId ?? null,
    api_app_id: input.appId ?? 'A0FAKEAPP1',
    event: { ...event, event_ts: `${Math.floor(Date.now() / 1000)}.000100` },
    type: 'event_callback',
    event_id: input.eventId ?? newEventId(),
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      { enterprise_id: input.enterpriseId ?? null, team_id: input.teamId, user_id: 'U0BOT', is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
  });
}

export function appUninstalledBody(input: InstallEventInput): string {
  return envelope(input, { type: 'app_uninstalled' });
}

export function tokensRevokedBody(input: InstallEventInput & { botUserIds?: string[]; userIds?: string[] }): string {
  return envelope(input, {
    type: 'tokens_revoked',
    tokens: { ...(input.userIds ? { oauth: input.userIds } : {}), ...(input.botUserIds ? { bot: input.botUserIds } : {}) },
  });
}
