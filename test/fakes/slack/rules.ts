/**
 * What Slack refuses, enforced by the fake so that a test fails where Slack would: Block Kit's
 * limits on every message, a response_url's five uses and thirty minutes, the Web API's rate
 * tiers, image blocks whose URL Slack cannot download, and image blocks showing a Slack file the
 * poster may not show (another workspace's, not completed, still processing). Each rule is Slack's documented
 * behaviour; the error shapes are the ones Slack answers with.
 */

/** Methods and endpoints that carry a message's blocks. */
export const MESSAGE_METHODS: ReadonlySet<string> = new Set(['chat.postMessage', 'chat.postEphemeral', 'chat.update', 'response_url']);

export const BLOCK_LIMITS = {
  blocks: 50,
  sectionText: 3000,
  sectionFields: 10,
  buttonText: 75,
  headerText: 150,
  selectOptions: 100,
  optionText: 75,
  optionValue: 150,
  placeholderText: 150,
  blockId: 255,
  imageAltText: 2000,
} as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const textOf = (v: unknown): string => (isObj(v) && typeof v.text === 'string' ? v.text : '');

/** The blocks of a call, whether sent as JSON or as a form field holding JSON. */
export function blocksOf(args: Obj): unknown[] {
  const raw = args.blocks;
  if (Array.isArray(raw)) return raw;
  if (typeof raw === 'string' && raw.trim()) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      return [];
    }
  }
  return [];
}

/** Slack's `invalid_blocks` messages: `[ERROR] ... [json-pointer:/blocks/3/text]`. */
export function blockErrors(blocks: readonly unknown[], maxBlocks: number = BLOCK_LIMITS.blocks): string[] {
  const errors: string[] = [];
  const err = (pointer: string, what: string) => errors.push(`[ERROR] ${what} [json-pointer:${pointer}]`);
  // A message takes 50 blocks; a view (a Home tab) 100.
  if (blocks.length > maxBlocks) err('/blocks', `no more than ${maxBlocks} items allowed`);
  const actionIds = new Set<string>();
  const element = (e: unknown, pointer: string) => {
    if (!isObj(e)) return;
    if (e.type === 'button' && textOf(e.text).length > BLOCK_LIMITS.buttonText)
      err(`${pointer}/text/text`, `must be less than ${BLOCK_LIMITS.buttonText + 1} characters`);
    if (e.type === 'static_select') selectErrors(e, pointer, err);
    if (e.type === 'external_select' && textOf(e.placeholder).length > BLOCK_LIMITS.placeholderText)
      err(`${pointer}/placeholder/text`, `must be less than ${BLOCK_LIMITS.placeholderText + 1} characters`);
    if (typeof e.action_id === 'string') {
      if (actionIds.has(e.action_id)) err(`${pointer}/action_id`, 'action_id already exists');
      actionIds.add(e.action_id);
    }
  };
  blocks.forEach((b, i) => {
    const at = `/blocks/${i}`;
    if (!isObj(b)) return;
    if (typeof b.block_id === 'string' && b.block_id.length > BLOCK_LIMITS.blockId)
      err(`${at}/block_id`, `must be less than ${BLOCK_LIMITS.blockId + 1} characters`);
    if (b.type === 'header' && textOf(b.text).length > BLOCK_LIMITS.headerText)
      err(`${at}/text/text`, `must be less than ${BLOCK_LIMITS.headerText + 1} characters`);
    if (b.type === 'section') {
      if (textOf(b.text).length > BLOCK_LIMITS.sectionText)
        err(`${at}/text/text`, `must be less than ${BLOCK_LIMITS.sectionText + 1} characters`);
      if (Array.isArray(b.fields) && b.fields.length > BLOCK_LIMITS.sectionFields)
        err(`${at}/fields`, `no more than ${BLOCK_LIMITS.sectionFields} items allowed`);
      element(b.accessory, `${at}/accessory`);
    }
    if (b.type === 'actions' && Array.isArray(b.elements)) b.elements.forEach((e, j) => element(e, `${at}/elements/${j}`));
    if (b.type === 'image') imageErrors(b, at, err);
    if (b.type === 'table') tableErrors(b, at, err);
  });
  // Slack takes one table a message.
  const tables = blocks.filter((b) => isObj(b) && b.type === 'table').length;
  if (tables > 1) err('/blocks', 'only one table block is allowed per message');
  return errors;
}

/**
 * A table block as Slack's reference states it: `rows` an array of at most 100 rows, each an
 * array of at most 20 cells of type `raw_text` (with its `text`) or `rich_text`; `column_settings`
 * at most 20 items, each `align` left, center or right and `is_wrapped` a boolean.
 */
