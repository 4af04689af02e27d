import { createSlackOAuth, type SlackAdapter, type SlackOAuth, type WorkspaceEvents } from '../adapters/slack/index.js';
import type { AlertStore } from '../src/alerts/store.js';
import { ConfigError, type Config } from './config.js';
import type { Db } from '../src/db/connection.js';
import type { DigestStore } from '../src/digest/store.js';
import type { Logger } from '../src/log.js';
import type { Reply } from '../src/reply/model.js';
import { SealError } from '../src/secrets/seal.js';
import { SeenEvents } from '../adapters/slack/events-seen.js';
import { backNotice, WorkspaceLifecycle } from '../src/installs/lifecycle.js';

export interface SlackWorkspaces {
  /** Set when Slack runs through OAuth (SLACK_CLIENT_ID...). */
  oauth?: SlackOAuth;
  workspaces: WorkspaceEvents;
}

export interface SlackWorkspacesOptions {
  slack: NonNullable<Config['slack']>;
  db: Db;
  digests: DigestStore;
  alerts: AlertStore;
  /** Fills in the typed form of commands a notice names (`core.complete`). */
  complete: (reply: Reply) => Reply;
  /** The adapter, once started: a reinstall's notices are posted through it. */
  adapter: () => SlackAdapter | null;
  log: Logger;
}

/**
 * Slack workspaces coming and going: installations (with OAuth), a removal pausing what the
 * workspace had, a reinstall resuming it and saying so in each of its channels, and each event
 * processed once across replicas.
 */
export async function slackWorkspaces(o: SlackWorkspacesOptions): Promise<SlackWorkspaces> {
  const { log } = o;
  const lifecycle = new WorkspaceLifecycle('slack', o.digests, o.alerts);
  const oauth = o.slack.oauth
    ? createSlackOAuth({
        oauth: o.slack.oauth,
        db: o.db,
        log,
        ...(o.slack.apiUrl ? { apiUrl: o.slack.apiUrl } : {}),
        onInstalled: async (scope) => {
          const back = await lifecycle.returned(scope);
          for (const channel of back) {
            const posted = o.adapter()?.postReply(channel.channelId, o.complete(backNotice(channel)), { workspace: scope });
            await posted?.catch((err: unknown) =>
              log.warn({ err, channel: channel.channelId }, 'slack: could not say in a channel that polbot is back'),
            );
          }
          if (back.length) log.info({ team: scope.teamId, channels: back.length }, 'slack: what the workspace had runs again');
          return back.reduce((n, c) => n + c.digests.length + c.alerts.length, 0);
        },
      })
    : undefined;
  if (oauth) {
    try {
      await oauth.store.checkKey();
    } catch (err) {
      throw err instanceof SealError ? new ConfigError(err.message) : err;
    }
  }
  const seen = new SeenEvents(o.db);
  return {
    ...(oauth ? { oauth } : {}),
    workspaces: {
      async removed(scope) {
        const hadTokens = oauth
          ? await oauth.store.remove({
              teamId: scope.teamId ?? undefined,
              enterpriseId: scope.enterpriseId ?? undefined,
              isEnterpriseInstall: scope.orgWide,
            })
          : false;
        const paused = await lifecycle.removed(scope);
        log.info(
          { team: scope.teamId, enterprise: scope.enterpriseId, tokensDeleted: hadTokens, ...paused },
          'slack: the workspace removed polbot; its digests and alerts are paused',
        );
      },
      firstDelivery: (eventId) => seen.first(eventId),
    },
  };
}
