import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/server.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { postToBolt, slashCommandBody, startFakeSlack, type FakeSlack, type RecordedCall } from '../fakes/slack/index.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/index.js';
import {
  environmentOf,
  freePort,
  healthcheckCommand,
  readCompose,
  runHealthcheck,
  startNginx,
  startPostgres,
  startReplica,
  type ComposeFile,
  type LocalNginx,
  type LocalPostgres,
  type Replica,
} from '../helpers/compose.js';
import { secretWatch } from '../helpers/secret-watch.js';
import { startTestSimulator } from '../helpers/sim.js';
import { polText } from '../helpers/truth.js';

/**
 * docker-compose.yml, run without Docker: the file is read and interpolated as Compose reads it
 * with a .env's settings, and what it describes is started on loopback (PostgreSQL from the
 * machine's binaries with the postgres service's settings, one `polbot start` per polbot service
 * with that service's environment, nginx with the configuration the lb service mounts). Service
 * names become loopback ports; nothing else is changed. Then, through the load balancer only:
 * Slack commands and Discord interactions are answered by both replicas, a digest both replicas'
 * schedulers could take is posted once, and with one replica killed the other answers everything.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const COMPOSE = resolve(ROOT, 'docker-compose.yml');

const SIGNING_SECRET = `compose-test-signing-${randomBytes(8).toString('hex')}`;
const BOT_TOKEN = `xoxb-compose-${randomBytes(8).toString('hex')}`;
const POSTGRES_PASSWORD = `compose-pg-${randomBytes(8).toString('hex')}`;
const TELEGRAM_SECRET = `compose-telegram-${randomBytes(8).toString('hex')}`;
secretWatch.secret(POSTGRES_PASSWORD, 'PostgreSQL password (compose test)');

let sim: Simulator;
let slack: FakeSlack;
let discord: FakeDiscord;
let telegram: FakeTelegram;
let compose: ComposeFile;
let polbotServices: string[];
let postgres: LocalPostgres | undefined;
let replicas: Replica[] = [];
let nginx: LocalNginx | undefined;
let lb: string;
let databaseUrl: string;

/** The containers' DNS names, as the loopback address that serves each. */
const addresses = new Map<string, string>();
const translate = (value: string) => {
  let out = value;
  for (const [from, to] of addresses) out = out.split(from).join(to);
  return out;
};

