import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import oauth from '@slack/oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startBot, type Bot } from '../../../app/bot.js';
import { loadConfig } from '../../../app/config.js';
import { createLogger } from '../../../src/log.js';
import {
  appUninstalledBody,
  postToBolt,
  slashCommandBody,
  startFakeSlack,
  tokensRevokedBody,
  type FakeSlack,
  type RecordedCall,
} from '../../fakes/slack/index.js';
import { polText } from '../../helpers/truth.js';
import { headerOf, LogCapture, SIGNING_SECRET } from '../../helpers/slack/harness.js';

/**
 * polbot installed in two Slack workspaces through OAuth, end to end: the real HTTP server that
 * `startBot` starts, Bolt's InstallProvider, and the fake Slack issuing each workspace its own
 * token at `oauth.v2.access`. Each workspace gets its cards and its digests with its own token;
 * removing polbot from one pauses that workspace's digests and touches nothing of the other; adding
 * it again resumes them and says so in the channel.
 */

const CLIENT = { clientId: '1234567890.9876543210', clientSecret: 'c0ffee-client-secret-for-oauth-tests' };
const STATE_SECRET = 'state-secret-for-the-oauth-tests-0001';
const KEY = randomBytes(32).toString('base64');
const A = { teamId: 'T0ALPHA001', teamName: 'Alpha Risk', channels: ['C0ALPHA001'] };
const B = { teamId: 'T0BRAVO001', teamName: 'Bravo Desk', channels: ['C0BRAVO001'] };

let fake: FakeSlack;
let bot: Bot;
let dataDir: string;
let base: string;
const logs = new LogCapture();

const env = (key = KEY) => ({
  SLACK_CLIENT_ID: CLIENT.clientId,
  SLACK_CLIENT_SECRET: CLIENT.clientSecret,
  SLACK_STATE_SECRET: STATE_SECRET,
  POLBOT_ENCRYPTION_KEY: key,
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  SLACK_API_URL: fake.url,
  POLBOT_DATA_DIR: dataDir,
  HOST: '127.0.0.1',
  PORT: '0',
  RATE_LIMIT_PER_USER: '0',
});

