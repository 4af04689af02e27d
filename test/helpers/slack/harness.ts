import { expect } from 'vitest';
import { Writable } from 'node:stream';
import { startSlack, type SlackAdapter, type WorkspaceEvents } from '../../../adapters/slack/index.js';
import type { CommandSpec, Core } from '../../../commands/core/index.js';
import type { HttpRoute } from '../../../src/http/routes.js';
import { createLogger } from '../../../src/log.js';
import type { Simulator } from '../../../src/sim/server.js';
import {
  blockActionsBody,
  blockSuggestionBody,
  DEFAULT_CHANNEL_ID,
  postToBolt,
  slashCommandBody,
  startFakeSlack,
  type BoltResponse,
  type FakeSlack,
  type PostToBoltOptions,
  type RecordedCall,
} from '../../fakes/slack/index.js';
import { demoCore } from '../core.js';

export const SIGNING_SECRET = 'slack-adapter-test-signing-secret-7f3a';

/** Captures every log line; no secrets are given to the scrubber, so a leak would show. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  }
}

export interface HarnessOptions {
  mode?: 'http' | 'socket';
  progressMs?: number;
  customRoutes?: HttpRoute[];
  env?: Record<string, string>;
  /** The commands the core serves; all of polbot's by default. */
  commands?: readonly CommandSpec[];
  /** Slack user ids allowed to manage digests and alert rules (DIGEST_ADMINS); everyone by default. */
  digestAdmins?: string[];
  /** Installations coming and going, and events seen once across replicas. */
  workspaces?: WorkspaceEvents;
  /** POLBOT_UNFURL_DOMAINS. */
  unfurlDomains?: string[];
}

export interface Harness {
  fake: FakeSlack;
  core: Core;
  sim: Simulator;
  slack: SlackAdapter;
  logs: LogCapture;
  /** `http://127.0.0.1:PORT/slack/events` in HTTP mode. */
  endpoint: string;
  /** Posts a signed, form-encoded `/pol` command; the response_url is on the fake under `responseId`. */
  command(text: string, opts?: { channel?: string; responseId?: string } & PostToBoltOptions): Promise<BoltResponse>;
  /** Posts a signed `block_actions` payload for one button click. */
  click(
    actionId: string,
    value: string,
    opts?: { channel?: string; responseId?: string; ephemeral?: boolean; messageTs?: string; threadTs?: string },
  ): Promise<BoltResponse>;
  /** Posts a signed `block_actions` payload for one option picked from a static select menu. */
  pick(
    actionId: string,
    option: { text: string; value: string },
    opts?: { channel?: string; responseId?: string; messageTs?: string; type?: 'static_select' | 'external_select' },
  ): Promise<BoltResponse>;
  /** Posts a signed `block_suggestion`, as Slack does for each keystroke in an external select; resolves with the options answered. */
  lookup(
    actionId: string,
    blockId: string,
    typed: string,
  ): Promise<{ status: number; options: { text: { text: string }; value: string }[] }>;
  /** response_url posts recorded for one id, in order. */
  responses(id: string): RecordedCall[];
  close(): Promise<void>;
}

