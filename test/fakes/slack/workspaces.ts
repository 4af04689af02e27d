/**
 * Many workspaces installing one app through OAuth, as Slack runs it: a person allows the app at
 * Slack's authorize page (here `authorize`, which hands out the one-time code Slack would put in
 * the redirect), the app exchanges the code at `oauth.v2.access` with its client id and secret,
 * and gets that workspace's own bot token. Each token acts as its own workspace (auth.test, who
 * posts), a token reaches only its workspace's channels, and uninstalling revokes the workspace's
 * tokens.
 */
import { randomBytes } from 'node:crypto';
import { secretWatch } from '../../helpers/secret-watch.js';
import type { FakeIdentity } from './identity.js';
import type { ApiBody } from './web-api.js';

/** Slack's codes are good for 10 minutes, and for one exchange. */
const CODE_TTL_MS = 10 * 60_000;

export interface WorkspaceSpec {
  teamId: string;
  teamName?: string;
  /** Channels of this workspace: other workspaces' tokens get `channel_not_found` there. */
  channels?: readonly string[];
  /** The person allowing the install. */
  userId?: string;
}

export interface InstalledWorkspace {
  identity: FakeIdentity;
  token: string;
  revoked: boolean;
}

interface IssuedCode {
  spec: WorkspaceSpec;
  issuedAt: number;
  used: boolean;
}

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export class FakeWorkspaces {
  private readonly codes = new Map<string, IssuedCode>();
  private readonly byToken = new Map<string, InstalledWorkspace>();
  private readonly byTeam = new Map<string, InstalledWorkspace>();
  private readonly channelOwners = new Map<string, string>();

  constructor(
    private readonly client: OAuthClient | undefined,
    private readonly appId: string,
    private readonly scopes: string,
  ) {}

  /** A person allowed the app for `spec`'s workspace at Slack: the code Slack redirects back with. */
  authorize(spec: WorkspaceSpec, now: number): string {
    for (const channel of spec.channels ?? []) this.channelOwners.set(channel, spec.teamId);
    const code = `${spec.teamId}.${randomBytes(12).toString('hex')}`;
    this.codes.set(code, { spec, issuedAt: now, used: false });
    return code;
  }

  /** `oauth.v2.access`: the app's client credentials (form fields or HTTP Basic) and a code. */
  exchange(args: Record<string, unknown>, authorization: string | undefined, now: number): ApiBody {
    if (!this.client) return { ok: false, error: 'invalid_client_id' };
    const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const clientId = typeof args.client_id === 'string' ? args.client_id : basicId;
    const clientSecret = typeof args.client_secret === 'string' ? args.client_secret : basicSecret;
    secretWatch.secret(clientSecret, 'Slack client secret sent to the fake');
    if (clientId !== this.client.clientId) return { ok: false, error: 'invalid_client_id' };
    if (clientSecret !== this.client.clientSecret) return { ok: false, error: 'bad_client_secret' };
    const issued = typeof args.code === 'string' ? this.codes.get(args.code) : undefined;
    if (!issued || now - issued.issuedAt > CODE_TTL_MS) return { ok: false, error: 'invalid_code' };
    if (issued.used) return { ok: false, error: 'code_already_used' };
    issued.used = true;
    const installed = this.install(issued.spec);
    return {
      ok: true,
      app_id: this.appId,
      authed_user: { id: issued.spec.userId ?? 'U0INSTALLR' },
      scope: this.scopes,
      token_type: 'bot',
      access_token: installed.token,
      bot_user_id: installed.identity.botUserId,
      team: { id: installed.identity.teamId, name: installed.identity.teamName },
      enterprise: null,
      is_enterprise_install: false,
    };
  }

  /** A new token for the workspace; a token it had before stops working, as after a reinstall. */
  private install(spec: WorkspaceSpec): InstalledWorkspace {
    const previous = this.byTeam.get(spec.teamId);
    if (previous) previous.revoked = true;
    const suffix = spec.teamId.replace(/^T/, '').slice(0, 8).toUpperCase();
    const token = `xoxb-${suffix}-${randomBytes(16).toString('hex')}`;
    secretWatch.secret(token, `fake Slack bot token of ${spec.teamId}`);
    const installed: InstalledWorkspace = {
      token,
      revoked: false,
      identity: {
        teamId: spec.teamId,
        teamName: spec.teamName ?? spec.teamId,
        teamDomain: spec.teamId.toLowerCase(),
        botUserId: `U0BOT${suffix}`,
        botUserName: 'polbot',
        botId: `B0BOT${suffix}`,
        appId: this.appId,
      },
    };
    this.byToken.set(token, installed);
    this.byTeam.set(spec.teamId, installed);
    return installed;
  }

  /** The workspace a token belongs to, or undefined for a token the fake never issued this way. */
  ofToken(token: string | undefined): InstalledWorkspace | undefined {
    return token === undefined ? undefined : this.byToken.get(token);
  }

  /** The current installation of a workspace. */
  ofTeam(teamId: string): InstalledWorkspace | undefined {
    const installed = this.byTeam.get(teamId);
    return installed && !installed.revoked ? installed : undefined;
  }

  /** The workspace a channel belongs to, when a test said so. */
  ownerOf(channel: unknown): string | undefined {
    return typeof channel === 'string' ? this.channelOwners.get(channel) : undefined;
  }

  /** The app was removed from the workspace: its tokens stop working (`token_revoked`). */
  uninstall(teamId: string): void {
    const installed = this.byTeam.get(teamId);
    if (installed) installed.revoked = true;
  }
}