beforeAll(async () => {
  fake = await startFakeSlack({ oauth: CLIENT });
  dataDir = await mkdtemp(join(tmpdir(), 'polbot-oauth-'));
  bot = await startBot(loadConfig(env()), createLogger({ level: 'info', destination: logs }));
  base = `http://127.0.0.1:${bot.port}`;
});
afterAll(async () => {
  await bot?.stop();
  await fake?.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface InstallStart {
  authorizeUrl: URL;
  state: string;
  cookie: string;
}

/** What a browser does at `/slack/install`: gets the page and the state cookie. */
async function startInstall(): Promise<InstallStart> {
  const res = await fetch(`${base}/slack/install`);
  expect(res.status).toBe(200);
  const html = await res.text();
  const href = /href="([^"]+oauth\/v2\/authorize[^"]+)"/.exec(html)?.[1];
  expect(href).toBeDefined();
  const authorizeUrl = new URL(href!.replaceAll('&amp;', '&'));
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const state = authorizeUrl.searchParams.get('state')!;
  expect(cookie).toBe(`slack-app-oauth-state=${state}`);
  return { authorizeUrl, state, cookie };
}

/** Slack sends the browser back with a code and the state; the browser brings its cookie. */
function finishInstall(start: InstallStart, code: string, cookie = start.cookie) {
  return fetch(`${base}/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(start.state)}`, {
    headers: { cookie },
  });
}

async function install(team: typeof A): Promise<string> {
  const start = await startInstall();
  const res = await finishInstall(start, fake.installWorkspace(team));
  const page = await res.text();
  expect(res.status, page).toBe(200);
  return page;
}

const tokenOf = (team: typeof A) => fake.workspace(team.teamId)!.token;
const bearer = (call: RecordedCall) => call.headers.authorization;

const command = (team: typeof A, text: string, responseId: string) =>
  postToBolt(
    `${base}/slack/events`,
    slashCommandBody({
      text,
      team_id: team.teamId,
      team_domain: team.teamId.toLowerCase(),
      channel_id: team.channels[0]!,
      response_url: fake.responseUrl(responseId),
    }),
    SIGNING_SECRET,
  );

const event = (body: string, headers: Record<string, string> = {}) =>
  postToBolt(`${base}/slack/events`, body, SIGNING_SECRET, { contentType: 'application/json', headers });

const ruleRows = (teamId: string) =>
  bot.digests.db.query<{ id: number; state: string; state_reason: string | null }>(
    'SELECT id, state, state_reason FROM alert_rules WHERE workspace_id = $1 ORDER BY id',
    [teamId],
  );
const digestRows = (teamId: string) =>
  bot.digests.db.query<{ id: number; state: string; state_reason: string | null }>(
    'SELECT id, state, state_reason FROM digests WHERE workspace_id = $1 ORDER BY id',
    [teamId],
  );

/**
 * Makes the hourly slot that began this hour due for every active digest of the teams, as if
 * polbot had been waiting for it (forgetting earlier runs of it), and runs one scheduler pass.
 */
async function deliverDueDigests(teamIds: string[]): Promise<void> {
  const slot = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
  await bot.digests.db.query(`DELETE FROM digest_runs WHERE digest_id IN (SELECT id FROM digests WHERE workspace_id = ANY($1::text[]))`, [
    teamIds,
  ]);
  await bot.digests.db.query(`UPDATE digests SET next_slot = $1 WHERE workspace_id = ANY($2::text[]) AND state = 'active'`, [
    slot,
    teamIds,
  ]);
  await bot.digests.scheduler.tick();
}

/** Resolves once the fake has had no new call for `quietMs`: the answer under way is done. */
async function settled(quietMs = 400): Promise<void> {
  let seen = -1;
  while (seen !== fake.calls().length) {
    seen = fake.calls().length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() - started > timeoutMs) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Slack OAuth for many workspaces', () => {
  it('serves an Add to Slack page that sends the browser to Slack with the manifest scopes and a state cookie', async () => {
    const { authorizeUrl, cookie } = await startInstall();
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe('https://slack.com/oauth/v2/authorize');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(CLIENT.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe(
      'commands,chat:write,files:write,channels:history,groups:history,im:write,channels:read,groups:read,app_mentions:read,im:history,assistant:write,links:read,links:write',
    );
    // The same scopes the manifest asks for, so an app made from it can grant them.
    const manifest = parse(await readFile(new URL('../../../adapters/slack/manifest.yml', import.meta.url), 'utf8')) as {
      oauth_config: { scopes: { bot: string[] } };
    };
    expect(authorizeUrl.searchParams.get('scope')!.split(',')).toEqual(manifest.oauth_config.scopes.bot);
    expect(cookie).toMatch(/^slack-app-oauth-state=.+/);
  });

  it('installs two workspaces, each with its own token, stored encrypted', async () => {
    expect(await install(A)).toContain('polbot was added to Alpha Risk');
    expect(await install(B)).toContain('polbot was added to Bravo Desk');
    const exchanges = fake.calls('oauth.v2.access');
    expect(exchanges.map((c) => (c.response as { team?: { id: string } }).team?.id)).toEqual([A.teamId, B.teamId]);
    expect(tokenOf(A)).not.toBe(tokenOf(B));

    const rows = await bot.digests.db.query<{ installation_key: string; sealed: string }>(
      'SELECT installation_key, sealed FROM slack_installations ORDER BY installation_key',
    );
    expect(rows.map((r) => r.installation_key)).toEqual([`T:${A.teamId}`, `T:${B.teamId}`]);
    for (const r of rows) {
      expect(r.sealed).toMatch(/^v1\./);
      for (const secret of [tokenOf(A), tokenOf(B), 'xoxb-']) expect(r.sealed).not.toContain(secret);
    }
  });

  it("answers each workspace's commands with that workspace's token", async () => {
    const binance = bot.core.upstream.sim!.store.exchange('binance')!;
    for (const team of [A, B]) {
      fake.clear();
      expect((await command(team, 'binance', `card-${team.teamId}`)).status).toBe(200);
      const post = await fake.waitFor('chat.postMessage', (c) => c.args.channel === team.channels[0], 15_000);
      expect(headerOf(post.args)).toBe('Binance');
      expect(JSON.stringify(post.args.blocks)).toContain(`*${polText(binance.pol[binance.pol.length - 1]!)}*`);
      expect(bearer(post)).toBe(`Bearer ${tokenOf(team)}`);
      await settled();
      for (const call of fake.calls().filter((c) => c.method !== 'response_url')) expect(bearer(call)).toBe(`Bearer ${tokenOf(team)}`);
    }
  });

  it("posts each workspace's digests with that workspace's token", async () => {
    for (const team of [A, B]) {
      fake.clear();
      await command(team, 'digest add binance "0 * * * *" tz UTC', `digest-${team.teamId}`);
      await fake.waitFor(
        'chat.postMessage',
        (c) => c.args.channel === team.channels[0] && /^Digest #\d+ added$/.test(headerOf(c.args) ?? ''),
        15_000,
      );
    }
    expect((await digestRows(A.teamId)).map((d) => d.state)).toEqual(['active']);
    expect((await digestRows(B.teamId)).map((d) => d.state)).toEqual(['active']);
    await command(A, 'alert add kraken when pol above 9%', 'alert-add');
    await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === A.channels[0] && /^Alert rule #\d+ added$/.test(headerOf(c.args) ?? ''),
      15_000,
    );
    expect((await ruleRows(A.teamId)).map((r) => r.state)).toEqual(['active']);

    fake.clear();
    await deliverDueDigests([A.teamId, B.teamId]);
    for (const team of [A, B]) {
      const posts = fake.calls('chat.postMessage').filter((c) => c.args.channel === team.channels[0]);
      expect(posts.length).toBeGreaterThan(0);
      for (const p of posts) expect(bearer(p)).toBe(`Bearer ${tokenOf(team)}`);
    }
    // Both runs are counted in /metrics as delivered.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^polbot_digest_deliveries_total\{platform="slack",outcome="delivered"\} 2$/m);
  });

  it("uninstalling one workspace deletes its tokens and pauses its digests, and touches nothing of the other's; Slack's retry of the event is processed once", async () => {
    const tokenA = tokenOf(A);
    fake.uninstallWorkspace(A.teamId);
    const body = appUninstalledBody({ teamId: A.teamId, eventId: 'EvUNINSTALLA1' });
    expect((await event(body)).status).toBe(200);
    // Slack retries with the same event id (and a fresh signature); the retry is acknowledged and not processed again.
    expect((await event(body, { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' })).status).toBe(200);

    const paused = await until(
      () => digestRows(A.teamId),
      (rows) => rows.every((r) => r.state === 'paused'),
    );
    expect(paused.map((r) => [r.state, r.state_reason])).toEqual([
      ['paused', 'polbot was removed from this workspace; adding it again resumes this'],
    ]);
    expect((await ruleRows(A.teamId)).map((r) => [r.state, r.state_reason])).toEqual([
      ['paused', 'polbot was removed from this workspace; adding it again resumes this'],
    ]);
    expect((await digestRows(B.teamId)).map((d) => d.state)).toEqual(['active']);
    const keys = await bot.digests.db.query<{ installation_key: string }>('SELECT installation_key FROM slack_installations');
    expect(keys.map((k) => k.installation_key)).toEqual([`T:${B.teamId}`]);
    await until(
      async () => logs.lines.filter((l) => l.includes('the workspace removed polbot')).length,
      (n) => n >= 1,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(logs.lines.filter((l) => l.includes('the workspace removed polbot'))).toHaveLength(1);
    expect(logs.lines.some((l) => l.includes('an event already processed arrived again'))).toBe(true);

    fake.clear();
    await deliverDueDigests([A.teamId, B.teamId]);
    expect(fake.calls('chat.postMessage').filter((c) => c.args.channel === A.channels[0])).toHaveLength(0);
    expect(fake.calls('chat.postMessage').filter((c) => c.args.channel === B.channels[0]).length).toBeGreaterThan(0);
    expect(fake.calls().some((c) => bearer(c) === `Bearer ${tokenA}`)).toBe(false);
  });

  it('tells a person in a workspace without an installation so, and runs nothing', async () => {
    fake.clear();
    expect((await command(A, 'binance', 'not-installed')).status).toBe(200);
    const told = await fake.waitFor('response_url', (c) => c.id === 'not-installed', 10_000);
    expect(String(told.args.text)).toMatch(/^polbot is not installed in this workspace/);
    expect(told.args.response_type).toBe('ephemeral');
    expect(fake.calls('chat.postMessage')).toHaveLength(0);
  });

  it('reinstalling resumes the digests the removal paused, with the new token, and says so in their channel', async () => {
    fake.clear();
    const page = await install(A);
    expect(page).toContain('2 digests and alert rules it had paused run again');
    expect((await digestRows(A.teamId)).map((d) => d.state)).toEqual(['active']);
    const back = await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === A.channels[0] && /polbot is back/.test(headerOf(c.args) ?? JSON.stringify(c.args)),
      10_000,
    );
    expect(bearer(back)).toBe(`Bearer ${tokenOf(A)}`);
    expect(JSON.stringify(back.args)).toContain("this channel's 1 digest and 1 alert rule run again");
    expect((await ruleRows(A.teamId)).map((r) => r.state)).toEqual(['active']);

    fake.clear();
    await deliverDueDigests([A.teamId]);
    const posts = fake.calls('chat.postMessage').filter((c) => c.args.channel === A.channels[0]);
    expect(posts.length).toBeGreaterThan(0);
    for (const p of posts) expect(bearer(p)).toBe(`Bearer ${tokenOf(A)}`);
  });

  it("posts a workspace's alerts with that workspace's token", async () => {
    const [rule] = await ruleRows(A.teamId);
    fake.clear();
    await command(A, `alert test ${rule!.id}`, 'alert-test');
    const sample = await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === A.channels[0] && headerOf(c.args) === '🧪 Test alert: Kraken',
      15_000,
    );
    expect(bearer(sample)).toBe(`Bearer ${tokenOf(A)}`);
    const real = await fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === A.channels[0] && headerOf(c.args) === '🔔 Alert: Kraken',
      30_000,
    );
    expect(bearer(real)).toBe(`Bearer ${tokenOf(A)}`);
  });

  it('tokens_revoked for the bot does what an uninstall does; one for user tokens only changes nothing', async () => {
    await event(tokensRevokedBody({ teamId: B.teamId, userIds: ['U0SOMEONE1'] }));
    await new Promise((r) => setTimeout(r, 300));
    expect((await digestRows(B.teamId)).map((d) => d.state)).toEqual(['active']);
    await event(tokensRevokedBody({ teamId: B.teamId, botUserIds: [fake.workspace(B.teamId)!.identity.botUserId] }));
    const rows = await until(
      () => digestRows(B.teamId),
      (r) => r.every((d) => d.state === 'paused'),
    );
    expect(rows.map((d) => d.state)).toEqual(['paused']);
    expect((await bot.digests.db.query('SELECT 1 FROM slack_installations WHERE installation_key = $1', [`T:${B.teamId}`])).length).toBe(0);
    expect((await digestRows(A.teamId)).map((d) => d.state)).toEqual(['active']);
  });

  it('refuses a callback whose state is wrong, reused, expired or not from this browser, with a page that says what to do', async () => {
    const start = await startInstall();
    const code = fake.installWorkspace({ teamId: 'T0CHARLIE1', channels: ['C0CHARLIE1'] });

    const foreign = await finishInstall(start, code, 'slack-app-oauth-state=someone-elses-state');
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toMatch(/did not start in this browser[\s\S]*Start the install again/);

    const forged = await fetch(`${base}/slack/oauth_redirect?code=${code}&state=forged`, {
      headers: { cookie: 'slack-app-oauth-state=forged' },
    });
    expect(forged.status).toBe(400);

    const expiredState = await new oauth.ClearStateStore(STATE_SECRET).generateStateParam(
      { scopes: ['commands'] },
      new Date(Date.now() - 11 * 60_000),
    );
    const expired = await fetch(`${base}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(expiredState)}`, {
      headers: { cookie: `slack-app-oauth-state=${expiredState}` },
    });
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('The install link expired');

    // Nothing so far reached Slack's token exchange.
    expect(fake.calls('oauth.v2.access').filter((c) => c.args.code === code)).toHaveLength(0);
    const ok = await finishInstall(start, code);
    expect(ok.status).toBe(200);
    const replayed = await finishInstall(start, code);
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain('This install link was already used');
    expect(fake.calls('oauth.v2.access').filter((c) => c.args.code === code)).toHaveLength(1);
  });

  it('counts forged, stale and replayed requests to the Slack endpoint in /metrics, and runs none of them', async () => {
    fake.clear();
    const body = slashCommandBody({
      text: 'binance',
      team_id: B.teamId,
      channel_id: 'C0ELSEWHR1',
      response_url: fake.responseUrl('forged'),
    });
    expect((await postToBolt(`${base}/slack/events`, body, 'not-the-signing-secret')).status).toBe(401);
    expect(
      (await postToBolt(`${base}/slack/events`, body, SIGNING_SECRET, { timestampSec: Math.floor(Date.now() / 1000) - 6 * 60 })).status,
    ).toBe(401);
    const once = slashCommandBody({
      text: 'binance',
      team_id: A.teamId,
      channel_id: 'C0ELSEWHR1',
      response_url: fake.responseUrl('replayed'),
    });
    const ts = Math.floor(Date.now() / 1000);
    expect((await postToBolt(`${base}/slack/events`, once, SIGNING_SECRET, { timestampSec: ts })).status).toBe(200);
    expect((await postToBolt(`${base}/slack/events`, once, SIGNING_SECRET, { timestampSec: ts })).status).toBe(401);
    // The same request reaching another replica gets past that replica's thread (it has not seen
    // the signature), as a request signed at another second does here; its trigger id, recorded
    // in the database by the replica that ran it, stops it there.
    expect((await postToBolt(`${base}/slack/events`, once, SIGNING_SECRET, { timestampSec: ts + 1 })).status).toBe(200);
    await until(
      async () => (await (await fetch(`${base}/metrics`)).text()).includes('reason="replayed"} 2'),
      (seen) => seen,
    );
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^polbot_slack_requests_refused_total\{reason="bad_signature"\} 1$/m);
    expect(metrics).toMatch(/^polbot_slack_requests_refused_total\{reason="stale"\} 1$/m);
    expect(metrics).toMatch(/^polbot_slack_requests_refused_total\{reason="replayed"\} 2$/m);
    // The command ran once: one card in the channel, however long the others wait.
    await fake.waitFor('chat.postMessage', (c) => c.args.channel === 'C0ELSEWHR1', 15_000);
    await settled();
    expect(fake.calls('chat.postMessage').filter((c) => c.args.channel === 'C0ELSEWHR1')).toHaveLength(1);
    expect(fake.calls('response_url').filter((c) => c.id === 'forged')).toHaveLength(0);
  });

  it('never writes a token, the client secret or the key to the logs', () => {
    const text = logs.lines.join('\n');
    expect(text).toContain('installed in a workspace');
    for (const secret of [tokenOf(A), CLIENT.clientSecret, STATE_SECRET, KEY]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/xoxb-[A-Z0-9]+-[0-9a-f]{8}/);
  });

  it('refuses to start with another encryption key, in one line', async () => {
    await bot.stop();
    const other = randomBytes(32).toString('base64');
    const err = await startBot(loadConfig(env(other)), createLogger({ level: 'silent' })).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.name).toBe('ConfigError');
    expect(err?.message).toMatch(/^POLBOT_ENCRYPTION_KEY: it is not the key the stored Slack installations were encrypted with/);
    expect(err?.message).not.toContain('\n');
    expect(err?.message).not.toContain(other);
  });
});
