import { LogLevel, webApi } from '@slack/bolt';
import { DiscordAPIError, HTTPError, REST, Routes } from 'discord.js';
import { DeliveryError, type Deliverer } from '../../src/digest/deliver.js';
import type { Reply } from '../../src/reply/model.js';
import { renderText } from './render.js';

/**
 * TEST DELIVERERS. Thin stand-ins for the Slack and Discord adapters, which own the real rendering
 * and error mapping: just enough to drive the real client libraries against the fake platforms.
 *
 * With `searchHistory`, `alreadyDelivered` looks for the key in the channel's recent messages
 * (Slack conversations.history, Discord GET /channels/{id}/messages), as a real adapter would. The
 * fakes do not serve those reads; the crash test puts a proxy in front that does.
 */
export interface TestDelivererOptions {
  apiUrl: string;
  token: string;
  searchHistory?: boolean;
}

const SLACK_CHANNEL_ERRORS: Record<string, string> = {
  channel_not_found: 'Slack: the channel was not found (deleted, or the bot cannot see it)',
  not_in_channel: 'Slack: the bot is not a member of the channel; invite it, then resume the digest',
  is_archived: 'Slack: the channel is archived',
  account_inactive: 'Slack: the bot account is inactive (was the app removed?)',
  invalid_auth: 'Slack: the bot token is no longer valid',
  missing_scope: 'Slack: the app lacks the permission to post here (chat:write)',
};
const SLACK_TRANSIENT = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

function slackError(err: unknown): DeliveryError {
  const e = err as { code?: string; data?: { error?: string }; retryAfter?: number; statusCode?: number };
  const { ErrorCode } = webApi;
  if (e.code === ErrorCode.PlatformError) {
    const code = e.data?.error ?? 'unknown_error';
    if (code in SLACK_CHANNEL_ERRORS) return new DeliveryError(SLACK_CHANNEL_ERRORS[code]!, { permanent: true, scope: 'channel', cause: err });
    if (SLACK_TRANSIENT.has(code)) return new DeliveryError(`Slack is having trouble (${code})`, { permanent: false, cause: err });
    return new DeliveryError(`Slack refused the message (${code})`, { permanent: true, scope: 'message', cause: err });
  }
  if (e.code === ErrorCode.RateLimitedError) return new DeliveryError('Slack rate limit', { permanent: false, retryAfterMs: (e.retryAfter ?? 1) * 1000, cause: err });
  if (e.code === ErrorCode.HTTPError && e.statusCode !== undefined && e.statusCode < 500 && e.statusCode !== 429) {
    return new DeliveryError(`Slack refused the message (HTTP ${e.statusCode})`, { permanent: true, scope: 'message', cause: err });
  }
  return new DeliveryError('Slack could not be reached', { permanent: false, cause: err });
}

export function testSlackDeliverer(o: TestDelivererOptions): Deliverer {
  const client = new webApi.WebClient(o.token, { slackApiUrl: o.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, logLevel: LogLevel.ERROR });
  return {
    platform: 'slack',
    async post(channelId: string, reply: Reply) {
      try {
        await client.chat.postMessage({ channel: channelId, text: renderText(reply), unfurl_links: false, unfurl_media: false });
      } catch (err) {
        throw slackError(err);
      }
    },
    ...(o.searchHistory
      ? {
          async alreadyDelivered(channelId: string, key: string) {
            try {
              const history = await client.conversations.history({ channel: channelId, limit: 100 });
              return (history.messages ?? []).some((m) => (m.text ?? '').includes(key));
            } catch (err) {
              throw slackError(err);
            }
          },
        }
      : {}),
  };
}

const DISCORD_CHANNEL_ERRORS: Record<number, string> = {
  10003: 'Discord: the channel no longer exists',
  50001: 'Discord: the bot has no access to the channel (was it removed?)',
  50013: 'Discord: the bot lacks permission to post in the channel',
};

function discordError(err: unknown): DeliveryError {
  if (err instanceof DiscordAPIError) {
    const reason = typeof err.code === 'number' ? DISCORD_CHANNEL_ERRORS[err.code] : undefined;
    if (reason) return new DeliveryError(reason, { permanent: true, scope: 'channel', cause: err });
    if (err.status === 401) return new DeliveryError('Discord: the bot token is no longer valid', { permanent: true, scope: 'channel', cause: err });
    if (err.status >= 500 || err.status === 429) return new DeliveryError(`Discord is having trouble (HTTP ${err.status})`, { permanent: false, cause: err });
    return new DeliveryError(`Discord refused the message (${err.code})`, { permanent: true, scope: 'message', cause: err });
  }
  if (err instanceof HTTPError) return new DeliveryError(`Discord is having trouble (HTTP ${err.status})`, { permanent: err.status < 500 && err.status !== 429, scope: 'message', cause: err });
  return new DeliveryError('Discord could not be reached', { permanent: false, cause: err });
}

export function testDiscordDeliverer(o: TestDelivererOptions): Deliverer & { rest: REST } {
  // Sweepers off: they are timers that would outlive the test. Requests go through the global
  // fetch, the same implementation as the global FormData the library builds attachments with:
  // the undici copy loaded for the data layer does not recognise that FormData.
  const rest = new REST({
    api: o.apiUrl,
    retries: 0,
    timeout: 5_000,
    hashSweepInterval: 0,
    handlerSweepInterval: 0,
    makeRequest: (url, init) => fetch(url, init as RequestInit),
  }).setToken(o.token);
  return {
    platform: 'discord',
    rest,
    async post(channelId: string, reply: Reply) {
      const title = 'title' in reply && reply.title ? reply.title.slice(0, 256) : undefined;
      const description = renderText(reply);
      const image = 'image' in reply && reply.image?.kind === 'png' ? reply.image : undefined;
      const embed = { ...(title ? { title } : {}), description, ...(image ? { image: { url: `attachment://${image.filename}` } } : {}) };
      try {
        await rest.post(Routes.channelMessages(channelId), {
          body: { embeds: [embed], allowed_mentions: { parse: [] } },
          ...(image ? { files: [{ name: image.filename, data: image.png, contentType: 'image/png' }] } : {}),
        });
      } catch (err) {
        throw discordError(err);
      }
    },
    ...(o.searchHistory
      ? {
          async alreadyDelivered(channelId: string, key: string) {
            try {
              const messages = (await rest.get(Routes.channelMessages(channelId), { query: new URLSearchParams({ limit: '100' }) })) as { embeds?: { description?: string }[]; content?: string }[];
              return messages.some((m) => [m.content ?? '', ...(m.embeds ?? []).map((e) => e.description ?? '')].some((t) => t.includes(key)));
            } catch (err) {
              throw discordError(err);
            }
          },
        }
      : {}),
  };
}
