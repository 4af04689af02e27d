import { webApi, type RespondArguments, type RespondFn, type types } from '@slack/bolt';
import type { RunResult } from '../../commands/core/index.js';
import type { Logger } from '../../src/log.js';
import { mapInline, personName } from '../../src/reply/inline.js';
import { audienceOf, type Reply, type ReplyImage } from '../../src/reply/model.js';
import { renderReply, uploadedChart, type SlackMessage } from './blocks.js';
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

/** Slack's reasons for refusing a message's blocks (`invalid_blocks`), or none for any other failure. */
function blockRefusals(err: unknown): string[] {
  const data = (err as { data?: { error?: unknown; errors?: unknown; response_metadata?: { messages?: unknown } } } | null)?.data;
  if (data?.error !== 'invalid_blocks') return [];
  return [data.errors, data.response_metadata?.messages].flatMap((m) => (Array.isArray(m) ? m : [])).filter((m) => typeof m === 'string');
}

/** Slack refused the message because it could not download an image block's picture. */
const imageNotDownloaded = (err: unknown): boolean => blockRefusals(err).some((m) => m.includes('downloading image failed'));

/**
 * Slack refused the message because it cannot show the file of an image block (`invalid slack
 * file`): right after an upload, until Slack has processed it; for good when the file is gone.
 */
const fileNotShown = (err: unknown): boolean => blockRefusals(err).some((m) => m.includes('slack_file'));

/** The reply without its chart, saying why in its footer when there is one: what is left is still the answer. */
function withoutChart(reply: Reply, note?: string): Reply {
  if (!('image' in reply) || !reply.image) return reply;
  const { image: _image, ...rest } = reply;
  return note && rest.footer ? { ...rest, footer: { ...rest.footer, notes: [...(rest.footer.notes ?? []), note] } } : rest;
}

/** The reply without its hosted chart, saying so. */
function withoutImage(reply: Reply): Reply {
  return imageOf(reply)?.kind === 'url' ? withoutChart(reply, 'The chart could not be loaded from the chart service.') : reply;
}

const CHART_NOT_UPLOADED = 'The chart could not be uploaded to Slack.';
const CHART_NOT_READY = 'The chart could not be shown: Slack had not finished processing it.';

/** A Web API failure as the error callers branch on. */
const refused = (err: unknown, channel: string): SlackDeliveryError =>
  err instanceof SlackDeliveryError ? err : new SlackDeliveryError(slackErrorCode(err) ?? 'unknown_error', channel);

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
      await sleep(Math.min(MAX_RATE_WAIT_MS, e.retryAfter * 1_000));
    }
  }
}

/**
 * chat.postMessage of the reply's blocks, `chart` drawn where its image goes. A hosted chart Slack
 * cannot download costs the chart, not the answer. Throws the Web API's own error.
 */
