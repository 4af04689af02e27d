import type { Args } from './args.js';
import { badRequest, queryTooOld, TelegramError } from './errors.js';
import { TEXT_LIMIT, visibleText } from './formatted.js';
import { judgeMarkup, readMarkup } from './keyboard.js';

/**
 * Callback and inline queries, each answerable once within its lifetime (about 15 s by default):
 * an answer to one that expired, was answered already or never existed is refused as Telegram
 * refuses it ("query is too old and response timeout expired or query ID is invalid"). Inline
 * results are held to Telegram's rules too: at most 50, ids of 1-64 bytes and unique, an
 * article's message text parsed and limited as a message's.
 */

export interface CallbackAnswer {
  queryId: string;
  text?: string;
  showAlert: boolean;
  url?: string;
  at: number;
}

export interface InlineAnswer {
  queryId: string;
  results: Record<string, unknown>[];
  cacheTime?: number;
  isPersonal: boolean;
  at: number;
}

interface Pending {
  kind: 'callback' | 'inline';
  createdAt: number;
  answered: boolean;
}

export class Queries {
  readonly #pending = new Map<string, Pending>();
  #nextId = BigInt(4_380_000_000_000_000_000n) + BigInt(Math.floor(Math.random() * 1e12));
  readonly callbackAnswers: CallbackAnswer[] = [];
  readonly inlineAnswers: InlineAnswer[] = [];

  constructor(
    private readonly now: () => number,
    readonly lifetimeMs: number,
  ) {}

  open(kind: Pending['kind']): string {
    this.#nextId += 1n;
    const id = this.#nextId.toString();
    this.#pending.set(id, { kind, createdAt: this.now(), answered: false });
    return id;
  }

  answerCallback(args: Args): true {
    const queryId = args.string('callback_query_id') ?? '';
    this.#use(queryId, 'callback');
    const answer: CallbackAnswer = { queryId, showAlert: args.bool('show_alert'), at: this.now() };
    const text = args.string('text');
    if (text) answer.text = text;
    const url = args.string('url');
    if (url) answer.url = url;
    this.callbackAnswers.push(answer);
    return true;
  }

  answerInline(args: Args): true {
    const queryId = args.string('inline_query_id') ?? '';
    const results = args.json('results', "can't parse JSON encoded inline query results");
    const list = results === undefined ? [] : results;
    if (!Array.isArray(list)) throw badRequest('expected an Array of inline query results');
    if (list.length > 50) throw badRequest('too many inline query results specified');
    const ids = new Set<string>();
    for (const result of list) {
      checkResult(result);
      const id = (result as { id: string }).id;
      if (ids.has(id)) throw badRequest('RESULT_ID_DUPLICATE');
      ids.add(id);
    }
    this.#use(queryId, 'inline');
    const answer: InlineAnswer = {
      queryId,
      results: list as Record<string, unknown>[],
      isPersonal: args.bool('is_personal'),
      at: this.now(),
    };
    const cacheTime = args.int('cache_time');
    if (cacheTime !== undefined) answer.cacheTime = cacheTime;
    this.inlineAnswers.push(answer);
    return true;
  }

  #use(queryId: string, kind: Pending['kind']): void {
    const query = this.#pending.get(queryId);
    if (!query || query.kind !== kind || query.answered || this.now() - query.createdAt > this.lifetimeMs) throw queryTooOld();
    query.answered = true;
  }
}

function checkResult(result: unknown): void {
  const fail = (what: string): never => {
    throw badRequest(`can't parse inline query result: ${what}`);
  };
  if (typeof result !== 'object' || result === null || Array.isArray(result)) fail('Inline query result must be an object');
  const r = result as Record<string, unknown>;
  if (typeof r.type !== 'string') fail('Can\'t find field "type"');
  if (typeof r.id !== 'string') fail('Can\'t find field "id"');
  const idBytes = Buffer.byteLength(r.id as string, 'utf8');
  if (idBytes < 1 || idBytes > 64) throw badRequest('RESULT_ID_INVALID');
  const content = r.input_message_content as Record<string, unknown> | undefined;
  if ((r.type as string).toLowerCase() === 'article') {
    if (typeof r.title !== 'string') fail('Can\'t find field "title"');
    if (typeof content !== 'object' || content === null) fail('Input message content is not specified');
  }
  if (content && typeof content.message_text === 'string') {
    let visible: string;
    try {
      visible = visibleText({
        text: content.message_text,
        parseMode: content.parse_mode as string | undefined,
        entities: content.entities,
      }).text;
    } catch (error) {
      // The Bot API server wraps its parsing refusal: "can't parse inline query result: Can't parse entities: …".
      const description = error instanceof TelegramError ? error.description : undefined;
      if (!description) throw error;
      return fail(description.replace(/^Bad Request: (.)/, (_, c: string) => c.toUpperCase()));
    }
    if (visible === '') throw badRequest('MESSAGE_EMPTY');
    if (visible.length > TEXT_LIMIT) throw badRequest('MESSAGE_TOO_LONG');
  }
  judgeMarkup(readMarkup(r.reply_markup));
}