beforeAll(async () => {
  [sim, slack, discord, telegram] = await Promise.all([
    startTestSimulator(),
    startFakeSlack({ botToken: BOT_TOKEN }),
    startFakeDiscord(),
    startFakeTelegram({ webhookRetryMs: 200 }),
  ]);
  // Known before the replicas start: Telegram's webhook is set to the balancer's URL.
  const lbPort = await freePort();
  // What a .env next to the compose file would hold; every other setting is left unset.
  compose = readCompose(COMPOSE, {
    POSTGRES_PASSWORD,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    POL_API_BASE_URL: sim.url,
    POL_API_KEY: sim.apiKey,
    SLACK_API_URL: slack.url,
    DISCORD_TOKEN: discord.token,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_PUBLIC_KEY: discord.publicKey,
    DISCORD_API_URL: discord.apiUrl,
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_URL: telegram.url,
    TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${lbPort}/telegram/webhook`,
    TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
  });
  polbotServices = Object.keys(compose.services).filter((name) => compose.services[name]!.build !== undefined);

  const pgEnv = environmentOf(compose.services.postgres!);
  postgres = await startPostgres({
    user: pgEnv.POSTGRES_USER ?? 'postgres',
    password: pgEnv.POSTGRES_PASSWORD!,
    db: pgEnv.POSTGRES_DB ?? pgEnv.POSTGRES_USER ?? 'postgres',
  });
  addresses.set('postgres:5432', `127.0.0.1:${postgres.port}`);

  // Each replica picks a free port (PORT 0) and says which; loopback cannot give both port 3000.
  const starting = await Promise.allSettled(
    polbotServices.map((name) => {
      const env = Object.fromEntries(Object.entries(environmentOf(compose.services[name]!)).map(([k, v]) => [k, translate(v)]));
      return startReplica(name, { ...env, PORT: '0', HOST: '127.0.0.1' }, 45_000);
    }),
  );
  // The ones that did start are stopped after the test even when another did not.
  replicas = starting.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  for (const s of starting) if (s.status === 'rejected') throw s.reason;
  databaseUrl = translate(environmentOf(compose.services[polbotServices[0]!]!).DATABASE_URL!);
  for (const [i, name] of polbotServices.entries()) {
    addresses.set(`${name}:${environmentOf(compose.services[name]!).PORT}`, `127.0.0.1:${replicas[i]!.port}`);
  }

  const conf = readFileSync(resolve(ROOT, mountedConfig()), 'utf8');
  const upstreams = [...conf.matchAll(/^\s*server\s+([^\s;{]+)[\s;]/gm)].map((m) => m[1]);
  // Every replica the compose file runs is behind the balancer, and nothing else is.
  expect(upstreams.sort()).toEqual([...addresses.keys()].filter((a) => !a.startsWith('postgres:')).sort());
  const listen = /^\s*listen\s+80;/m;
  expect(conf).toMatch(listen);
  nginx = await startNginx(translate(conf).replace(listen, `  listen 127.0.0.1:${lbPort};`), lbPort);
  lb = `http://127.0.0.1:${lbPort}`;
}, 90_000);

afterAll(async () => {
  await nginx?.stop();
  await Promise.all(replicas.map((r) => r.stop()));
  await postgres?.stop();
  await Promise.all([slack?.close(), discord?.close(), telegram?.close(), sim?.close()]);
});

/** The file the lb service mounts as nginx's server configuration. */
function mountedConfig(): string {
  const lbService = Object.values(compose.services).find((s) => s.image?.startsWith('nginx'));
  const mount = lbService?.volumes?.find((v) => v.split(':')[1] === '/etc/nginx/conf.d/default.conf');
  if (!mount) throw new Error('compose: no nginx service mounting a server configuration');
  return mount.split(':')[0]!;
}

const command = (text: string, channel: string, user = 'U0COMPOSE1') =>
  postToBolt(
    `${lb}/slack/events`,
    slashCommandBody({ text, channel_id: channel, user_id: user, response_url: slack.responseUrl(channel) }),
    SIGNING_SECRET,
  );

const header = (call: RecordedCall) =>
  ((call.args.blocks ?? []) as { type?: string; text?: { text?: string } }[]).find((b) => b.type === 'header')?.text?.text;

/** A card posted to `channel`, checked against the simulator's own numbers for the entity. */
async function expectCard(channel: string, kind: 'project' | 'exchange', slug: string): Promise<void> {
  const entity = kind === 'project' ? sim.store.project(slug)! : sim.store.exchange(slug)!;
  const post = await slack.waitFor('chat.postMessage', (c) => c.args.channel === channel, 20_000);
  expect(header(post)).toBe(entity.kind === 'project' ? `${entity.name} (${entity.ticker})` : entity.name);
  expect(JSON.stringify(post.args.blocks)).toContain(`*${polText(entity.pol[entity.pol.length - 1]!)}*`);
}

/** Discord commands a replica has answered, from its own /metrics. */
async function discordCommands(replica: Replica): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
  return sumOf(text, /^polbot_command_duration_seconds_count\{[^}]*platform="discord"[^}]*\} (\d+)$/gm);
}

/** Slack commands a replica has answered, from its own /metrics (not reachable through the balancer). */
async function slackCommands(replica: Replica): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
  return sumOf(text, /^polbot_command_duration_seconds_count\{[^}]*platform="slack"[^}]*\} (\d+)$/gm);
}