async function postBlocks(
  client: webApi.WebClient,
  log: Logger,
  channel: string,
  reply: Reply,
  threadTs: string | undefined,
  chart?: types.ImageBlock,
): Promise<string | undefined> {
  const post = (r: Reply) => {
    const message = renderReply(namesOnly(r), chart);
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
  try {
    return (await post(reply)).ts;
  } catch (err) {
    if (!imageNotDownloaded(err) || withoutImage(reply) === reply) throw err;
    log.warn({ channel }, 'slack: chart image could not be downloaded by Slack; posted without it');
    return (await post(withoutImage(reply))).ts;
  }
}

/** A table's file (a CSV export) goes next to the message: only pictures can be shown inside one. */
async function attachFile(client: webApi.WebClient, log: Logger, channel: string, reply: Reply, threadTs?: string): Promise<void> {
  if (reply.kind !== 'table' || !reply.file) return;
  const { file } = reply;
  const upload = { channel_id: channel, file: file.bytes, filename: file.filename, title: clip(plain(file.title), 250) };
  await afterRateLimits(() => client.files.uploadV2(threadTs ? { ...upload, thread_ts: threadTs } : upload)).catch((err: unknown) => {
    // The table is posted; the file that goes with it failing is logged, not lost silently.
    log.warn({ channel, fileError: slackErrorCode(err) ?? 'upload_failed' }, 'slack: file upload failed');
  });
}

const withTs = (ts: string | undefined): Posted => (ts ? { ts } : {});

/**
 * Posts a reply into a channel as the bot: the blocks first, then the PNG chart (if any) as a
 * file in the same place. A failed chart costs the chart, not the answer. Answers to people take
 * this way; what polbot posts by itself takes postAsOneMessage.
 */
export async function postToChannel(
  client: webApi.WebClient,
  log: Logger,
  channel: string,
  reply: Reply,
  threadTs?: string,
): Promise<Posted> {
  let ts: string | undefined;
  try {
    ts = await postBlocks(client, log, channel, reply, threadTs);
  } catch (err) {
    throw refused(err, channel);
  }
  await attachFile(client, log, channel, reply, threadTs);
  const image = imageOf(reply);
  if (image?.kind !== 'png') return withTs(ts);
  try {
    const file = {
      channel_id: channel,
      file: image.png,
      filename: image.filename,
      title: fileTitle(image, reply),
      alt_text: clip(plain(flat(image.alt)), 1000),
    };
    await afterRateLimits(() => client.files.uploadV2(threadTs ? { ...file, thread_ts: threadTs } : file));
    return withTs(ts);
  } catch (err) {
    const chartError = slackErrorCode(err) ?? 'upload_failed';
    log.warn({ channel, chartError }, 'slack: chart upload failed');
    return { ...withTs(ts), chartError };
  }
}

/** Waits before each further try while Slack processes an uploaded chart; after the last, the message goes without it. */
const FILE_READY_WAITS_MS = [500, 1_000, 2_000];

/**
 * Charts uploaded for a message, by their bytes: a retry of that message (after an answer that
 * never came) shows the file uploaded the first time instead of uploading another.
 */
const uploadedCharts = new WeakMap<Buffer, { client: webApi.WebClient; channel: string; fileId: string }>();

/** Uploads the chart without sharing it anywhere (no channel): it appears only where a message shows it. */
async function uploadUnshared(
  client: webApi.WebClient,
  channel: string,
  image: Extract<ReplyImage, { kind: 'png' }>,
  reply: Reply,
): Promise<string> {
  const earlier = uploadedCharts.get(image.png);
  if (earlier?.client === client && earlier.channel === channel) return earlier.fileId;
  const res = await afterRateLimits(() =>
    client.files.uploadV2({
      file: image.png,
      filename: image.filename,
      title: fileTitle(image, reply),
      alt_text: clip(plain(flat(image.alt)), 1000),
    }),
  );
  // uploadV2 answers with one completion per group of files, each listing its files.
  const fileId = (res as { files?: { files?: { id?: string }[] }[] }).files?.[0]?.files?.[0]?.id;
  if (!fileId) throw new SlackDeliveryError('upload_failed', channel);
  uploadedCharts.set(image.png, { client, channel, fileId });
  return fileId;
}

/**
 * Posts a reply into a channel as one message with its PNG chart inside: the chart is uploaded
 * first without being shared, then the message shows it in an image block. What polbot posts by
 * itself (alerts, digests, their follow-ups) goes this way, so an incident is one message and its
 * `ts` is all there is to redraw or follow up. Slack may need a moment before it can show an
 * uploaded file; the post is tried again briefly. A chart that cannot be uploaded or shown costs
 * the chart, never the message, which then says so in its footer.
 */
export const postAsOneMessage: typeof postToChannel = async (client, log, channel, reply, threadTs) => {
  const image = imageOf(reply);
  if (image?.kind !== 'png') return postToChannel(client, log, channel, reply, threadTs);
  let fileId: string | undefined;
  let chartError: string | undefined;
  try {
    fileId = await uploadUnshared(client, channel, image, reply);
  } catch (err) {
    chartError = err instanceof SlackDeliveryError ? err.code : (slackErrorCode(err) ?? 'upload_failed');
    log.warn({ channel, chartError }, 'slack: chart upload failed; posting without it');
  }
  if (fileId) {
    const chart = uploadedChart(fileId, image.alt);
    for (const wait of [0, ...FILE_READY_WAITS_MS]) {
      if (wait) await sleep(wait);
      try {
        const ts = await postBlocks(client, log, channel, reply, threadTs, chart);
        await attachFile(client, log, channel, reply, threadTs);
        return withTs(ts);
      } catch (err) {
        // Refused as a whole: nothing was posted, so posting again cannot make two messages.
        if (!fileNotShown(err)) throw refused(err, channel);
      }
    }
    uploadedCharts.delete(image.png);
    chartError = 'file_not_ready';
    log.warn({ channel, chartError }, 'slack: Slack did not show the uploaded chart in time; posting without it');
  }
  const note = chartError === 'file_not_ready' ? CHART_NOT_READY : CHART_NOT_UPLOADED;
  try {
    const ts = await postBlocks(client, log, channel, withoutChart(reply, note), threadTs);
    await attachFile(client, log, channel, reply, threadTs);
    return { ...withTs(ts), chartError };
  } catch (err) {
    throw refused(err, channel);
  }
};

/**
 * Redraws a message the bot posted, in place (an alert acknowledged or resolved): the words and
 * buttons change, the chart it shows stays. chat.update replaces every block, so the chart is
 * read from the message itself and drawn again; a redraw never draws a new one. Throws
 * SlackDeliveryError (`message_not_found`...).
 */
export async function updateInChannel(client: webApi.WebClient, log: Logger, channel: string, ts: string, reply: Reply): Promise<void> {
  const chart = await chartShown(client, log, channel, ts);
  const redrawn = withoutChart(reply);
  const update = (c?: types.ImageBlock) => {
    const message = renderReply(redrawn, c);
    return client.chat.update({ channel, ts, text: message.text, blocks: message.blocks });
  };
  try {
    await update(chart);
  } catch (err) {
    // The picture shown until now is gone (its file deleted, its host down): the redraw still goes.
    if (!chart || !(fileNotShown(err) || imageNotDownloaded(err))) throw refused(err, channel);
    log.warn({ channel }, 'slack: the chart of the message could no longer be shown; redrawn without it');
    try {
      await update();
    } catch (again) {
      throw refused(again, channel);
    }
  }
}

/** The image block of a posted message, as a block to send again; undefined when it shows none or cannot be read. */
async function chartShown(client: webApi.WebClient, log: Logger, channel: string, ts: string): Promise<types.ImageBlock | undefined> {
  try {
    // One message by its ts: the newest at or before it.
    const res = await client.conversations.history({ channel, latest: ts, inclusive: true, limit: 1 });
    const blocks = (res.messages ?? []).find((m) => m.ts === ts)?.blocks ?? [];
    for (const block of blocks as unknown[]) {
      const kept = imageBlockOf(block);
      if (kept) return kept;
    }
    return undefined;
  } catch (err) {
    // Words and buttons matter more than the picture: the redraw goes on without it.
    log.warn({ channel, code: slackErrorCode(err) ?? 'unknown_error' }, 'slack: could not read the message to keep its chart');
    return undefined;
  }
}

/** An image block as Slack returns it, reduced to what a message may send: the file (or URL) and its alt text. */
function imageBlockOf(block: unknown): types.ImageBlock | undefined {
  const b = block as { type?: unknown; alt_text?: unknown; slack_file?: { id?: unknown; url?: unknown }; image_url?: unknown } | null;
  if (b?.type !== 'image') return undefined;
  const alt_text = typeof b.alt_text === 'string' && b.alt_text.trim() ? b.alt_text : 'chart';
  const { id, url } = b.slack_file ?? {};
  if (typeof id === 'string' && id) return { type: 'image', slack_file: { id }, alt_text };
  if (typeof url === 'string' && url) return { type: 'image', slack_file: { url }, alt_text };
  if (typeof b.image_url === 'string' && b.image_url) return { type: 'image', image_url: b.image_url, alt_text };
  return undefined;
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
