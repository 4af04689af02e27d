import { Writable } from 'node:stream';
import type { CommandSpec, Core } from '../../commands/core/index.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { RecordedCall } from '../fakes/discord/index.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.js';
import { demoCore } from './core.js';
import { registerDiscordCommands, startDiscord, type DiscordHandle } from '../../adapters/discord/index.js';
import type { DiscordSettings } from '../../adapters/discord/register.js';

export const GUILD_ID = '1100000000000000001';

/** A logger writing every line (trace and up) to memory, with no secrets registered: what the adapter logs is what is kept. */
export function memoryLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: createLogger({ level: 'trace', destination: sink }), lines };
}

export function settingsFor(fake: FakeDiscord, guildId?: string): DiscordSettings {
  return { token: fake.token, applicationId: fake.applicationId, apiUrl: fake.apiUrl, ...(guildId ? { guildId } : {}) };
}

export interface Stack {
  fake: FakeDiscord;
  core: Core;
  handle: DiscordHandle;
  channelId: string;
  logLines: string[];
  discord: DiscordSettings;
  close(): Promise<void>;
}

/** Fake Discord, a demo core and the adapter, with polbot's commands registered in the guild. */
export async function startStack(env: Record<string, string> = {}, commands?: readonly CommandSpec[]): Promise<Stack> {
  const fake = await startFakeDiscord({ guildIds: [GUILD_ID], heartbeatIntervalMs: 300 });
  const core = await demoCore(env, commands ? { commands } : {});
  const { log, lines } = memoryLogger();
  const discord = settingsFor(fake, GUILD_ID);
  await registerDiscordCommands({ discord, log });
  const handle = await startDiscord({ core, discord, log, readyTimeoutMs: 10_000 });
  return {
    fake,
    core,
    handle,
    channelId: fake.channelIds[GUILD_ID]!,
    logLines: lines,
    discord,
    async close() {
      await handle.stop();
      await fake.close();
      await core.close();
    },
  };
}

/** The message a call carries: a callback's `data`, or the body of an edit, followup or post. */
export function messageBody(call: RecordedCall): Record<string, unknown> | undefined {
  const body = call.body as Record<string, unknown> | undefined;
  if (!body) return undefined;
  if (/\/callback$/.test(call.path)) return body.data as Record<string, unknown> | undefined;
  return body;
}

/** Every recorded request that creates or edits a message (not deferrals, not autocomplete). */
export function messageCalls(fake: FakeDiscord): RecordedCall[] {
  return fake.calls((c) => {
    if (c.status >= 300) return false;
    if (c.method === 'POST' && /\/callback$/.test(c.path)) {
      const type = (c.body as { type?: number }).type;
      return type === 4 || type === 7;
    }
    if (c.method === 'PATCH' && /^\/webhooks\//.test(c.path)) return true;
    if (c.method === 'POST' && /^\/webhooks\/\d+\/[^/]+$/.test(c.path)) return true;
    return c.method === 'POST' && /^\/channels\/\d+\/messages$/.test(c.path);
  });
}

export const last = <T>(a: readonly T[]): T => a[a.length - 1]!;
