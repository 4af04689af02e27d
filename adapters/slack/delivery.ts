import { webApi, type RespondArguments, type RespondFn } from '@slack/bolt';
import type { RunResult } from '../../commands/core/index.js';
import type { Logger } from '../../src/log.js';
import { mapInline, personName } from '../../src/reply/inline.js';
import { audienceOf, type Reply, type ReplyImage } from '../../src/reply/model.js';
import { renderReply, type SlackMessage } from './blocks.js';
import { flat, plain } from './escape.js';
import { clip } from './limits.js';
import { channelArchived, chartNotAttached, deliveryFailed, notInChannel, safeCode } from './notices.js';

/**
 * Where answers go. Cards, tables and charts are for the whole channel; choices, errors and
 * help are for the person who asked. Nothing here decides *what* to answer: that is the core's.
 */

export type Placement = 'channel' | 'ephemeral';

/** The reply says who it is for; Slack shows the asker's alone as an ephemeral message. */
export function placementOf(result: RunResult): Placement {
  return audienceOf(result.reply) === 'asker' ? 'ephemeral' : 'channel';
}

/** Slack's error code from a Web API failure (`not_in_channel`...), or a coarse kind for transport failures. */
export function slackErrorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; data?: { error?: unknown } } | null;
  switch (e?.code) {
    case webApi.ErrorCode.PlatformError:
      return typeof e.data?.error === 'string' ? e.data.error : 'platform_error';
    case webApi.ErrorCode.RateLimitedError:
      return 'ratelimited';
    case webApi.ErrorCode.HTTPError:
      return 'http_error';
    case webApi.ErrorCode.RequestError:
      return 'request_error';
    default:
      return undefined;
  }
}

/** A Web API failure reduced to its Slack error code: safe to log, to show, and to branch on. */
export class SlackDeliveryError extends Error {
  override name = 'SlackDeliveryError';
  constructor(
    readonly code: string,
    readonly channel: string,
  ) {
    super(`Slack refused the message for ${channel}: ${code}`);
  }
}

/** Channels the bot cannot post into until someone adds it. */
export const NOT_A_MEMBER = new Set(['not_in_channel', 'channel_not_found']);

function imageOf(reply: Reply): ReplyImage | undefined {
  return reply.kind === 'card' || reply.kind === 'table' || reply.kind === 'text' ? reply.image : undefined;
}

/** The file's title in Slack: the first clause of the chart's description ("PoL of Pepe over 90 days"). */
function fileTitle(image: Extract<ReplyImage, { kind: 'png' }>, reply: Reply): string {
  // Split at ": " or ". " only, so names such as "Gate.io" stay whole.
  const clause = flat(image.alt).split(/[:.]\s/)[0] ?? '';
  const title = clause.length >= 8 ? clause : 'title' in reply && typeof reply.title === 'string' ? reply.title : image.filename;
  return clip(plain(flat(title)), 200);
}

export interface Posted {
  ts?: string;
  /** Set when the message went out but its chart did not; the Slack error code. */
  chartError?: string;
}

/** Slack refused the message because it could not download an image block's picture. */
function imageNotDownloaded(err: unknown): boolean {
  const data = (err as { data?: { error?: unknown; errors?: unknown; response_metadata?: { messages?: unknown } } } | null)?.data;
  if (data?.error !== 'invalid_blocks') return false;
  const messages = [data.errors, data.response_metadata?.messages].flatMap((m) => (Array.isArray(m) ? m : []));
  return messages.some((m) => typeof m === 'string' && m.includes('downloading image failed'));
}

/** The reply without its hosted chart, saying so: what is left is still the answer. */
function withoutImage(reply: Reply): Reply {
  if (!('image' in reply) || reply.image?.kind !== 'url') return reply;
  const { image: _image, ...rest } = reply;
  const note = 'The chart could not be loaded from the chart service.';
  return rest.footer ? { ...rest, footer: { ...rest.footer, notes: [...(rest.footer.notes ?? []), note] } } : rest;
}

/**
 * The reply with every person named in words. Slack notifies whoever a new message mentions, and
 * has no way to post a mention that stays quiet; an update notifies nobody of the mentions it
 * gains, so redraws (and answers only the asker sees) keep the mentions.
 */
