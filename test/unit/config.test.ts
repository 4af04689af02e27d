import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, secretsOf } from '../../app/config.js';
import { createLogger } from '../../src/log.js';

const fails = (env: Record<string, string>, variable: string) => {
  let error: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message.startsWith(`${variable}:`), message).toBe(true);
  expect(message).not.toContain('\n');
  return message;
};

describe('configuration', () => {
  it('defaults to demo mode with nothing set', () => {
    const c = loadConfig({});
    expect(c.upstream).toBeNull();
    expect(c.source).toBe('rest');
    expect(c.slack).toBeNull();
    expect(c.discord).toBeNull();
    expect(c.charts.renderer).toBe('local');
    expect(c.dataDir).toBe('./data');
    expect(c.http.port).toBe(3000);
  });

  it('reads a full production environment', () => {
    const c = loadConfig({
      POL_API_BASE_URL: 'https://api.example.com/',
      POL_API_KEY: 'svc_abc123',
      POL_SOURCE: 'mcp',
      POL_MCP_URL: 'https://mcp.example.com/mcp',
      SLACK_BOT_TOKEN: 'xoxb-1-2-3',
      SLACK_SIGNING_SECRET: 'shh-secret',
      DISCORD_TOKEN: 'discord.token.value',
      DISCORD_APPLICATION_ID: '123456789012345678',
      DISCORD_GUILD_ID: '223456789012345678',
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://bot:pw1234@db:5432/polbot',
      CHART_RENDERER: 'quickchart',
      QUICKCHART_URL: 'http://charts.internal:3400/',
      LOG_LEVEL: 'debug',
      DIGEST_ADMINS: 'U1, U2',
    });
    expect(c.upstream).toEqual({ baseUrl: 'https://api.example.com', apiKey: 'svc_abc123' });
    const toolsOnly = loadConfig({ POL_SOURCE: 'mcp', POL_MCP_URL: 'https://mcp.example/mcp', POL_API_KEY: 'svc_k' });
    expect(toolsOnly.upstream).toEqual({ baseUrl: null, apiKey: 'svc_k' });
    expect(c.source).toBe('mcp');
    expect(c.slack?.signingSecret).toBe('shh-secret');
    expect(c.discord).toMatchObject({ applicationId: '123456789012345678', guildId: '223456789012345678' });
    expect(c.http).toEqual({ port: 8080, host: '127.0.0.1' });
    expect(c.charts).toEqual({ renderer: 'quickchart', quickchartUrl: 'http://charts.internal:3400' });
    expect(c.digestAdmins).toEqual(['U1', 'U2']);
    expect(secretsOf(c)).toEqual(expect.arrayContaining(['svc_abc123', 'xoxb-1-2-3', 'shh-secret', 'discord.token.value', 'pw1234']));
  });

  it('stops on bad values with one line naming the variable, never echoing secrets', () => {
    fails({ POL_API_BASE_URL: 'https://x.example' }, 'POL_API_KEY');
    const m = fails({ POL_API_BASE_URL: 'https://x.example', POL_API_KEY: 'not-a-key-secret' }, 'POL_API_KEY');
    expect(m).not.toContain('not-a-key-secret');
    fails({ POL_API_BASE_URL: 'ftp://x' }, 'POL_API_BASE_URL');
    fails({ POL_SOURCE: 'graphql' }, 'POL_SOURCE');
    fails({ PORT: '70000' }, 'PORT');
    fails({ PORT: 'eighty' }, 'PORT');
    fails({ SLACK_BOT_TOKEN: 'xoxp-user-token' }, 'SLACK_BOT_TOKEN');
    fails({ SLACK_BOT_TOKEN: 'xoxb-1' }, 'SLACK_SIGNING_SECRET');
    fails({ SLACK_SIGNING_SECRET: 's3cret' }, 'SLACK_BOT_TOKEN');
    fails({ DISCORD_TOKEN: 't' }, 'DISCORD_APPLICATION_ID');
    fails({ DISCORD_TOKEN: 't', DISCORD_APPLICATION_ID: 'abc' }, 'DISCORD_APPLICATION_ID');
    fails({ CHART_RENDERER: 'svg' }, 'CHART_RENDERER');
    fails({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
    fails({ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL');
    fails({ POL_API_BASE_URL: 'https://x.example', POL_API_KEY: 'svc_k', POL_SOURCE: 'mcp' }, 'POL_MCP_URL');
    fails({ POL_MCP_URL: 'https://mcp.example/mcp' }, 'POL_API_BASE_URL');
    fails({ POL_SOURCE: 'mcp', POL_MCP_URL: 'https://mcp.example/mcp', POL_MCP_COMMAND: 'x' }, 'POL_MCP_COMMAND');
  });
});

describe('logger', () => {
  function capture() {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    return { lines, sink };
  }

  it('redacts secret fields and scrubs secret values from free text', () => {
    const { lines, sink } = capture();
    const log = createLogger({ level: 'info', secrets: ['svc_topsecret', 'xoxb-bot-token'], destination: sink });
    log.info({ headers: { 'x-api-key': 'svc_topsecret' }, token: 'xoxb-bot-token', route: '/v1/list' }, 'request');
    log.error({ err: new Error('failed calling https://h/?key=svc_topsecret') }, 'upstream said svc_topsecret');
    log.warn({ config: { signingSecret: 'abc-signing' } }, 'nested');
    const out = lines.join('');
    expect(out).toContain('/v1/list');
    expect(out).toContain('[redacted]');
    expect(out).not.toContain('svc_topsecret');
    expect(out).not.toContain('xoxb-bot-token');
    expect(out).not.toContain('abc-signing');
    expect(lines).toHaveLength(3);
  });
});

describe('configuration for installs', () => {
  const KEY = Buffer.alloc(32, 7).toString('base64');
  const oauth = {
    SLACK_CLIENT_ID: '1234567890.1234567890',
    SLACK_CLIENT_SECRET: 'client-secret-value',
    SLACK_STATE_SECRET: 'a-long-state-secret-0001',
    POLBOT_ENCRYPTION_KEY: KEY,
    SLACK_SIGNING_SECRET: 'shh-secret',
  };

  it('reads Slack OAuth without a bot token, the key as its 32 bytes, and its secrets for scrubbing', () => {
    const c = loadConfig(oauth);
    expect(c.slack?.botToken).toBeUndefined();
    expect(c.slack?.oauth?.clientId).toBe('1234567890.1234567890');
    expect(c.slack?.oauth?.encryptionKey.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(secretsOf(c)).toEqual(expect.arrayContaining(['client-secret-value', 'a-long-state-secret-0001', KEY]));
  });

  it('refuses OAuth settings that are incomplete, mixed with a bot token, or without a usable key', () => {
    expect(fails({ ...oauth, SLACK_STATE_SECRET: '' }, 'SLACK_STATE_SECRET')).toContain('required for Slack OAuth');
    expect(fails({ ...oauth, SLACK_BOT_TOKEN: 'xoxb-1-2-3' }, 'SLACK_BOT_TOKEN')).toContain('leave it unset');
    expect(fails({ ...oauth, POLBOT_ENCRYPTION_KEY: '' }, 'POLBOT_ENCRYPTION_KEY')).toContain('openssl rand -base64 32');
    const short = fails({ ...oauth, POLBOT_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }, 'POLBOT_ENCRYPTION_KEY');
    expect(short).toContain('32 random bytes in base64');
    expect(fails({ ...oauth, POLBOT_ENCRYPTION_KEY: 'not base64 at all!' }, 'POLBOT_ENCRYPTION_KEY')).not.toContain('not base64 at all');
    expect(fails({ ...oauth, SLACK_SIGNING_SECRET: '' }, 'SLACK_SIGNING_SECRET')).toContain('required with Slack OAuth');
    expect(fails({ ...oauth, SLACK_APP_TOKEN: 'xapp-1-A1-2-3' }, 'SLACK_APP_TOKEN')).toContain('run over HTTP');
    expect(fails({ ...oauth, SLACK_CLIENT_ID: 'abc' }, 'SLACK_CLIENT_ID')).toContain('client id');
    expect(fails({ ...oauth, SLACK_STATE_SECRET: 'short' }, 'SLACK_STATE_SECRET')).not.toContain('short');
  });

  it('reads a Discord public key, and refuses one that is not 64 hex characters or comes without a token', () => {
    const publicKey = 'AB'.repeat(32);
    const c = loadConfig({
      DISCORD_TOKEN: 'discord.token.value',
      DISCORD_APPLICATION_ID: '123456789012345678',
      DISCORD_PUBLIC_KEY: publicKey,
    });
    expect(c.discord?.publicKey).toBe(publicKey.toLowerCase());
    expect(
      fails(
        { DISCORD_TOKEN: 'discord.token.value', DISCORD_APPLICATION_ID: '123456789012345678', DISCORD_PUBLIC_KEY: 'abc' },
        'DISCORD_PUBLIC_KEY',
      ),
    ).toContain('64 hex');
    expect(fails({ DISCORD_PUBLIC_KEY: publicKey }, 'DISCORD_TOKEN')).toContain('required with DISCORD_PUBLIC_KEY');
  });

  it('reads Telegram, polling by default and a webhook with its secret, and refuses what Telegram would not take', () => {
    const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0';
    expect(loadConfig({ TELEGRAM_BOT_TOKEN: token }).telegram).toEqual({ token });
    const hook = loadConfig({
      TELEGRAM_BOT_TOKEN: token,
      TELEGRAM_WEBHOOK_URL: 'https://polbot.example.com/telegram/webhook',
      TELEGRAM_WEBHOOK_SECRET: 'a-secret-of-24-characters',
      TELEGRAM_API_URL: 'http://127.0.0.1:8081/',
    });
    expect(hook.telegram).toEqual({
      token,
      webhookUrl: 'https://polbot.example.com/telegram/webhook',
      webhookSecret: 'a-secret-of-24-characters',
      apiUrl: 'http://127.0.0.1:8081',
    });
    expect(secretsOf(hook)).toEqual(expect.arrayContaining([token, 'a-secret-of-24-characters']));
    expect(loadConfig({}).telegram).toBeNull();

    const badToken = fails({ TELEGRAM_BOT_TOKEN: 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0' }, 'TELEGRAM_BOT_TOKEN');
    expect(badToken).toContain('BotFather');
    expect(badToken).not.toContain('AAHdq');
    expect(
      fails({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_URL: 'https://x.example/telegram/webhook' }, 'TELEGRAM_WEBHOOK_SECRET'),
    ).toContain('required with TELEGRAM_WEBHOOK_URL');
    expect(
      fails(
        { TELEGRAM_WEBHOOK_URL: 'https://x.example/telegram/webhook', TELEGRAM_WEBHOOK_SECRET: 'a-secret-of-24-characters' },
        'TELEGRAM_BOT_TOKEN',
      ),
    ).toContain('required with TELEGRAM_WEBHOOK_URL');
    const badSecret = fails(
      { TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_URL: 'https://x.example/t', TELEGRAM_WEBHOOK_SECRET: 'has spaces in it!' },
      'TELEGRAM_WEBHOOK_SECRET',
    );
    expect(badSecret).not.toContain('has spaces');
    expect(fails({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_URL: 'api.telegram.org' }, 'TELEGRAM_API_URL')).toContain('http(s) URL');
  });
});