const sumOf = (text: string, re: RegExp) => [...text.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('docker-compose.yml, run on loopback', () => {
  it('describes PostgreSQL, two replicas of one build from the Dockerfile, and nginx; every healthcheck passes', async () => {
    expect(compose.services.postgres!.image).toMatch(/^postgres:15\b/);
    expect(compose.services.postgres!.volumes).toEqual([expect.stringMatching(/^pgdata:\/var\/lib\/postgresql\/data$/)]);
    expect(polbotServices).toHaveLength(2);
    const [a, b] = polbotServices.map((n) => compose.services[n]!);
    expect(a).toEqual(b);
    expect(a!.build).toBe('.');
    expect(existsSync(resolve(ROOT, 'Dockerfile'))).toBe(true);
    expect(a!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(environmentOf(a!).DATABASE_URL).toBe(`postgres://polbot:${POSTGRES_PASSWORD}@postgres:5432/polbot`);

    // The postgres image's check, with the machine's pg_isready pointed at the loopback server.
    const pgCheck = await runHealthcheck(
      healthcheckCommand(compose.services.postgres!),
      { PATH: `${postgres!.binDir}:${process.env.PATH}`, PGHOST: '127.0.0.1', PGPORT: String(postgres!.port) },
      10_000,
    );
    expect(pgCheck).toBe(0);
    // The replicas' check as the container runs it, where PORT is the replica's own.
    for (const r of replicas) {
      const code = await runHealthcheck(healthcheckCommand(a!), { PATH: process.env.PATH ?? '', PORT: String(r.port) }, 10_000);
      expect(code, r.name).toBe(0);
    }
    // And it can fail: pointed where nothing listens, it says so.
    expect(await runHealthcheck(healthcheckCommand(a!), { PATH: process.env.PATH ?? '', PORT: String(await freePort()) }, 10_000)).not.toBe(
      0,
    );
  });

  it('serves /healthz through the balancer, and keeps /metrics inside', async () => {
    for (let i = 0; i < polbotServices.length * 2; i++) {
      const res = await fetch(`${lb}/healthz`);
      expect(res.status).toBe(200);
      const health = (await res.json()) as { components: Record<string, { ok: boolean }> };
      expect(health.components.database!.ok).toBe(true);
      expect(health.components.slack!.ok).toBe(true);
    }
    expect((await fetch(`${lb}/metrics`)).status).toBe(404);
    // The checks went round both replicas.
    const upstreamsSeen = new Set(
      nginx!
        .accessLog()
        .split('\n')
        .filter((l) => l.startsWith('GET /healthz 200 '))
        .map((l) => l.split(' ')[3]),
    );
    expect(upstreamsSeen).toEqual(new Set(replicas.map((r) => `127.0.0.1:${r.port}`)));
  });

  it('passes the Slack, Discord, Telegram and health routes to the replicas, and nothing else', async () => {
    /** The replica nginx passed the request to, from its access log; `-` when it answered itself. */
    const upstreamOf = async (method: 'GET' | 'POST', path: string) => {
      const seen = nginx!.accessLog().length;
      await (
        await fetch(`${lb}${path}`, {
          method,
          ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
        })
      ).arrayBuffer();
      // nginx writes its access log line after the answer has gone: wait for it, a bounded while.
      const deadline = Date.now() + 5_000;
      while (!nginx!.accessLog().slice(seen).includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const line = nginx!.accessLog().slice(seen).split('\n')[0]!;
      expect(line.split(' ').slice(0, 2)).toEqual([method, path]);
      return line.split(' ')[3];
    };
    const replica = expect.stringMatching(/^127\.0\.0\.1:\d+$/);
    expect(await upstreamOf('POST', '/slack/events')).toEqual(replica);
    expect(await upstreamOf('GET', '/slack/install')).toEqual(replica);
    expect(await upstreamOf('GET', '/slack/oauth_redirect?code=c&state=s')).toEqual(replica);
    expect(await upstreamOf('POST', '/discord/interactions')).toEqual(replica);
    expect(await upstreamOf('POST', '/telegram/webhook')).toEqual(replica);
    expect(await upstreamOf('GET', '/healthz')).toEqual(replica);
    expect(await upstreamOf('GET', '/metrics')).toBe('-');
    expect(await upstreamOf('GET', '/slack/events')).toBe('-');
    expect(await upstreamOf('GET', '/_sim/move')).toBe('-');
  });

  // Started before the commands below so both replicas' schedulers tick while they run.
  let digestId: number;
  let madeDueAt: number;
  it('adds a digest through the balancer and makes its slot due', async () => {
    const ack = await command('digest add kraken, okx "0 * * * *" tz UTC', 'C0COMPOSEDIGEST');
    expect(ack.status).toBe(200);
    const added = await slack.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'C0COMPOSEDIGEST' && /^Digest #\d+ added/.test(String(c.args.text)),
      15_000,
    );
    digestId = Number(/^Digest #(\d+)/.exec(String(added.args.text))![1]);
    const rows = await sql<{ id: number; entities: { slug: string }[] }>(
      `SELECT id, entities FROM digests WHERE platform = 'slack' AND channel_id = $1`,
      ['C0COMPOSEDIGEST'],
    );
    expect(rows.map((r) => [r.id, r.entities.map((e) => e.slug)])).toEqual([[digestId, ['kraken', 'okx']]]);
    // The hourly slot that began this hour, as if polbot had been waiting for it: due now and
    // well inside the 6 hours a missed slot is still delivered in.
    const slot = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    await sql(`UPDATE digests SET next_slot = $2 WHERE id = $1`, [digestId, slot]);
    madeDueAt = Date.now();
  });

  it('answers signed slash commands through the balancer, from both replicas', async () => {
    const before = await Promise.all(replicas.map(slackCommands));
    const asked: [string, 'project' | 'exchange', string][] = [
      ['kraken', 'exchange', 'C0COMPOSE01'],
      ['solana', 'project', 'C0COMPOSE02'],
      ['okx', 'exchange', 'C0COMPOSE03'],
      ['cardano', 'project', 'C0COMPOSE04'],
      ['bybit', 'exchange', 'C0COMPOSE05'],
      ['polkadot', 'project', 'C0COMPOSE06'],
    ];
    for (const [slug, , channel] of asked) {
      const ack = await command(slug, channel);
      expect(ack.status).toBe(200);
      expect(ack.elapsedMs).toBeLessThan(3_000);
    }
    for (const [slug, kind, channel] of asked) await expectCard(channel, kind, slug);
    const after = await Promise.all(replicas.map(slackCommands));
    const answered = after.map((n, i) => n - before[i]!);
    for (const [i, n] of answered.entries()) expect(n, `commands answered by ${replicas[i]!.name}`).toBeGreaterThan(0);
    expect(answered.reduce((x, y) => x + y, 0)).toBe(asked.length);
  }, 60_000);

  it('posts the digest once, though both replicas run the scheduler', async () => {
    const posts = () =>
      slack
        .calls('chat.postMessage')
        .filter((c) => c.args.channel === 'C0COMPOSEDIGEST' && JSON.stringify(c.args).includes(`digest #${digestId} · `));
    await slack.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'C0COMPOSEDIGEST' && JSON.stringify(c.args).includes(`digest #${digestId} · `),
      25_000,
    );
    // Each replica ticks every 15 s: past that since the slot fell due, both have had it in reach.
    const settle = madeDueAt + 16_500 - Date.now();
    if (settle > 0) await new Promise((r) => setTimeout(r, settle));

    const runs = await sql<{ slot: Date; status: string; attempts: number }>(
      `SELECT slot, status, attempts FROM digest_runs WHERE digest_id = $1`,
      [digestId],
    );
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect(run).toMatchObject({ status: 'delivered', attempts: 1 });
    // One message per run, each carrying its own slot's key, and no key twice.
    const keys = posts().map((c) => /digest #\d+ · (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(JSON.stringify(c.args))?.[1]);
    const slots = runs.map((r) => r.slot.toISOString().slice(0, 16).replace('T', ' ')).sort();
    expect(keys.sort()).toEqual(slots);
    // Its content is the simulator's: Kraken's PoL as the digest's table shows it.
    const kraken = sim.store.exchange('kraken')!;
    expect(JSON.stringify(posts()[0]!.args)).toContain(polText(kraken.pol[kraken.pol.length - 1]!));
  }, 45_000);

  it('serves Discord over HTTP through the balancer: the portal check, signed commands answered by both replicas, forgeries refused', async () => {
    // The Developer Portal's check of the URL: a signed PING gets PONG, a badly signed one 401.
    await discord.setInteractionsEndpoint(`${lb}/discord/interactions`);
    const before = await Promise.all(replicas.map(discordCommands));
    const asked = ['kraken', 'okx', 'bybit', 'kraken'] as const;
    for (const slug of asked) {
      const h = discord.sendCommand({ name: 'pol', subcommand: 'card', options: { name: `exchange:${slug}` } });
      const x = await h.httpResponse();
      expect(x.failure).toBeUndefined();
      expect(x.ms).toBeLessThan(3_000);
      const first = x.body as { type: number; data?: { embeds?: { title?: string; fields?: { name: string; value: string }[] }[] } };
      // Ready in time, the card is the response itself; otherwise it is deferred and edited in.
      const message = first.type === 4 ? first.data : ((await h.waitForEdit(20_000)).body as NonNullable<typeof first.data>);
      const embed = message?.embeds?.[0];
      const exchange = sim.store.exchange(slug)!;
      expect(embed?.title).toBe(exchange.name);
      expect(embed?.fields?.find((f) => f.name.startsWith('Probability of Loss'))?.value).toContain(
        `**${polText(exchange.pol[exchange.pol.length - 1]!)}**`,
      );
    }
    const after = await Promise.all(replicas.map(discordCommands));
    const answered = after.map((n, i) => n - before[i]!);
    for (const [i, n] of answered.entries()) expect(n, `Discord commands answered by ${replicas[i]!.name}`).toBeGreaterThan(0);
    expect(answered.reduce((x, y) => x + y, 0)).toBe(asked.length);
    const forged = await discord.postToEndpoint({
      body: { id: '1', application_id: discord.applicationId, type: 1, token: 't', version: 1 },
      signature: 'invalid',
    });
    expect(forged.status).toBe(401);
  }, 90_000);

  it('takes Telegram through the balancer: each update once though it reaches both replicas, a request without the secret refused', async () => {
    expect(
      telegram
        .calls('setWebhook')
        .filter((c) => c.ok)
        .every((c) => c.args.url === `${lb}/telegram/webhook`),
    ).toBe(true);
    const ana = telegram.addUser({ first_name: 'Ana' });
    const answersTo = (id: number) =>
      telegram
        .messages(ana.id)
        .filter(
          (m) => m.sender === 'bot' && (m.message as { reply_to_message?: { message_id: number } }).reply_to_message?.message_id === id,
        );
    const said = telegram.say({ chatId: ana.id, from: ana, text: '/pol kraken' });
    const deadline = Date.now() + 20_000;
    while (answersTo(said.message.message_id).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const [card] = answersTo(said.message.message_id);
    expect((card?.message as { caption?: string } | undefined)?.caption).toContain(polText(sim.store.exchange('kraken')!.pol.at(-1)!));

    // Telegram sends it again, to each replica in turn: it has run, and it does not run again.
    for (const r of replicas) {
      const again = await fetch(`http://127.0.0.1:${r.port}/telegram/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TELEGRAM_SECRET },
        body: JSON.stringify(said.update),
      });
      expect(again.status).toBe(200);
    }
    const forged = await fetch(`${lb}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...said.update, update_id: said.update!.update_id + 1000 }),
    });
    expect(forged.status).toBe(401);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(answersTo(said.message.message_id)).toHaveLength(1);
  }, 60_000);

  it('keeps answering through the other replica when one is killed', async () => {
    const [dead, alive] = replicas as [Replica, Replica];
    expect(dead.child.kill('SIGKILL')).toBe(true);
    expect(await dead.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const before = await slackCommands(alive);

    for (let i = 0; i < 4; i++) expect((await fetch(`${lb}/healthz`)).status).toBe(200);
    const asked: [string, 'project' | 'exchange', string][] = [
      ['gemini', 'exchange', 'C0COMPOSE11'],
      ['dogecoin', 'project', 'C0COMPOSE12'],
      ['bitstamp', 'exchange', 'C0COMPOSE13'],
      ['avalanche', 'project', 'C0COMPOSE14'],
    ];
    for (const [slug, , channel] of asked) {
      const ack = await command(slug, channel);
      expect(ack.status).toBe(200);
      expect(ack.elapsedMs).toBeLessThan(3_000);
    }
    for (const [slug, kind, channel] of asked) await expectCard(channel, kind, slug);
    expect((await slackCommands(alive)) - before).toBe(asked.length);
  }, 60_000);
});
