const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/**
 * The pages a person sees in the browser around an install: the "Add to Slack" page, and what
 * happened after Slack sent them back. Each failure says what to do next.
 */

export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · polbot</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d1c1d}h1{font-size:1.5rem}a.button{display:inline-block;margin-top:1rem}code{background:#f4f4f4;padding:0 .25em}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export function installPage(authorizeUrl: string): string {
  return page(
    'Add polbot to Slack',
    `<p>polbot answers <code>/pol &lt;name&gt;</code> with a crypto risk card: the Probability of Loss, the rating, category scores, red flags and a chart. Teams can also schedule digests and alerts in their channels.</p>
<a class="button" href="${escapeHtml(authorizeUrl)}"><img alt="Add to Slack" height="40" width="139" src="https://platform.slack-edge.com/img/add_to_slack.png" srcset="https://platform.slack-edge.com/img/add_to_slack.png 1x, https://platform.slack-edge.com/img/add_to_slack@2x.png 2x"></a>
<p>This link is good for 10 minutes, in this browser.</p>`,
  );
}

export function installedPage(teamName: string | undefined, resumed: number): string {
  const where = teamName ? `to ${escapeHtml(teamName)}` : 'to your workspace';
  const back = resumed
    ? `<p>polbot had been here before: the ${resumed === 1 ? 'digest or alert rule' : `${resumed} digests and alert rules`} it had paused ${resumed === 1 ? 'runs' : 'run'} again, and their channels have been told.</p>`
    : '';
  return page(
    'polbot is installed',
    `<p>polbot was added ${where}.</p><p>Invite it to a channel with <code>/invite @polbot</code>, then type <code>/pol help</code>.</p>${back}<p>You can close this page.</p>`,
  );
}

export interface FailurePage {
  status: number;
  html: string;
}

const START_AGAIN = `<p><a href="${INSTALL_PATH}">Start the install again</a> from this browser.</p>`;

/** What went wrong, by @slack/oauth's error code, said so a person knows what to do. */
export function failurePage(code: string | undefined, message: string): FailurePage {
  if (code === 'slack_oauth_invalid_state' || code === 'slack_oauth_missing_state') {
    const why = /expired/.test(message)
      ? 'The install link expired: it is good for 10 minutes.'
      : /already used/.test(message)
        ? 'This install link was already used.'
        : 'This install link did not start in this browser, or was changed on the way.';
    return { status: 400, html: page('The install could not be finished', `<p>${why}</p>${START_AGAIN}`) };
  }
  if (code === 'slack_oauth_authorization_error' && /cancel/i.test(message)) {
    return {
      status: 200,
      html: page('polbot was not added', `<p>The install was cancelled in Slack; nothing was changed.</p>${START_AGAIN}`),
    };
  }
  if (code === 'slack_oauth_missing_code') {
    return { status: 400, html: page('The install could not be finished', `<p>Slack's answer was missing its code.</p>${START_AGAIN}`) };
  }
  return {
    status: 502,
    html: page(
      'The install could not be finished',
      `<p>Slack did not confirm the install, or it could not be saved. Nothing was added.</p>${START_AGAIN}`,
    ),
  };
}