function tableErrors(b: Record<string, unknown>, at: string, err: (pointer: string, what: string) => void): void {
  if (!Array.isArray(b.rows) || b.rows.length === 0) return err(`${at}/rows`, 'must provide an array of rows');
  // Slack's Block Kit guidance caps a table's cell text at 10,000 characters in all; its reference
  // states no limit for one cell.
  let cellText = 0;
  if (b.rows.length > 100) err(`${at}/rows`, 'no more than 100 items allowed');
  b.rows.forEach((row, i) => {
    if (!Array.isArray(row)) return err(`${at}/rows/${i}`, 'must be an array of cells');
    if (row.length > 20) err(`${at}/rows/${i}`, 'no more than 20 items allowed');
    row.forEach((cell, j) => {
      const ok =
        isObj(cell) && ((cell.type === 'raw_text' && typeof cell.text === 'string' && cell.text !== '') || cell.type === 'rich_text');
      if (!ok) err(`${at}/rows/${i}/${j}`, 'must be a raw_text cell with text, or a rich_text cell');
      else if (cell.type === 'raw_text') cellText += String(cell.text).length;
    });
  });
  if (cellText > 10_000) err(`${at}/rows`, 'no more than 10000 characters of cell text allowed');
  if (b.column_settings !== undefined) {
    if (!Array.isArray(b.column_settings)) return err(`${at}/column_settings`, 'must be an array');
    if (b.column_settings.length > 20) err(`${at}/column_settings`, 'no more than 20 items allowed');
    b.column_settings.forEach((s, i) => {
      if (!isObj(s)) return err(`${at}/column_settings/${i}`, 'must be an object');
      if (s.align !== undefined && !['left', 'center', 'right'].includes(String(s.align)))
        err(`${at}/column_settings/${i}/align`, 'must be one of left, center, right');
      if (s.is_wrapped !== undefined && typeof s.is_wrapped !== 'boolean')
        err(`${at}/column_settings/${i}/is_wrapped`, 'must be a boolean');
    });
  }
}

/**
 * An image block: a plain-text alt_text of at most 2,000 characters, and its picture either at a
 * public `image_url` or in a Slack file (`slack_file` with an `id` or a `url`, never both nor neither).
 */
function imageErrors(b: Obj, at: string, err: (pointer: string, what: string) => void): void {
  if (typeof b.alt_text !== 'string' || b.alt_text.trim() === '') err(at, 'missing required field: alt_text');
  else if (b.alt_text.length > BLOCK_LIMITS.imageAltText)
    err(`${at}/alt_text`, `must be less than ${BLOCK_LIMITS.imageAltText + 1} characters`);
  const hasUrl = b.image_url !== undefined;
  const hasFile = b.slack_file !== undefined;
  if (hasUrl === hasFile) err(at, 'must provide exactly one of image_url or slack_file');
  if (hasFile) {
    const file = isObj(b.slack_file) ? b.slack_file : {};
    if ((file.id !== undefined) === (file.url !== undefined)) err(`${at}/slack_file`, 'must provide exactly one of id or url');
  }
}

/** Image blocks' Slack files, with their pointers: each must be one the poster's workspace may show. */
export function slackFiles(blocks: readonly unknown[]): { pointer: string; ref: { id?: unknown; url?: unknown } }[] {
  return blocks.flatMap((b, i) =>
    isObj(b) && b.type === 'image' && isObj(b.slack_file) ? [{ pointer: `/blocks/${i}/slack_file`, ref: b.slack_file }] : [],
  );
}

/**
 * Slack refuses a message showing a file that does not exist in the poster's workspace, whose
 * upload was never completed, that Slack is still processing (for a moment after completion),
 * or that is not an image, all with the one message `invalid slack file`.
 */
export function unusableFiles(
  files: ReturnType<typeof slackFiles>,
  unusable: (ref: { id?: unknown; url?: unknown }) => string | undefined,
): string[] {
  return files
    .filter(({ ref }) => unusable(ref) !== undefined)
    .map(({ pointer }) => `[ERROR] invalid slack file [json-pointer:${pointer}]`);
}

