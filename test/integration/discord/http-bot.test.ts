import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { APIMessage } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBot, type Bot } from '../../../app/bot.js';
import { CHECK_MESSAGE } from '../../../adapters/discord/commands.js';
import { CHOOSE_ID, RUN_ID } from '../../../adapters/discord/embeds.js';
import { loadConfig } from '../../../app/config.js';
import { createLogger } from '../../../src/log.js';
import type { SimStore } from '../../../src/sim/data/store.js';
import { type FakeDiscord, type HttpExchange, type InteractionHandle, startFakeDiscord } from '../../fakes/discord/index.js';
import { polText } from '../../helpers/truth.js';
import { GUILD_ID, last } from '../../helpers/discord.js';

/**
 * Discord over the HTTP interactions endpoint, as `polbot start` runs it with DISCORD_PUBLIC_KEY:
 * the fake Discord signs each interaction and POSTs it to the bot's real HTTP server, takes the
 * HTTP response as the initial response (3 s, once, by Discord's rules) and serves the
 * interaction webhook for what follows. No gateway connection is ever made.
 */

const EPHEMERAL = 64;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface Embed {
  title?: string;
  fields?: { name: string; value: string }[];
  image?: { url: string };
  footer?: { text: string };
}
interface Message {
  content?: string;
  flags?: number;
  embeds?: Embed[];
  components?: { components: { type: number; custom_id?: string; label?: string; options?: { value: string }[] }[] }[];
  attachments?: { id: string | number; filename?: string }[];
  allowed_mentions?: unknown;
}
interface Response {
  type: number;
  data?: Message & { choices?: { name: string; value: string }[] };
}

let fake: FakeDiscord;
let bot: Bot;
let store: SimStore;
let dataDir: string;
let base: string;
const logLines: string[] = [];
const handles: InteractionHandle[] = [];

const response = (x: HttpExchange) => x.body as Response;
const embedOf = (m: Message | undefined) => m?.embeds?.[0];
const field = (e: Embed | undefined, name: string) => e?.fields?.find((f) => f.name === name);
const track = (h: InteractionHandle) => {
  handles.push(h);
  return h;
};

async function refusals(reason: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = new RegExp(`^polbot_discord_interactions_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  if (!m) throw new Error(`no refusal counter for ${reason} in /metrics`);
  return Number(m[1]);
}

const ping = (id = String(BigInt(Date.now()) * 4_194_304n + BigInt(Math.floor(Math.random() * 4_000_000)))) => ({
  id,
  application_id: fake.applicationId,
  type: 1,
  token: 'not-a-real-token',
  version: 1,
});

// The whole bot (database included) starts here; a loaded machine needs more than the default.
beforeAll(async () => {
  fake = await startFakeDiscord({ guildIds: [GUILD_ID], heartbeatIntervalMs: 300 });
  dataDir = await mkdtemp(join(tmpdir(), 'polbot-discord-http-'));
  const config = loadConfig({
    DISCORD_TOKEN: fake.token,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    DISCORD_GUILD_ID: GUILD_ID,
    DISCORD_PUBLIC_KEY: fake.publicKey,
    POLBOT_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_PER_USER: '0',
    POL_TIMEOUT_MS: '8000',
  });
  // Every line the bot writes, kept without any secret registered: what it logs is what is checked.
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  bot = await startBot(config, createLogger({ level: 'trace', destination: sink }));
  base = `http://127.0.0.1:${bot.port}`;
  store = bot.core.upstream.sim!.store;
  await Promise.all([bot.core.upstream.source.list('project'), bot.core.upstream.source.list('exchange')]);
  // The Developer Portal's own check: a PING must get a PONG and a bad signature a 401.
  await fake.setInteractionsEndpoint(`${base}/discord/interactions`);
}, 120_000);

