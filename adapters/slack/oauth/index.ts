import type { IncomingMessage, ServerResponse } from 'node:http';
import { InstallProvider, SlackOAuthError, type CodedError, type Installation } from '@slack/oauth';
import type { HttpRoute } from '../../../src/http/routes.js';
import type { SlackOAuthConfig } from '../config.js';
import type { Queryable } from '../../../src/db/connection.js';
import type { Logger } from '../../../src/log.js';
import { createSealer } from '../../../src/secrets/seal.js';
import type { InstallScope } from '../../../src/workspace.js';
import { boltLevelFor, boltLogger } from '../bolt-logger.js';
import { SealedInstallationStore } from './installation-store.js';
import { failurePage, INSTALL_PATH, installedPage, installPage, REDIRECT_PATH } from './pages.js';
import { BOT_SCOPES } from './scopes.js';
import { OneTimeStateStore } from './state-store.js';

export { INSTALL_PATH, REDIRECT_PATH } from './pages.js';
export { SealedInstallationStore } from './installation-store.js';

export interface SlackOAuthOptions {
  oauth: SlackOAuthConfig;
  db: Queryable;
  log: Logger;
  /** Web API base (SLACK_API_URL: tests, proxies). */
  apiUrl?: string;
  /** After an installation is stored: resumes what a removal paused; resolves with how many things resumed. */
  onInstalled?(scope: InstallScope, installation: Installation): Promise<number>;
  clock?: () => number;
}

export interface SlackOAuth {
  provider: InstallProvider;
  store: SealedInstallationStore;
  /** `GET /slack/install` and `GET /slack/oauth_redirect`. */
  routes: HttpRoute[];
}

export function scopeOfInstallation(installation: Installation): InstallScope {
  return {
    teamId: installation.team?.id ?? null,
    enterpriseId: installation.enterprise?.id ?? null,
    orgWide: installation.isEnterpriseInstall === true,
  };
}

/**
 * Bolt's logger, except that a refused install (a bad or reused state, a cancelled consent) is not
 * an error with a stack trace: the InstallProvider logs every failure at error level, and the
 * failure page's own line (`an install was refused`, at warn) already says what happened.
 */
function installerLogger(log: Logger) {
  const base = boltLogger(log);
  return {
    ...base,
    error: (...msg: unknown[]) => (msg.some((m) => m instanceof SlackOAuthError) ? base.debug(...msg) : base.error(...msg)),
  };
}

function sendPage(res: ServerResponse, status: number, html: string): void {
  if (res.headersSent) return void res.end();
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(html);
}

/**
 * Installs through Bolt's own OAuth support (@slack/oauth's InstallProvider): the install page
 * and Slack's authorize redirect with a signed, single-use state held in a browser cookie; the
 * callback's `oauth.v2.access` and `auth.test`; installations sealed in the database; and the
 * `authorize` every request of a workspace goes through.
 */
export function createSlackOAuth(options: SlackOAuthOptions): SlackOAuth {
  const { oauth, db, log } = options;
  const clock = options.clock ?? Date.now;
  const store = new SealedInstallationStore(db, createSealer(oauth.encryptionKey), clock);
  const provider = new InstallProvider({
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    stateStore: new OneTimeStateStore(db, oauth.stateSecret, clock),
    installationStore: store,
    installUrlOptions: { scopes: [...BOT_SCOPES] },
    renderHtmlForInstallPath: installPage,
    logger: installerLogger(log),
    logLevel: boltLevelFor(log.level),
    // @slack/web-api joins method names onto the base, so it has to end with a slash.
    ...(options.apiUrl ? { clientOptions: { slackApiUrl: options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/` } } : {}),
  });

  const install = async (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    try {
      await provider.handleInstallPath(req, res);
    } catch (err) {
      log.error({ err }, 'slack: the install page failed');
      sendPage(res, 500, failurePage(undefined, '').html);
    }
  };

  const callback = async (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    await provider.handleCallback(req, res, {
      successAsync: async (installation) => {
        const scope = scopeOfInstallation(installation);
        log.info({ team: scope.teamId, enterprise: scope.enterpriseId, orgWide: scope.orgWide }, 'slack: installed in a workspace');
        let resumed = 0;
        try {
          resumed = (await options.onInstalled?.(scope, installation)) ?? 0;
        } catch (err) {
          log.error({ err, team: scope.teamId }, 'slack: resuming what the workspace had failed');
        }
        sendPage(res, 200, installedPage(installation.team?.name ?? installation.enterprise?.name, resumed));
      },
      failureAsync: async (error: CodedError) => {
        log.warn({ code: error.code, reason: error.message }, 'slack: an install was refused');
        const { status, html } = failurePage(error.code, error.message);
        sendPage(res, status, html);
      },
    });
  };

  return {
    provider,
    store,
    routes: [
      { path: INSTALL_PATH, method: 'GET', handle: install },
      { path: REDIRECT_PATH, method: 'GET', handle: callback },
    ],
  };
}
