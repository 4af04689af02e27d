/**
 * Link unfurls as Slack runs them: a person pastes links to one of the app's unfurl domains, Slack
 * sends `link_shared` naming them, and the app may answer with `chat.unfurl` for that message.
 * Slack takes an unfurl only for a link it told the app of in that message (else `cannot_unfurl_url`),
 * and only with the `links:write` scope.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_IDENTITY, DEFAULT_USER_ID } from './identity.js';

/** The links Slack told the app of, per message (`channel:ts`), and the unfurls it took. */
export class FakeSharedLinks {
  private readonly shared = new Map<string, Set<string>>();
  readonly unfurled: { channel: string; ts: string; unfurls: Record<string, unknown> }[] = [];

  /** A person pasted `urls` in a message: the `link_shared` event body to post to the app. */
  share(input: { channel: string; ts: string; urls: readonly string[]; user?: string; eventId?: string }): string {
    this.shared.set(`${input.channel}:${input.ts}`, new Set(input.urls));
    return JSON.stringify({
      token: 'fakeVerificationToken0000',
      team_id: DEFAULT_IDENTITY.teamId,
      api_app_id: DEFAULT_IDENTITY.appId,
      event: {
        type: 'link_shared',
        channel: input.channel,
        is_bot_user_member: true,
        user: input.user ?? DEFAULT_USER_ID,
        message_ts: input.ts,
        unfurl_id: `${input.ts}.${randomBytes(4).toString('hex')}`,
        source: 'conversations_history',
        links: input.urls.map((url) => ({ domain: new URL(url).hostname, url })),
        event_ts: input.ts,
      },
      type: 'event_callback',
      event_id: input.eventId ?? `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: null,
          team_id: DEFAULT_IDENTITY.teamId,
          user_id: DEFAULT_IDENTITY.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
    });
  }

  /** `chat.unfurl`, as Slack answers it. */
  unfurl(args: Record<string, unknown>): { ok: boolean; error?: string } {
    const channel = typeof args.channel === 'string' ? args.channel : undefined;
    const ts = typeof args.ts === 'string' ? args.ts : undefined;
    if (!channel || !ts) return { ok: false, error: 'invalid_arguments' };
    let unfurls: unknown = args.unfurls;
    if (typeof unfurls === 'string') {
      try {
        unfurls = JSON.parse(unfurls);
      } catch {
        return { ok: false, error: 'invalid_unfurls_format' };
      }
    }
    if (!unfurls || typeof unfurls !== 'object' || Array.isArray(unfurls)) return { ok: false, error: 'invalid_unfurls_format' };
    const shared = this.shared.get(`${channel}:${ts}`);
    if (!shared) return { ok: false, error: 'cannot_find_message' };
    for (const url of Object.keys(unfurls)) if (!shared.has(url)) return { ok: false, error: 'cannot_unfurl_url' };
    this.unfurled.push({ channel, ts, unfurls: unfurls as Record<string, unknown> });
    return { ok: true };
  }
}