function namesOnly(reply: Reply): Reply {
  return mapInline(reply, (text) =>
    typeof text === 'string' ? text : text.map((part) => (typeof part === 'object' && 'user' in part ? personName(part) : part)),
  );
}

/** Sends again after a 429 at most this many times, each wait at most MAX_RATE_WAIT_MS. */
const RATE_LIMIT_RETRIES = 3;
const MAX_RATE_WAIT_MS = 30_000;

/**
 * Runs a Web API call, and again after each 429 once Retry-After has passed. Only matters with a
 * client that rejects rate-limited calls (the adapter's client for scheduled posts, which never
 * repeats a request by itself): a 429 means Slack took nothing, so sending again cannot post
 * twice, unlike a repeat after a timeout or a 5xx. Other clients wait out 429s themselves.
 */
async function afterRateLimits<T>(call: () => Promise<T>): Promise<T> {
  for (let retries = 0; ; retries++) {
    try {
      return await call();
    } catch (err) {
      const e = err as { code?: unknown; retryAfter?: unknown } | null;
      if (e?.code !== webApi.ErrorCode.RateLimitedError || typeof e.retryAfter !== 'number' || retries >= RATE_LIMIT_RETRIES) throw err;
      const waitMs = Math.min(MAX_RATE_WAIT_MS, e.retryAfter * 1_000);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/**
 * Posts a reply into a channel as the bot: the blocks first, then the PNG chart (if any) as a
 * file in the same place. A failed chart costs the chart, not the answer.
 */
export async function postToChannel(
  client: webApi.WebClient,
  log: Logger,
  channel: string,
  reply: Reply,
  threadTs?: string,
): Promise<Posted> {
  const post = (r: Reply) => {
    const message = renderReply(namesOnly(r));
    return afterRateLimits(() =>
      client.chat.postMessage({
        channel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        unfurl_media: false,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      }),
    );
  };
  let ts: string | undefined;
  try {
    ts = (await post(reply)).ts;
  } catch (err) {
    // A chart Slack cannot fetch costs the chart, not the answer.
    if (!imageNotDownloaded(err) || withoutImage(reply) === reply)
      throw new SlackDeliveryError(slackErrorCode(err) ?? 'unknown_error', channel);
    log.warn({ channel }, 'slack: chart image could not be downloaded by Slack; posted without it');
    try {
      ts = (await post(withoutImage(reply))).ts;
    } catch (again) {
      throw new SlackDeliveryError(slackErrorCode(again) ?? 'unknown_error', channel);
    }
  }

  if (reply.kind === 'table' && reply.file) {
    const { file } = reply;
    const upload = { channel_id: channel, file: file.bytes, filename: file.filename, title: clip(plain(file.title), 250) };
    await afterRateLimits(() => client.files.uploadV2(threadTs ? { ...upload, thread_ts: threadTs } : upload)).catch((err: unknown) => {
      // The table is posted; the file that goes with it failing is logged, not lost silently.
      log.warn({ channel, fileError: slackErrorCode(err) ?? 'upload_failed' }, 'slack: file upload failed');
    });
  }
  const image = imageOf(reply);
  if (image?.kind !== 'png') return { ...(ts ? { ts } : {}) };
  try {
    const file = {
      channel_id: channel,
      file: image.png,
      filename: image.filename,
      title: fileTitle(image, reply),
      alt_text: clip(plain(flat(image.alt)), 1000),
    };
    await afterRateLimits(() => client.files.uploadV2(threadTs ? { ...file, thread_ts: threadTs } : file));
    return { ...(ts ? { ts } : {}) };
  } catch (err) {
    const chartError = slackErrorCode(err) ?? 'upload_failed';
    log.warn({ channel, chartError }, 'slack: chart upload failed');
    return { ...(ts ? { ts } : {}), chartError };
  }
}

/**
 * Redraws a message the bot posted, in place (an alert acknowledged or resolved): the blocks
 * change, the files posted with it stay. Throws SlackDeliveryError (`message_not_found`...).
 */
export async function updateInChannel(client: webApi.WebClient, channel: string, ts: string, reply: Reply): Promise<void> {
  const message = renderReply(withoutImage(reply));
  try {
    await client.chat.update({ channel, ts, text: message.text, blocks: message.blocks });
  } catch (err) {
    throw new SlackDeliveryError(slackErrorCode(err) ?? 'unknown_error', channel);
  }
}

export interface InteractionTarget {
  client: webApi.WebClient;
  respond: RespondFn;
  /** Where the person typed the command or clicked the button. */
  channel: string;
  /** Thread to answer in, when the interaction came from a message in the channel. */
  threadTs?: string;
  /**
   * An ephemeral message of ours that this answer supersedes (the "Looking up…" acknowledgement,
   * or the choice that was clicked): it is replaced or removed rather than left behind.
   */
  supersedes: boolean;
  botUserId?: string;
  /** Who asked: an answer for them alone can still reach them with the bot token when the reply link has expired. */
  userId?: string;
}

/**
 * response_url failures (expired after 30 minutes or 5 uses, network) are logged and swallowed:
 * there is no other way left to reach the person.
 */
async function respondSafely(respond: RespondFn, log: Logger, message: RespondArguments, what: string): Promise<boolean> {
  try {
    await respond(message);
    return true;
  } catch (err) {
    log.warn({ what, status: (err as { statusCode?: unknown }).statusCode }, 'slack: response_url post failed');
    return false;
  }
}

/**
 * An answer for the asker alone. Through the reply link first (it can replace the message that was
 * clicked); once that link has expired (30 minutes, or 5 uses) or fails, as an ephemeral message
 * posted with the bot token, so the answer is not lost.
 */
async function toAsker(target: InteractionTarget, log: Logger, message: SlackMessage, what: string): Promise<void> {
  if (await respondSafely(target.respond, log, ephemeral(message, target.supersedes), what)) return;
  if (!target.userId) return;
  try {
    await target.client.chat.postEphemeral({ channel: target.channel, user: target.userId, text: message.text, blocks: message.blocks });
    log.info({ what }, 'slack: reply link unusable; answered with an ephemeral message instead');
  } catch (err) {
    log.warn(
      { what, code: safeCode(slackErrorCode(err)) ?? 'unknown_error' },
      'slack: could not reach the person by ephemeral message either',
    );
  }
}

const ephemeral = (message: SlackMessage, replaceOriginal: boolean): RespondArguments => ({
  response_type: 'ephemeral',
  replace_original: replaceOriginal,
  text: message.text,
  blocks: message.blocks,
});

/** Answers an interaction: in the channel or to the person, with the not-a-member fallback. */
export async function deliver(target: InteractionTarget, result: RunResult, log: Logger): Promise<Placement> {
  const { reply } = result;
  const placement = placementOf(result);
  if (placement === 'ephemeral') {
    await toAsker(target, log, renderReply(reply), 'ephemeral reply');
    return placement;
  }

  let posted: Posted;
  try {
    posted = await postToChannel(target.client, log, target.channel, reply, target.threadTs);
  } catch (err) {
    const code = err instanceof SlackDeliveryError ? err.code : 'unknown_error';
    if (NOT_A_MEMBER.has(code)) {
      // The reply link can still post in the channel; a file cannot travel that way.
      const message = renderReply(namesOnly(reply));
      await respondSafely(
        target.respond,
        log,
        { response_type: 'in_channel', replace_original: false, text: message.text, blocks: message.blocks },
        'in-channel fallback',
      );
      await respondSafely(target.respond, log, ephemeral(notInChannel(target.botUserId, code), target.supersedes), 'invite hint');
      log.info({ channel: target.channel, code }, 'slack: not a member, answered through response_url');
      return placement;
    }
    log.warn({ channel: target.channel, code: safeCode(code) ?? 'unknown_error' }, 'slack: could not post reply');
    if (code === 'is_archived') {
      // Nobody can post in an archived channel; the person still gets the answer, privately.
      await toAsker(target, log, channelArchived(), 'archived channel notice');
      await respondSafely(target.respond, log, ephemeral(renderReply(reply), false), 'answer in an archived channel');
      return placement;
    }
    await toAsker(target, log, deliveryFailed(code), 'delivery failure notice');
    return placement;
  }

  if (posted.chartError) {
    await respondSafely(target.respond, log, ephemeral(chartNotAttached(posted.chartError), target.supersedes), 'chart failure notice');
  } else if (target.supersedes) {
    await respondSafely(target.respond, log, { delete_original: true }, 'remove superseded message');
  }
  return placement;
}