/** A static select: a placeholder, 1 to 100 options of short text and value, and an initial option that is one of them. */
function selectErrors(e: Obj, pointer: string, err: (pointer: string, what: string) => void): void {
  if (textOf(e.placeholder).length > BLOCK_LIMITS.placeholderText)
    err(`${pointer}/placeholder/text`, `must be less than ${BLOCK_LIMITS.placeholderText + 1} characters`);
  const options = Array.isArray(e.options) ? e.options : [];
  if (options.length === 0) err(`${pointer}/options`, 'must provide at least 1 items');
  if (options.length > BLOCK_LIMITS.selectOptions) err(`${pointer}/options`, `no more than ${BLOCK_LIMITS.selectOptions} items allowed`);
  const values = new Set<string>();
  options.forEach((o, k) => {
    if (!isObj(o)) return err(`${pointer}/options/${k}`, 'must be an object');
    if (textOf(o.text).length > BLOCK_LIMITS.optionText)
      err(`${pointer}/options/${k}/text/text`, `must be less than ${BLOCK_LIMITS.optionText + 1} characters`);
    if (typeof o.value !== 'string' || o.value.length > BLOCK_LIMITS.optionValue)
      err(`${pointer}/options/${k}/value`, `must be less than ${BLOCK_LIMITS.optionValue + 1} characters`);
    else values.add(o.value);
  });
  if (
    e.initial_option !== undefined &&
    !(isObj(e.initial_option) && typeof e.initial_option.value === 'string' && values.has(e.initial_option.value))
  ) {
    err(`${pointer}/initial_option`, 'must match one of the provided options');
  }
}

/** Image blocks' URLs, with their pointers. */
export function imageUrls(blocks: readonly unknown[]): { pointer: string; url: string }[] {
  return blocks.flatMap((b, i) =>
    isObj(b) && b.type === 'image' && typeof b.image_url === 'string' ? [{ pointer: `/blocks/${i}/image_url`, url: b.image_url }] : [],
  );
}

/**
 * Slack downloads an image block's picture when the message is posted and refuses the message
 * when it cannot (`downloading image failed`). Only loopback URLs are tried: anything else cannot
 * be reached from a test, so it fails as an unreachable host would.
 */
export async function undownloadable(images: readonly { pointer: string; url: string }[], timeoutMs = 2_000): Promise<string[]> {
  const failed = await Promise.all(
    images.map(async ({ pointer, url }) => {
      try {
        const host = new URL(url).hostname;
        if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') return pointer;
        const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
        await res.arrayBuffer();
        return res.ok && (res.headers.get('content-type') ?? '').startsWith('image/') ? undefined : pointer;
      } catch {
        return pointer;
      }
    }),
  );
  return failed.filter((p): p is string => p !== undefined).map((p) => `[ERROR] downloading image failed [json-pointer:${p}]`);
}

/** A response_url takes five posts within thirty minutes of its interaction; after that, 404. */
export const RESPONSE_URL_USES = 5;
export const RESPONSE_URL_TTL_MS = 30 * 60 * 1000;

export class ResponseUrls {
  private readonly issued = new Map<string, { at: number; uses: number }>();

  issue(id: string, at: number): void {
    if (!this.issued.has(id)) this.issued.set(id, { at, uses: 0 });
  }

  /** `undefined` when the post is accepted; Slack's error otherwise. */
  use(id: string, now: number): 'expired_url' | 'used_url' | undefined {
    // A URL made up by a test without asking the fake is taken as issued on its first use.
    this.issue(id, now);
    const entry = this.issued.get(id)!;
    if (now - entry.at > RESPONSE_URL_TTL_MS) return 'expired_url';
    if (entry.uses >= RESPONSE_URL_USES) return 'used_url';
    entry.uses += 1;
    return undefined;
  }
}

/**
 * Slack's rate tiers, per minute (chat.postMessage: about one a second per channel, with short
 * bursts). Off unless asked for: the benchmarks post hundreds of messages on purpose, and the
 * tests of other behaviour should not wait out Retry-After.
 */
const TIERS: Record<string, { perMinute: number; burst: number; perChannel?: boolean }> = {
  'chat.postMessage': { perMinute: 60, burst: 5, perChannel: true },
  'files.getUploadURLExternal': { perMinute: 20, burst: 20 },
  'files.completeUploadExternal': { perMinute: 20, burst: 20 },
  'chat.postEphemeral': { perMinute: 100, burst: 100 },
  'chat.update': { perMinute: 50, burst: 50 },
  'chat.delete': { perMinute: 50, burst: 50 },
  'conversations.history': { perMinute: 50, burst: 50 },
};
const DEFAULT_TIER: { perMinute: number; burst: number; perChannel?: boolean } = { perMinute: 100, burst: 100 };

export class RateTiers {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Seconds to wait when the call is over its tier, else `undefined` (and the call is counted). */
  take(method: string, channel: string | undefined, now: number): number | undefined {
    const tier = TIERS[method] ?? DEFAULT_TIER;
    const key = tier.perChannel ? `${method} ${channel ?? ''}` : method;
    const perMs = tier.perMinute / 60_000;
    const b = this.buckets.get(key) ?? { tokens: tier.burst, at: now };
    b.tokens = Math.min(tier.burst, b.tokens + (now - b.at) * perMs);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
  }
}