afterAll(async () => {
  await bot?.stop();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('Discord over HTTP: the endpoint', () => {
  it('runs without a gateway connection, registers the commands, and schedules digests in its one process', async () => {
    expect(fake.connectionCount).toBe(0);
    expect(fake.calls({ method: 'GET', path: '/gateway/bot' })).toHaveLength(0);
    expect(fake.calls({ method: 'GET', path: '/users/@me' }).length).toBeGreaterThanOrEqual(1);
    expect(fake.commands(GUILD_ID).map((c) => c.name)).toContain('pol');
    expect(bot.discord?.primary).toBe(true);
    const health = (await (await fetch(`${base}/healthz`)).json()) as { components?: Record<string, { ok: boolean; detail?: string }> };
    expect(JSON.stringify(health)).toContain('http interactions');
  });

  it('answers PING with PONG', async () => {
    const res = await fake.postToEndpoint({ body: ping() });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/json');
    expect(JSON.parse(res.bytes.toString())).toEqual({ type: 1 });
  });

  it('answers 401 to a bad signature, and counts it', async () => {
    const before = await refusals('bad_signature');
    const res = await fake.postToEndpoint({ body: ping(), signature: 'invalid' });
    expect(res.status).toBe(401);
    expect(await refusals('bad_signature')).toBe(before + 1);
  });

  it('answers 401 to a body changed after it was signed', async () => {
    const signed = JSON.stringify(ping());
    const before = await refusals('bad_signature');
    const res = await fake.postToEndpoint({ body: signed.replace('"type":1', '"type":2'), signedBody: signed });
    expect(res.status).toBe(401);
    expect(await refusals('bad_signature')).toBe(before + 1);
  });

  it('answers 401 to a request with no signature, and counts it', async () => {
    const before = await refusals('missing_signature');
    const res = await fake.postToEndpoint({ body: ping(), signature: 'none' });
    expect(res.status).toBe(401);
    expect(await refusals('missing_signature')).toBe(before + 1);
  });

  it('answers 401 to a correctly signed request older than five minutes, or from the future', async () => {
    const before = await refusals('stale');
    const now = Math.floor(Date.now() / 1000);
    expect((await fake.postToEndpoint({ body: ping(), timestamp: now - 6 * 60 })).status).toBe(401);
    expect((await fake.postToEndpoint({ body: ping(), timestamp: now + 6 * 60 })).status).toBe(401);
    expect(await refusals('stale')).toBe(before + 2);
    // Within the window, a clock a little off is fine.
    expect((await fake.postToEndpoint({ body: ping(), timestamp: now - 60 })).status).toBe(200);
  });

  it('answers 401 to the same signed interaction sent again', async () => {
    const body = JSON.stringify(ping());
    expect((await fake.postToEndpoint({ body })).status).toBe(200);
    const before = await refusals('replayed');
    expect((await fake.postToEndpoint({ body })).status).toBe(401);
    expect(await refusals('replayed')).toBe(before + 1);
  });

  it('answers 400 to a signed body that is not JSON, or not an interaction, and 400 to an interaction type it does not serve', async () => {
    const before = await refusals('malformed');
    expect((await fake.postToEndpoint({ body: '{"type":1,' })).status).toBe(400);
    expect((await fake.postToEndpoint({ body: '[1,2,3]' })).status).toBe(400);
    expect((await fake.postToEndpoint({ body: { ...ping(), type: 2 } })).status).toBe(400);
    expect(await refusals('malformed')).toBe(before + 3);
    const unknown = await refusals('unknown_type');
    expect((await fake.postToEndpoint({ body: { ...ping(), type: 99, token: 'x', data: {} } })).status).toBe(400);
    // A modal submit: polbot never opens a modal.
    expect((await fake.postToEndpoint({ body: { ...ping(), type: 5, token: 'x', data: {} } })).status).toBe(400);
    expect(await refusals('unknown_type')).toBe(unknown + 2);
    // Still serving after all of it.
    expect((await fake.postToEndpoint({ body: ping() })).status).toBe(200);
  });

  it('answers 413 to a body over its size limit without reading it all', async () => {
    const res = await fake.postToEndpoint({ body: JSON.stringify({ ...ping(), pad: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(res.status).toBe(413);
  });
});

describe('Discord over HTTP: commands, clicks and autocomplete', () => {
  it('answers /pol card binance in the HTTP response itself: multipart, the card and its PNG chart', async () => {
    const binance = store.exchange('binance')!;
    // The first lookup fills the cache and draws the chart; the answer measured is the ordinary one.
    await bot.core.run('exchange:binance');
    const h = track(fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'binance' } }));
    const x = await h.httpResponse();
    expect(x.failure).toBeUndefined();
    expect(x.ms).toBeLessThan(3_000);
    expect(x.contentType).toMatch(/^multipart\/form-data; boundary=/);
    const r = response(x);
    expect(r.type).toBe(4);
    const embed = embedOf(r.data);
    expect(embed?.title).toBe('Binance');
    expect(field(embed, 'Probability of Loss (lower is safer)')?.value).toContain(`**${polText(last(binance.pol))}**`);
    expect(embed?.footer?.text).toContain('SIMULATED DATA');
    expect((r.data?.flags ?? 0) & EPHEMERAL).toBe(0);
    expect(r.data?.allowed_mentions).toEqual({ parse: [] });

    expect(x.files).toHaveLength(1);
    const [png] = x.files;
    expect(png?.field).toBe('files[0]');
    expect(png?.contentType).toBe('image/png');
    expect(png?.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(embed?.image?.url).toBe(`attachment://${png?.name}`);
    expect(r.data?.attachments?.map((a) => String(a.id))).toEqual(['0']);

    // Discord made the message from the response: in the channel, with the chart attached, and no deferral or edit.
    const stored = h.original();
    expect(stored?.embeds[0]?.title).toBe('Binance');
    expect(stored?.attachments.map((a) => a.filename)).toEqual([png?.name]);
    expect(h.originalEdits()).toHaveLength(0);
    expect(
      fake.calls({ method: 'POST', path: `/interactions/${h.id}/${h.token}/callback` }).filter((c) => c.via !== 'http-response'),
    ).toHaveLength(0);
  });

  it('defers at once when the answer is slow, then edits the deferral into the card with its chart', async () => {
    const kraken = store.exchange('kraken')!;
    const invoke = bot.core.invoke.bind(bot.core);
    bot.core.invoke = async (invocation, caller) => {
      await new Promise((r) => setTimeout(r, 2_600));
      return invoke(invocation, caller);
    };
    try {
      const h = track(fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'exchange:kraken' } }));
      const x = await h.httpResponse();
      expect(x.failure).toBeUndefined();
      expect(x.contentType).toContain('application/json');
      expect(response(x).type).toBe(5);
      expect(((response(x).data?.flags as number | undefined) ?? 0) & EPHEMERAL).toBe(0);
      // Inside Discord's 3 s, with room for the trip back, though the answer itself came later.
      expect(x.ms).toBeLessThan(2_500);

      const edit = await h.waitForEdit(15_000);
      const embed = embedOf(edit.body as Message);
      expect(embed?.title).toBe('Kraken');
      expect(field(embed, 'Probability of Loss (lower is safer)')?.value).toContain(`**${polText(last(kraken.pol))}**`);
      expect(edit.files[0]?.contentType).toBe('image/png');
      expect(edit.files[0]?.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(h.original()?.attachments).toHaveLength(1);
      expect(h.failure()).toBeUndefined();
    } finally {
      bot.core.invoke = invoke;
    }
  });

  it("answers a click on a card's button with a new message of the follow-up, as over the gateway", async () => {
    const h = track(fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'exchange:binance' } }));
    const x = await h.httpResponse();
    const card = h.original()!;
    const buttons = (response(x).data?.components ?? [])
      .flatMap((row) => row.components)
      .filter((c) => c.type === 2 && c.custom_id?.startsWith(`${RUN_ID}:`));
    const chart = buttons.find((b) => b.custom_id?.startsWith(`${RUN_ID}:chart?`));
    expect(chart, JSON.stringify(buttons.map((b) => b.custom_id))).toBeDefined();

    const click = track(fake.sendComponent({ custom_id: chart!.custom_id!, component_type: 2, message: card }));
    const cx = await click.httpResponse();
    expect(cx.failure).toBeUndefined();
    const r = response(cx);
    // The gateway adapter answers these with a reply of their own (deferred or not): the card stays as it was.
    expect([4, 5]).toContain(r.type);
    const answer = r.type === 4 ? { body: r.data as Message, files: cx.files } : await click.waitForEdit(15_000);
    const embed = embedOf(answer.body as Message);
    expect(embed?.title).toMatch(/^Binance: /);
    expect(answer.files[0]?.contentType).toBe('image/png');
    expect(embed?.image?.url).toBe(`attachment://${answer.files[0]?.name}`);
    expect(answer.files[0]?.name).toMatch(/^exchange-binance-/);
    expect(fake.messages(fake.channelIds[GUILD_ID]!).find((m) => m.id === card.id)?.embeds[0]?.title).toBe('Binance');
  });

  it('updates the message when a candidate is chosen from the menu, then shows the card to the channel', async () => {
    const chosen = store.project('shibaswap')!;
    const h = track(fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'shiba' } }));
    const x = await h.httpResponse();
    const r = response(x);
    expect(r.type).toBe(4);
    expect((r.data?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    const menu = r.data?.components?.[0]?.components[0];
    expect(menu).toMatchObject({ type: 3, custom_id: CHOOSE_ID });
    expect(menu?.options?.map((o) => o.value).sort()).toEqual(['card?name=project%3Ashiba-inu', 'card?name=project%3Ashibaswap']);

    const pick = track(
      fake.sendComponent({ custom_id: CHOOSE_ID, component_type: 3, values: ['card?name=project%3Ashibaswap'], message: h.original()! }),
    );
    const px = await pick.httpResponse();
    expect(px.failure).toBeUndefined();
    expect(response(px).type).toBe(7);
    expect(response(px).data).toMatchObject({ components: [] });
    expect(response(px).data?.content).toContain('Looking up');

    const card = await pick.waitForFollowup(15_000);
    const embed = embedOf(card.body as Message);
    expect(embed?.title).toBe(`${chosen.name} (${chosen.ticker})`);
    expect(field(embed, 'Probability of Loss (lower is safer)')?.value).toContain(`**${polText(last(chosen.pol))}**`);
    expect(((card.body as Message).flags ?? 0) & EPHEMERAL).toBe(0);
    const confirmation = await pick.waitForEdit(5_000);
    expect((confirmation.body as Message).content).toBe(`Shown: ${chosen.name}`);
  });

  it('answers autocomplete with choices from the lists', async () => {
    const h = track(fake.sendAutocomplete({ name: 'pol', subcommand: 'card', options: { name: 'binan' }, focused: 'name' }));
    const x = await h.httpResponse();
    expect(x.failure).toBeUndefined();
    expect(response(x).type).toBe(8);
    const choices = response(x).data?.choices ?? [];
    expect(choices.map((c) => c.value)).toContain('exchange:binance');
    expect(choices.find((c) => c.value === 'exchange:binance')?.name).toBe('Binance · exchange');
  });

  it('answers "Check with polbot" on a message to the person alone', async () => {
    const posted = await bot.discord!.postReply(fake.channelIds[GUILD_ID]!, { kind: 'text', text: 'Moving funds from Kraken to OKX' });
    const message = fake.messages(fake.channelIds[GUILD_ID]!).find((m) => m.id === posted.id) as APIMessage;
    const h = track(fake.sendMessageCommand({ name: CHECK_MESSAGE, message }));
    const x = await h.httpResponse();
    const r = response(x);
    const shown = r.type === 4 ? JSON.stringify(r.data) : JSON.stringify((await h.waitForEdit(15_000)).body);
    expect(((r.data?.flags as number | undefined) ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    expect(shown).toContain('Kraken');
    expect(shown).toContain(polText(last(store.exchange('kraken')!.pol)));
  });

  it('apologises to the person for an interaction it has no answer for, instead of leaving it to fail', async () => {
    const h = track(fake.sendComponent({ custom_id: 'someone-else:button', component_type: 2 }));
    const x = await h.httpResponse();
    expect(x.failure).toBeUndefined();
    expect(response(x).type).toBe(4);
    expect((response(x).data?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    expect(response(x).data?.content).toContain('Something went wrong');
  });

  it('answers a command whose core fails with a short error to the person', async () => {
    const invoke = bot.core.invoke.bind(bot.core);
    bot.core.invoke = () => Promise.reject(new Error('upstream exploded'));
    try {
      const h = track(fake.sendCommand({ name: 'pol', subcommand: 'card', options: { name: 'exchange:kraken' } }));
      const r = response(await h.httpResponse());
      expect(r.type).toBe(4);
      expect((r.data?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
      expect(JSON.stringify(r.data)).toContain('Something went wrong on our side');
      expect(JSON.stringify(r.data)).not.toContain('upstream exploded');
    } finally {
      bot.core.invoke = invoke;
    }
  });
});

describe('Discord over HTTP: posting without an interaction', () => {
  it('posts digests and finds its own messages with the bot token over REST, knowing itself from GET /users/@me', async () => {
    const channelId = fake.channelIds[GUILD_ID]!;
    const { reply } = await bot.core.run('exchange:binance');
    const posted = await bot.discord!.postReply(channelId, reply);
    expect(posted.id).toMatch(/^\d+$/);
    const call = fake.calls({ method: 'POST', path: `/channels/${channelId}/messages` }).at(-1)!;
    expect(call.headers.authorization).toBe(`Bot ${fake.token}`);
    expect(call.files[0]?.contentType).toBe('image/png');
    const stored = fake.messages(channelId).find((m) => m.id === posted.id)!;
    expect(await bot.discord!.findRecentMessage(channelId, stored.embeds[0]!.title!)).toBe(posted.id);
    expect(await bot.discord!.findRecentMessage(channelId, 'no message carries this')).toBeNull();
  });
});

describe('Discord over HTTP: secrets', () => {
  it('never writes the bot token or an interaction token in a log line or in /metrics', async () => {
    expect(handles.length).toBeGreaterThan(5);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const secrets = [fake.token, ...handles.map((h) => h.token)];
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(logs.includes(secret)).toBe(false);
      expect(metrics.includes(secret)).toBe(false);
    }
  });
});