let sequence = 0;
export const uniqueId = (prefix: string): string => `${prefix}-${++sequence}`;

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const fake = await startFakeSlack();
  // The core's per-person limit (10 a minute) would trip over a test file's worth of commands
  // from one fake user; tests that want it set it back.
  // Tests that make the upstream fail would otherwise leave the circuit breaker open for the next.
  const core = await demoCore(
    { RATE_LIMIT_PER_USER: '0', ...options.env },
    { breaker: { cooldownMs: 50 }, ...(options.commands ? { commands: options.commands } : {}) },
  );
  const sim = core.upstream.sim!;
  const logs = new LogCapture();
  const log = createLogger({ level: 'debug', destination: logs });
  const mode = options.mode ?? 'http';
  const slack = await startSlack({
    core,
    slack: {
      botToken: fake.botToken,
      apiUrl: fake.url,
      ...(mode === 'http' ? { signingSecret: SIGNING_SECRET } : { appToken: fake.appToken }),
      ...(options.unfurlDomains ? { unfurlDomains: options.unfurlDomains } : {}),
    },
    http: { host: '127.0.0.1', port: 0 },
    log,
    ...(options.progressMs !== undefined ? { progressMs: options.progressMs } : {}),
    ...(options.customRoutes ? { customRoutes: options.customRoutes } : {}),
    ...(options.digestAdmins ? { digestAdmins: options.digestAdmins } : {}),
    ...(options.workspaces ? { workspaces: options.workspaces } : {}),
  });
  const endpoint = `http://127.0.0.1:${slack.port ?? 0}/slack/events`;

  return {
    fake,
    core,
    sim,
    slack,
    logs,
    endpoint,
    command(text, opts = {}) {
      const { channel, responseId, ...post } = opts;
      const body = slashCommandBody({
        command: '/pol',
        text,
        channel_id: channel ?? DEFAULT_CHANNEL_ID,
        response_url: fake.responseUrl(responseId ?? uniqueId('cmd')),
      });
      return postToBolt(endpoint, body, SIGNING_SECRET, post);
    },
    click(actionId, value, opts = {}) {
      const channel = opts.channel ?? DEFAULT_CHANNEL_ID;
      const messageTs = opts.messageTs ?? '1763800000.000100';
      const body = blockActionsBody({
        actions: [{ action_id: actionId, value, type: 'button' }],
        channel,
        response_url: fake.responseUrl(opts.responseId ?? uniqueId('act')),
        container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: opts.ephemeral ?? false },
        ...(opts.ephemeral ? {} : { message: { ts: messageTs, text: 'card', ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}) } }),
      });
      return postToBolt(endpoint, body, SIGNING_SECRET);
    },
    pick(actionId, option, opts = {}) {
      const channel = opts.channel ?? DEFAULT_CHANNEL_ID;
      const messageTs = opts.messageTs ?? '1763800000.000100';
      const body = blockActionsBody({
        actions: [
          {
            action_id: actionId,
            type: opts.type ?? 'static_select',
            selected_option: { text: { type: 'plain_text', text: option.text }, value: option.value },
          },
        ],
        channel,
        response_url: fake.responseUrl(opts.responseId ?? uniqueId('pick')),
        container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false },
        message: { ts: messageTs, text: 'table' },
      });
      return postToBolt(endpoint, body, SIGNING_SECRET);
    },
    async lookup(actionId, blockId, typed) {
      const response = await postToBolt(
        endpoint,
        blockSuggestionBody({ action_id: actionId, block_id: blockId, value: typed }),
        SIGNING_SECRET,
      );
      const body = response.body.trim() ? (JSON.parse(response.body) as { options?: { text: { text: string }; value: string }[] }) : {};
      return { status: response.status, options: body.options ?? [] };
    },
    responses: (id) => fake.calls('response_url').filter((c) => c.id === id),
    async close() {
      await slack.stop();
      if (mode === 'socket') await fake.socket.waitForDisconnect().catch(() => undefined);
      await fake.close();
      await core.close();
    },
  };
}

/** The JSON a slash command was acknowledged with, or undefined for a bare ack. */
export function ackBody(response: BoltResponse): Record<string, unknown> | undefined {
  return response.body.trim() ? (JSON.parse(response.body) as Record<string, unknown>) : undefined;
}

/** The ephemeral answer to a command: on the response_url, after a bare acknowledgement. */
export async function ephemeralAnswer(
  h: Harness,
  response: BoltResponse,
  responseId: string,
  timeoutMs = 8_000,
): Promise<Record<string, unknown>> {
  expect(ackBody(response)).toBeUndefined();
  const call = await h.fake.waitFor(
    'response_url',
    (c) => c.id === responseId && c.args.response_type === 'ephemeral' && !/Looking up/.test(String(c.args.text)),
    timeoutMs,
  );
  return call.args;
}

/**
 * Waits until the fake has seen no new request for `quietMs`: work that outlives a test (a chart
 * upload after the card) must not land in the next test's recording.
 */
export async function quiesce(h: Harness, quietMs = 300, maxMs = 15_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let seen = h.fake.rawPayloads().length;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = h.fake.rawPayloads().length;
    if (now === seen) return;
    seen = now;
  }
}

/** Raw wire text with %XX escapes decoded where they form valid UTF-8; binary parts are left alone. */
export function decodeWire(raw: string): string {
  return raw.replace(/\+/g, ' ').replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

export const blocksJson = (args: Record<string, unknown>): string => JSON.stringify(args.blocks ?? []);

/** The cells of a message's table block, its header row first, as Slack shows them; undefined when it has none. */
export function tableRowsOf(blocks: unknown): string[][] | undefined {
  const table = ((blocks ?? []) as { type?: string; rows?: { text?: string }[][] }[]).find((b) => b.type === 'table');
  return table?.rows?.map((row) => row.map((cell) => cell.text ?? ''));
}

/** Header text of a posted message, for telling which entity a card is about. */
export function headerOf(args: Record<string, unknown>): string | undefined {
  const blocks = (args.blocks ?? []) as { type?: string; text?: { text?: string } }[];
  return blocks.find((b) => b.type === 'header')?.text?.text;
}

/** The footer line of a message: its as-of time, source and simulated label. */
export function footerLineOf(args: Record<string, unknown>): string {
  const blocks = (args.blocks ?? []) as { type?: string; elements?: { text?: string }[] }[];
  return blocks.filter((b) => b.type === 'context').at(-1)?.elements?.[0]?.text ?? '';
}

export const last = <T>(values: readonly T[]): T => values[values.length - 1]!;

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
