import { once } from 'node:events';
import {
  AttachmentBuilder,
  Client,
  DiscordAPIError,
  EmbedBuilder,
  Events,
  GatewayIntentBits,
  type Interaction,
  MessageFlags,
  RESTEvents,
  type RateLimitData,
  Routes,
  type TextChannel,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';

// A complete 1x1 RGBA PNG; the exact bytes are the truth the upload is compared against.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const GUILD_ID = '1100000000000000001';
const FAILING_CHANNEL = '1100000000000000077';

function newClient(fake: FakeDiscord): Client {
  return new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiUrl } });
}

/** Resolves with the next interaction the client emits; the test body then plays the handler. */
function nextInteraction(client: Client, timeoutMs = 5_000): Promise<Interaction> {
  return once(client, Events.InteractionCreate, { signal: AbortSignal.timeout(timeoutMs) }).then(
    ([interaction]) => interaction as Interaction,
  );
}

describe('fake Discord with the real discord.js client', () => {
  let fake: FakeDiscord;
  let client: Client;
  let channelId: string;

  beforeAll(async () => {
    fake = await startFakeDiscord({
      guildIds: [GUILD_ID],
      channels: [{ id: FAILING_CHANNEL, guildId: GUILD_ID, name: 'locked' }],
      heartbeatIntervalMs: 300,
    });
    channelId = fake.channelIds[GUILD_ID]!;
    client = newClient(fake);
  });

  afterAll(async () => {
    await client?.destroy();
    await fake?.close();
  });

  it('logs in, identifies with the requested intents and becomes ready with the guild cached', async () => {
    const ready = once(client, Events.ClientReady, { signal: AbortSignal.timeout(5_000) });
    await expect(client.login(fake.token)).resolves.toBe(fake.token);
    await ready;

    expect(client.isReady()).toBe(true);
    expect(client.user?.id).toBe(fake.applicationId);
    expect(client.application?.id).toBe(fake.applicationId);
    expect(client.guilds.cache.get(GUILD_ID)?.available).toBe(true);
    expect(client.channels.cache.get(channelId)?.isTextBased()).toBe(true);

    // GUILDS is bit 0; nothing else was asked for.
    expect(fake.identifies).toHaveLength(1);
    expect(fake.identifies[0]).toMatchObject({ intents: 1, tokenValid: true, shard: [0, 1] });
    expect(fake.connections[0]).toMatchObject({ path: '/', query: { v: '10', encoding: 'json' } });

    const gatewayCall = fake.calls({ method: 'GET', route: '/gateway/bot' })[0];
    expect(gatewayCall?.headers.authorization).toBe(`Bot ${fake.token}`);
    expect(gatewayCall?.status).toBe(200);

    // A heartbeat round trip proves HELLO's interval was honoured and acks arrive.
    await fake.waitForGateway('heartbeat', 1, 2_000);

    const application = await client.application!.fetch();
    expect(application.id).toBe(fake.applicationId);
    expect(await client.rest.get(Routes.user())).toMatchObject({ id: fake.applicationId, bot: true });
  });

  it('delivers a slash command and records deferReply plus a multipart editReply with the PNG and embed', async () => {
    const next = nextInteraction(client);
    const handle = fake.sendCommand({ name: 'risk', subcommand: 'token', options: { symbol: 'BTC', horizon: 30 } });
    const interaction = await next;
    if (!interaction.isChatInputCommand()) throw new Error(`expected a chat input command, got type ${interaction.type}`);

    expect(interaction.id).toBe(handle.id);
    expect(interaction.guildId).toBe(GUILD_ID);
    expect(interaction.channelId).toBe(channelId);
    expect(interaction.user.id).toBe(fake.defaultUser.id);
    expect(interaction.commandName).toBe('risk');
    expect(interaction.options.getSubcommand()).toBe('token');
    expect(interaction.options.getString('symbol', true)).toBe('BTC');
    expect(interaction.options.getInteger('horizon', true)).toBe(30);

    await interaction.deferReply();
    const reply = await interaction.editReply({
      embeds: [new EmbedBuilder().setTitle('BTC risk').setDescription('Probability of loss: 12%')],
      files: [new AttachmentBuilder(PNG, { name: 'chart.png' })],
    });

    const callback = await handle.callback();
    expect(callback.type).toBe(5);

    const edit = await handle.waitForEdit();
    expect(edit.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(edit.headers.authorization).toBeUndefined();
    expect(edit.files).toHaveLength(1);
    expect(edit.files[0]).toMatchObject({ field: 'files[0]', name: 'chart.png', contentType: 'image/png' });
    expect(edit.files[0]!.bytes.equals(PNG)).toBe(true);
    expect(edit.body).toMatchObject({
      embeds: [{ title: 'BTC risk', description: 'Probability of loss: 12%' }],
      attachments: [{ id: '0' }],
    });
    expect(handle.originalEdits()).toHaveLength(1);

    // The client got a usable message back, and the stored attachment is the uploaded file.
    expect(reply.embeds[0]?.title).toBe('BTC risk');
    const attachment = reply.attachments.first();
    expect(attachment?.name).toBe('chart.png');
    const downloaded = Buffer.from(await (await fetch(attachment!.url)).arrayBuffer());
    expect(downloaded.equals(PNG)).toBe(true);
    expect(handle.original()?.flags ?? 0).toBe(0);
  });

  it('answers autocomplete with the choices the handler responded with', async () => {
    const next = nextInteraction(client);
    const handle = fake.sendAutocomplete({ name: 'risk', subcommand: 'token', options: { symbol: 'bt' }, focused: 'symbol' });
    const interaction = await next;
    if (!interaction.isAutocomplete()) throw new Error('expected autocomplete');
    expect(interaction.options.getFocused(true)).toMatchObject({ name: 'symbol', value: 'bt' });

    const choices = [
      { name: 'Bitcoin (BTC)', value: 'BTC' },
      { name: 'BitTorrent (BTT)', value: 'BTT' },
    ];
    await interaction.respond(choices);
    const callback = await handle.callback();
    expect(callback.type).toBe(8);
    expect(callback.data).toEqual({ choices });
  });

  it('records update() on a string select as an UPDATE_MESSAGE that edits the component message', async () => {
    const next = nextInteraction(client);
    const handle = fake.sendComponent({ custom_id: 'horizon', component_type: 3, values: ['30d'] });
    const interaction = await next;
    if (!interaction.isStringSelectMenu()) throw new Error('expected a string select');
    expect(interaction.customId).toBe('horizon');
    expect(interaction.values).toEqual(['30d']);

    await interaction.update({ content: 'Horizon: 30 days', components: [] });
    const callback = await handle.callback();
    expect(callback.type).toBe(7);
    expect(callback.data).toMatchObject({ content: 'Horizon: 30 days', components: [] });
    expect(handle.original()?.content).toBe('Horizon: 30 days');
  });

  it('records deferUpdate() followed by an edit of the original component message', async () => {
    const next = nextInteraction(client);
    const handle = fake.sendComponent({ custom_id: 'refresh', component_type: 2 });
    const interaction = await next;
    if (!interaction.isButton()) throw new Error('expected a button');

    await interaction.deferUpdate();
    await interaction.editReply({ content: 'Refreshed' });
    expect((await handle.callback()).type).toBe(6);
    expect((await handle.waitForEdit()).body).toMatchObject({ content: 'Refreshed' });
    expect(handle.original()?.content).toBe('Refreshed');
  });

  it('returns the callback response object for withResponse and records followUps', async () => {
    const next = nextInteraction(client);
    const handle = fake.sendCommand({
      name: 'ping',
      user: { id: '1100000000000000123', username: 'alice' },
      memberPermissions: '8',
    });
    const interaction = await next;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    expect(interaction.user).toMatchObject({ id: '1100000000000000123', username: 'alice' });
    // ADMINISTRATOR is bit 3.
    expect(interaction.memberPermissions?.bitfield).toBe(8n);

    const response = await interaction.reply({ content: 'pong', withResponse: true });
    expect(response.interaction.id).toBe(handle.id);
    expect(response.resource?.message?.content).toBe('pong');
    expect((await handle.callback()).call.query).toMatchObject({ with_response: 'true' });

    const followUp = await interaction.followUp({ content: 'details', flags: MessageFlags.Ephemeral });
    expect(followUp.content).toBe('details');
    expect(followUp.flags.has(MessageFlags.Ephemeral)).toBe(true);
    expect((await handle.waitForFollowup()).body).toMatchObject({ content: 'details', flags: 64 });
    expect(handle.originalEdits()).toHaveLength(0);
  });

  it('rejects a second initial response the way Discord does', async () => {
    const next = nextInteraction(client);
    fake.sendCommand({ name: 'ping' });
    const interaction = await next;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    await interaction.reply({ content: 'pong' });
    // Bypass discord.js's own "already replied" guard to reach the platform.
    await expect(
      client.rest.post(Routes.interactionCallback(interaction.id, interaction.token), {
        body: { type: 4, data: { content: 'again' } },
        auth: false,
      }),
    ).rejects.toMatchObject({ code: 40060, status: 400 });
  });

  it('stores guild commands from a bulk PUT, returns them on GET and keeps ids and versions on identical re-registration', async () => {
    const route = Routes.applicationGuildCommands(fake.applicationId, GUILD_ID);
    const definitions = [
      {
        name: 'risk',
        description: 'Risk of a token',
        options: [{ type: 3, name: 'symbol', description: 'Ticker', required: true, autocomplete: true }],
      },
      { name: 'ping', description: 'Health check' },
    ];
    const first = (await client.rest.put(route, { body: definitions })) as { id: string; name: string; version: string }[];
    expect(first.map((c) => c.name)).toEqual(['risk', 'ping']);
    expect(new Set(first.map((c) => c.id)).size).toBe(2);

    const listed = (await client.rest.get(route)) as { id: string; name: string; guild_id: string }[];
    expect(listed.map((c) => [c.id, c.name, c.guild_id])).toEqual(first.map((c) => [c.id, c.name, GUILD_ID]));

    const again = (await client.rest.put(route, { body: definitions })) as typeof first;
    expect(again).toEqual(first);

    const changed = (await client.rest.put(route, {
      body: [{ ...definitions[0], description: 'Risk of a crypto asset' }, definitions[1]],
    })) as typeof first;
    expect(changed[0]!.id).toBe(first[0]!.id);
    expect(changed[0]!.version).not.toBe(first[0]!.version);
    expect(changed[1]!.version).toBe(first[1]!.version);

    expect(fake.calls({ method: 'PUT', route: '/applications/:applicationId/guilds/:guildId/commands' })).toHaveLength(3);
    expect(fake.commands(GUILD_ID).map((c) => c.description)).toEqual(['Risk of a crypto asset', 'Health check']);
    expect(fake.commands()).toEqual([]);

    // With the command registered, interaction options take their declared types.
    const next = nextInteraction(client);
    fake.sendCommand({ name: 'risk', options: { symbol: 'ETH' } });
    const interaction = await next;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    expect(interaction.commandId).toBe(first[0]!.id);
    await interaction.reply({ content: 'ok' });
  });

  it('rejects invalid command definitions with Discord form errors', async () => {
    await expect(
      client.rest.put(Routes.applicationCommands(fake.applicationId), { body: [{ name: 'Bad Name', description: 'x' }] }),
    ).rejects.toMatchObject({ code: 50035, status: 400 });
  });

  it('records channel messages sent through channel.send and client.rest.post', async () => {
    const channel = client.channels.cache.get(channelId) as TextChannel;
    const sent = await channel.send({ content: 'Alert: BTC risk rose', files: [new AttachmentBuilder(PNG, { name: 'alert.png' })] });
    expect(sent.content).toBe('Alert: BTC risk rose');
    expect(sent.attachments.first()?.name).toBe('alert.png');

    await client.rest.post(Routes.channelMessages(channelId), { body: { content: 'plain JSON' } });

    const posts = fake.calls({ method: 'POST', route: '/channels/:channelId/messages' }).filter((c) => c.path.includes(channelId));
    expect(posts.map((c) => (c.body as { content: string }).content)).toEqual(['Alert: BTC risk rose', 'plain JSON']);
    expect(posts[0]!.files[0]!.bytes.equals(PNG)).toBe(true);
    expect(posts[1]!.headers['content-type']).toBe('application/json');
    expect(fake.messages(channelId).map((m) => m.content)).toEqual(expect.arrayContaining(['Alert: BTC risk rose', 'plain JSON']));

    await expect(channel.send('x'.repeat(2001))).rejects.toMatchObject({ code: 50035, status: 400 });
    await expect(client.rest.post(Routes.channelMessages('1100000000000000999'), { body: { content: 'hi' } })).rejects.toMatchObject({
      code: 10003,
      status: 404,
    });
  });

  it('takes allowed_mentions on a message and an edit, and refuses what Discord refuses in it', async () => {
    const quiet = { parse: [] };
    const posted = (await client.rest.post(Routes.channelMessages(channelId), {
      body: { content: 'Acknowledged by <@310000000000000001>', allowed_mentions: quiet },
    })) as { id: string };
    await expect(
      client.rest.patch(Routes.channelMessage(channelId, posted.id), {
        body: { content: 'Resolved by <@310000000000000001>', allowed_mentions: quiet },
      }),
    ).resolves.toMatchObject({ content: 'Resolved by <@310000000000000001>' });
    const sent = fake.calls({ route: '/channels/:channelId/messages/:messageId' }).filter((c) => c.path.endsWith(posted.id));
    expect(sent.map((c) => (c.body as { allowed_mentions?: unknown }).allowed_mentions)).toEqual([quiet]);

    const refused = (allowed_mentions: unknown) =>
      client.rest.post(Routes.channelMessages(channelId), { body: { content: 'x', allowed_mentions } }).catch((e: unknown) => e);
    expect(await refused({ parse: ['people'] })).toMatchObject({ code: 50035, status: 400 });
    expect(await refused({ parse: ['users'], users: ['310000000000000001'] })).toMatchObject({ code: 50035, status: 400 });
    expect(await refused({ users: ['dana'] })).toMatchObject({ code: 50035, status: 400 });
    expect(await refused({ roles: Array.from({ length: 101 }, (_, i) => `3100000000000${String(i).padStart(5, '0')}`) })).toMatchObject({
      code: 50035,
      status: 400,
    });
  });

  it('surfaces failChannel as a DiscordAPIError carrying the configured code', async () => {
    fake.failChannel(FAILING_CHANNEL, { status: 403, code: 50001, message: 'Missing Access' });
    const error = await client.rest.post(Routes.channelMessages(FAILING_CHANNEL), { body: { content: 'hi' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ code: 50001, status: 403, message: 'Missing Access' });

    fake.failChannel(FAILING_CHANNEL, { status: 404, code: 10003, message: 'Unknown Channel' });
    await expect((client.channels.cache.get(FAILING_CHANNEL) as TextChannel).send('hi')).rejects.toMatchObject({
      code: 10003,
      status: 404,
    });

    fake.restoreChannel(FAILING_CHANNEL);
    await expect(client.rest.post(Routes.channelMessages(FAILING_CHANNEL), { body: { content: 'hi' } })).resolves.toMatchObject({
      content: 'hi',
    });
  });

  it('makes the client wait out a 429 and retry the channel message', async () => {
    const retryAfterSec = 0.6;
    const limited: RateLimitData[] = [];
    const onLimit = (data: RateLimitData) => limited.push(data);
    client.rest.on(RESTEvents.RateLimited, onLimit);
    try {
      fake.rateLimitNext('POST /channels/:channelId/messages', { retryAfterSec });
      const started = Date.now();
      await expect(client.rest.post(Routes.channelMessages(channelId), { body: { content: 'after the limit' } })).resolves.toMatchObject({
        content: 'after the limit',
      });
      const elapsed = Date.now() - started;

      const attempts = fake.calls((c) => c.method === 'POST' && (c.body as { content?: string })?.content === 'after the limit');
      expect(attempts.map((c) => c.status)).toEqual([429, 200]);
      expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(retryAfterSec * 1000);
      expect(elapsed).toBeGreaterThanOrEqual(retryAfterSec * 1000);
      expect(limited).toHaveLength(1);
      expect(limited[0]!.global).toBe(false);
    } finally {
      client.rest.off(RESTEvents.RateLimited, onLimit);
    }
  });

  it('reconnects and resumes after the gateway drops the connection, then still handles interactions', async () => {
    const connections = fake.connectionCount;
    const identifies = fake.identifyCount;

    // The client's own event is the proof: it saw RESUMED on the new socket.
    const resumed = once(client, Events.ShardResume, { signal: AbortSignal.timeout(5_000) });
    fake.dropConnections(4000);
    await resumed;
    expect(fake.connectionCount).toBe(connections + 1);
    expect(fake.identifyCount).toBe(identifies);
    expect(fake.connections.at(-1)?.path).toBe('/resume');
    expect(fake.connections.at(-2)).toMatchObject({ closeCode: 4000, closedBy: 'server' });

    const next = nextInteraction(client);
    const handle = fake.sendCommand({ name: 'ping' });
    const interaction = await next;
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    await interaction.reply({ content: 'still here' });
    expect(await handle.callback()).toMatchObject({ type: 4, data: { content: 'still here' } });
  });

  it('replays an interaction dispatched while the socket was down once the client resumes', async () => {
    const next = nextInteraction(client);
    const resumed = once(client, Events.ShardResume, { signal: AbortSignal.timeout(5_000) });
    fake.dropConnections('abrupt');
    const handle = fake.sendCommand({ name: 'ping' });
    await resumed;

    const interaction = await next;
    expect(interaction.id).toBe(handle.id);
    if (!interaction.isChatInputCommand()) throw new Error('expected a command');
    await interaction.reply({ content: 'replayed' });
    expect((await handle.callback()).type).toBe(4);
    expect(fake.connections.at(-2)?.closeCode).toBe(1006);
  });

  it('captures requests and gateway frames as text for secret scanning', async () => {
    const marker = `marker-${Date.now()}`;
    await client.rest.post(Routes.channelMessages(channelId), {
      body: { content: 'multipart text part' },
      files: [{ name: 'note.txt', data: Buffer.from(marker), contentType: 'text/plain' }],
    });
    const raw = fake.rawPayloads().join('\n');
    expect(raw).toContain(marker);
    expect(raw).toContain(`authorization: Bot ${fake.token}`);
    // The IDENTIFY frame, which carries the token, is part of what a scan sees.
    expect(raw).toMatch(/GATEWAY \/\n\n\{"op":2,"d":\{"token":/);
  });
});

describe('fake Discord platform rules', () => {
  it('expires an interaction that is not answered within the callback deadline', async () => {
    const fake = await startFakeDiscord({ heartbeatIntervalMs: 300, callbackDeadlineMs: 150 });
    const client = newClient(fake);
    try {
      await client.login(fake.token);
      const next = nextInteraction(client);
      const handle = fake.sendCommand({ name: 'slow' });
      const interaction = await next;
      if (!interaction.isChatInputCommand()) throw new Error('expected a command');
      await new Promise((resolve) => setTimeout(resolve, 250));
      await expect(interaction.deferReply()).rejects.toMatchObject({ code: 10062, status: 404 });
      expect(fake.calls({ path: `/interactions/${handle.id}/${handle.token}/callback` })[0]?.status).toBe(404);
    } finally {
      await client.destroy();
      await fake.close();
    }
  });

  it('makes login reject for a token the platform does not know', async () => {
    const fake = await startFakeDiscord();
    const client = newClient(fake);
    try {
      await expect(client.login('not-the-token')).rejects.toMatchObject({ code: 'TokenInvalid' });
      const [call] = fake.calls({ route: '/gateway/bot' });
      expect(call).toMatchObject({ status: 401, headers: { authorization: 'Bot not-the-token' } });
      expect(fake.connectionCount).toBe(0);
    } finally {
      await client.destroy();
      await fake.close();
    }
  });

  it('closes the gateway with 4014 when privileged intents are requested but not enabled', async () => {
    const fake = await startFakeDiscord({ heartbeatIntervalMs: 300 });
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent],
      rest: { api: fake.apiUrl },
    });
    try {
      const login = client.login(fake.token).catch((e: unknown) => e);
      await fake.waitForGateway('close', 1, 5_000);
      expect(fake.connections[0]).toMatchObject({ closeCode: 4014, closedBy: 'server' });
      expect(fake.identifies[0]?.intents).toBe(1 | (1 << 15));
      expect(await login).toBeInstanceOf(Error);
    } finally {
      await client.destroy();
      await fake.close();
    }
  });
});
