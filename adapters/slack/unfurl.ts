import type { App } from '@slack/bolt';
import type { Caller, RunResult } from '../../commands/core/index.js';
import { inDomains } from '../../src/links/rules.js';
import type { Logger } from '../../src/log.js';
import { renderReply } from './blocks.js';
import { slackErrorCode } from './delivery.js';

/**
 * Links pasted in Slack, unfurled: `link_shared` for the operator's domains (POLBOT_UNFURL_DOMAINS,
 * the manifest's `app_unfurl_domains`) answered with `chat.unfurl`, each link as the `link`
 * command shows it, a compact card with a Full card button. A link that names no single project
 * or exchange (src/links/rules.ts) is left as Slack shows it. The command reads through the same
 * cache as cards, so the same link pasted again is answered from it.
 */

export interface UnfurlOptions {
  domains: readonly string[];
  run(text: string, caller: Caller): Promise<RunResult>;
  callerOf(userId: string, channelId: string, who: { teamId?: string }): Caller;
  log: Logger;
  track<T>(work: Promise<T>): Promise<T>;
}

/** Slack takes at most this many links a message; more are left as they are. */
const MAX_LINKS = 10;

export function registerUnfurls(app: App, o: UnfurlOptions): void {
  app.event('link_shared', async ({ event, body, client }) => {
    const e = event as {
      channel: string;
      message_ts: string;
      user: string;
      links?: { url: string; domain: string }[];
      unfurl_id?: string;
      source?: string;
    };
    const links = [...new Set((e.links ?? []).map((l) => l.url))].filter((url) => inDomains(url, o.domains)).slice(0, MAX_LINKS);
    if (!links.length) return;
    const caller = o.callerOf(e.user, e.channel, body.team_id ? { teamId: body.team_id } : {});
    await o.track(
      (async () => {
        const answers = await Promise.all(links.map(async (url) => ({ url, result: await o.run(`link ${url}`, caller) })));
        const unfurls = Object.fromEntries(
          answers.filter((a) => a.result.reply.kind === 'card').map((a) => [a.url, { blocks: renderReply(a.result.reply).blocks }]),
        );
        if (!Object.keys(unfurls).length) return;
        try {
          await client.chat.unfurl({ channel: e.channel, ts: e.message_ts, unfurls } as Parameters<typeof client.chat.unfurl>[0]);
          o.log.info({ links: Object.keys(unfurls).length }, 'slack: links unfurled');
        } catch (err) {
          o.log.warn({ code: slackErrorCode(err) ?? 'unknown_error' }, 'slack: links could not be unfurled');
        }
      })(),
    );
  });
}
