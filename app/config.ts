import { z } from 'zod';
import type { DiscordConfig } from '../adapters/discord/config.js';
import type { SlackConfig } from '../adapters/slack/config.js';
import type { TelegramSettings } from '../adapters/telegram/config.js';
import { ConfigError } from '../src/config-error.js';
import type { HttpConfig } from '../src/http/routes.js';
import { parseDestinations, type Destination } from '../src/alerts/destinations.js';

/**
 * The environment contract (see README "Configuration"). Bad values stop start-up with one line
 * naming the variable; secret values are never echoed back in those lines.
 */

export { ConfigError } from '../src/config-error.js';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const httpUrl = optionalString.refine((v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v), 'must be an http(s) URL');

const intIn = (min: number, max: number, fallback: number) =>
  optionalString.transform((v, ctx) => {
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}` });
      return z.NEVER;
    }
    return Number(v);
  });

const withPrefix = (prefix: string, what: string) =>
  optionalString.refine((v) => v === undefined || v.startsWith(prefix), `must be ${what} starting with ${prefix}`);

const snowflake = optionalString.refine((v) => v === undefined || /^\d{5,25}$/.test(v), 'must be a numeric Discord id');

const list = optionalString.transform((v) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [],
);

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const schema = z.object({
  POL_API_BASE_URL: httpUrl,
  POL_API_KEY: optionalString.refine((v) => v === undefined || /^svc_[A-Za-z0-9_-]+$/.test(v), 'must look like svc_<KEY_BODY>'),
  POL_SOURCE: optionalString.pipe(z.enum(['rest', 'mcp']).optional()).transform((v) => v ?? 'rest'),
  POL_MCP_URL: httpUrl,
  POL_MCP_COMMAND: optionalString,
  POL_TIMEOUT_MS: intIn(100, 120_000, 5_000),
  SLACK_BOT_TOKEN: withPrefix('xoxb-', 'a bot token'),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_APP_TOKEN: withPrefix('xapp-', 'an app-level token'),
  SLACK_API_URL: httpUrl,
  // Hosts whose links are unfurled in Slack, as in the manifest's app_unfurl_domains.
  POLBOT_UNFURL_DOMAINS: optionalString.transform((v, ctx) => {
    if (v === undefined) return [];
    const domains = v
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean);
    const bad = domains.find((d) => !/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(d));
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', message: `'${bad.slice(0, 60)}' is not a domain (write them as coingecko.com, example.org)` });
      return z.NEVER;
    }
    if (domains.length > 5) {
      ctx.addIssue({ code: 'custom', message: 'Slack takes at most 5 unfurl domains' });
      return z.NEVER;
    }
    return domains;
  }),
  SLACK_CLIENT_ID: optionalString.refine(
    (v) => v === undefined || /^\d+\.\d+$/.test(v),
    "must be a Slack client id (digits.digits, from the app's Basic Information page)",
  ),
  SLACK_CLIENT_SECRET: optionalString,
  SLACK_STATE_SECRET: optionalString.refine(
    (v) => v === undefined || v.length >= 16,
    'must be at least 16 characters (any long random string)',
  ),
  POLBOT_ENCRYPTION_KEY: optionalString.transform((v, ctx) => {
    if (v === undefined) return undefined;
    const key = /^[A-Za-z0-9+/]+={0,2}$/.test(v) ? Buffer.from(v, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) {
      ctx.addIssue({ code: 'custom', message: 'must be 32 random bytes in base64, as `openssl rand -base64 32` prints them' });
      return z.NEVER;
    }
    return key;
  }),
  DISCORD_TOKEN: optionalString,
  DISCORD_APPLICATION_ID: snowflake,
  DISCORD_GUILD_ID: snowflake,
  DISCORD_API_URL: httpUrl,
  DISCORD_PUBLIC_KEY: optionalString.refine(
    (v) => v === undefined || /^[0-9a-fA-F]{64}$/.test(v),
    "must be the application's public key: 64 hex characters, from the General Information page",
  ),
  TELEGRAM_BOT_TOKEN: optionalString.refine(
    (v) => v === undefined || /^\d{5,20}:[A-Za-z0-9_-]{30,}$/.test(v),
    'must be a bot token as BotFather gives it (digits, a colon, then 30 or more letters, digits, _ or -)',
  ),
  TELEGRAM_WEBHOOK_URL: optionalString.refine(
    (v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v),
    'must be the https URL Telegram posts updates to (ending in /telegram/webhook)',
  ),
  TELEGRAM_WEBHOOK_SECRET: optionalString.refine(
    (v) => v === undefined || /^[A-Za-z0-9_-]{16,256}$/.test(v),
    'must be 16 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram sends it back in a header)',
  ),
  TELEGRAM_API_URL: httpUrl,
  PORT: intIn(0, 65_535, 3000),
  HOST: optionalString.transform((v) => v ?? '0.0.0.0'),
  DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// URL'),
  POLBOT_DATA_DIR: optionalString.transform((v) => v ?? './data'),
  CHART_RENDERER: optionalString.pipe(z.enum(['local', 'quickchart']).optional()).transform((v) => v ?? 'local'),
  QUICKCHART_URL: httpUrl.transform((v) => v ?? 'https://quickchart.io'),
  LOG_LEVEL: optionalString.pipe(z.enum(LEVELS).optional()).transform((v) => v ?? 'info'),
  DIGEST_ADMINS: list,
  RATE_LIMIT_PER_USER: intIn(0, 100_000, 10),
  RATE_LIMIT_PER_CHANNEL: intIn(0, 100_000, 30),
  RATE_LIMIT_WINDOW_SEC: intIn(1, 86_400, 60),
  POLBOT_DESTINATIONS: optionalString,
  PAGERDUTY_EVENTS_URL: httpUrl,
});

export type Env = z.output<typeof schema>;

export interface Config {
  /**
   * Null: the simulator starts in-process (demo mode). A null `baseUrl` means the tool server alone
   * (POL_SOURCE=mcp with POL_MCP_URL or POL_MCP_COMMAND and no REST gateway).
   */
  upstream: { baseUrl: string | null; apiKey: string | null } | null;
  source: 'rest' | 'mcp';
  mcp: { url?: string; command?: string };
  timeoutMs: number;
  slack: SlackConfig | null;
  discord: DiscordConfig | null;
  telegram: TelegramSettings | null;
  http: HttpConfig;
  databaseUrl?: string;
  dataDir: string;
  charts: { renderer: 'local' | 'quickchart'; quickchartUrl: string };
  logLevel: (typeof LEVELS)[number];
  digestAdmins: string[];
  /** Null when switched off (either limit set to 0). */
  rateLimits: { perUser: number; perChannel: number; windowSec: number } | null;
  /** Where alert rules may notify outside chat (POLBOT_DESTINATIONS). */
  destinations: Destination[];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    const message = issue.code === 'invalid_value' ? `must be one of ${issue.values.join(', ')}` : issue.message;
    throw new ConfigError(`${name}: ${message}`);
  }
  const e = parsed.data;
  const fail = (msg: string): never => {
    throw new ConfigError(msg);
  };

  const mcpConfigured = Boolean(e.POL_MCP_URL || e.POL_MCP_COMMAND);
  if (e.POL_MCP_URL && e.POL_MCP_COMMAND) fail('POL_MCP_COMMAND: set either POL_MCP_URL or POL_MCP_COMMAND, not both');
  if (e.POL_API_BASE_URL && !e.POL_API_KEY) fail('POL_API_KEY: required when POL_API_BASE_URL is set');
  if (e.POL_API_KEY && !e.POL_API_BASE_URL && !mcpConfigured) {
    fail('POL_API_BASE_URL: required when POL_API_KEY is set (unset both for demo mode)');
  }
  if (e.POL_SOURCE === 'mcp' && e.POL_API_BASE_URL && !mcpConfigured) {
    fail('POL_MCP_URL: required when POL_SOURCE=mcp against a real upstream (or set POL_MCP_COMMAND)');
  }
  if (e.POL_SOURCE === 'rest' && mcpConfigured && !e.POL_API_BASE_URL) {
    fail('POL_API_BASE_URL: required with POL_SOURCE=rest (POL_MCP_URL alone serves POL_SOURCE=mcp)');
  }
  const oauthSet = Boolean(e.SLACK_CLIENT_ID || e.SLACK_CLIENT_SECRET || e.SLACK_STATE_SECRET);
  if (oauthSet) {
    for (const name of ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const) {
      if (!e[name]) fail(`${name}: required for Slack OAuth (set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET together)`);
    }
    if (e.SLACK_BOT_TOKEN) fail('SLACK_BOT_TOKEN: leave it unset with SLACK_CLIENT_ID: OAuth keeps a token per installed workspace');
    if (!e.POLBOT_ENCRYPTION_KEY)
      fail('POLBOT_ENCRYPTION_KEY: required with Slack OAuth, to encrypt stored tokens (create one with `openssl rand -base64 32`)');
    if (!e.SLACK_SIGNING_SECRET) fail('SLACK_SIGNING_SECRET: required with Slack OAuth (events come over HTTP)');
    if (e.SLACK_APP_TOKEN)
      fail(
        'SLACK_APP_TOKEN: leave it unset with SLACK_CLIENT_ID: installs in many workspaces run over HTTP (Socket Mode apps cannot be distributed)',
      );
  }
  if (e.SLACK_BOT_TOKEN && !e.SLACK_SIGNING_SECRET && !e.SLACK_APP_TOKEN) {
    fail('SLACK_SIGNING_SECRET: set it (HTTP mode) or SLACK_APP_TOKEN (Socket Mode) with SLACK_BOT_TOKEN');
  }
  if (!e.SLACK_BOT_TOKEN && !oauthSet && (e.SLACK_SIGNING_SECRET || e.SLACK_APP_TOKEN))
    fail('SLACK_BOT_TOKEN: required to enable Slack (or SLACK_CLIENT_ID for OAuth)');
  if (e.DISCORD_PUBLIC_KEY && !e.DISCORD_TOKEN)
    fail('DISCORD_TOKEN: required with DISCORD_PUBLIC_KEY (commands are registered and digests posted with it)');
  if (e.DISCORD_TOKEN && !e.DISCORD_APPLICATION_ID) fail('DISCORD_APPLICATION_ID: required with DISCORD_TOKEN');
  if (!e.DISCORD_TOKEN && e.DISCORD_APPLICATION_ID) fail('DISCORD_TOKEN: required with DISCORD_APPLICATION_ID');
  if (e.TELEGRAM_WEBHOOK_URL && !e.TELEGRAM_BOT_TOKEN) fail('TELEGRAM_BOT_TOKEN: required with TELEGRAM_WEBHOOK_URL');
  if (e.TELEGRAM_WEBHOOK_URL && !e.TELEGRAM_WEBHOOK_SECRET)
    fail('TELEGRAM_WEBHOOK_SECRET: required with TELEGRAM_WEBHOOK_URL (every webhook request is checked against it)');
  const destinations = parseDestinations(e.POLBOT_DESTINATIONS, env, e.PAGERDUTY_EVENTS_URL);
  if (!destinations.ok) fail(destinations.message);

  return {
    upstream:
      e.POL_API_BASE_URL || mcpConfigured
        ? { baseUrl: e.POL_API_BASE_URL ? e.POL_API_BASE_URL.replace(/\/+$/, '') : null, apiKey: e.POL_API_KEY ?? null }
        : null,
    source: e.POL_SOURCE,
    mcp: { ...(e.POL_MCP_URL ? { url: e.POL_MCP_URL } : {}), ...(e.POL_MCP_COMMAND ? { command: e.POL_MCP_COMMAND } : {}) },
    timeoutMs: e.POL_TIMEOUT_MS,
    slack:
      e.SLACK_BOT_TOKEN || oauthSet
        ? {
            ...(e.SLACK_BOT_TOKEN ? { botToken: e.SLACK_BOT_TOKEN } : {}),
            ...(oauthSet
              ? {
                  oauth: {
                    clientId: e.SLACK_CLIENT_ID!,
                    clientSecret: e.SLACK_CLIENT_SECRET!,
                    stateSecret: e.SLACK_STATE_SECRET!,
                    encryptionKey: e.POLBOT_ENCRYPTION_KEY!,
                  },
                }
              : {}),
            ...(e.SLACK_SIGNING_SECRET ? { signingSecret: e.SLACK_SIGNING_SECRET } : {}),
            ...(e.SLACK_APP_TOKEN ? { appToken: e.SLACK_APP_TOKEN } : {}),
            ...(e.SLACK_API_URL ? { apiUrl: e.SLACK_API_URL } : {}),
            ...(e.POLBOT_UNFURL_DOMAINS.length ? { unfurlDomains: e.POLBOT_UNFURL_DOMAINS } : {}),
          }
        : null,
    discord: e.DISCORD_TOKEN
      ? {
          token: e.DISCORD_TOKEN,
          applicationId: e.DISCORD_APPLICATION_ID!,
          ...(e.DISCORD_GUILD_ID ? { guildId: e.DISCORD_GUILD_ID } : {}),
          ...(e.DISCORD_API_URL ? { apiUrl: e.DISCORD_API_URL } : {}),
          ...(e.DISCORD_PUBLIC_KEY ? { publicKey: e.DISCORD_PUBLIC_KEY.toLowerCase() } : {}),
        }
      : null,
    telegram: e.TELEGRAM_BOT_TOKEN
      ? {
          token: e.TELEGRAM_BOT_TOKEN,
          ...(e.TELEGRAM_API_URL ? { apiUrl: e.TELEGRAM_API_URL.replace(/\/+$/, '') } : {}),
          ...(e.TELEGRAM_WEBHOOK_URL ? { webhookUrl: e.TELEGRAM_WEBHOOK_URL } : {}),
          ...(e.TELEGRAM_WEBHOOK_SECRET ? { webhookSecret: e.TELEGRAM_WEBHOOK_SECRET } : {}),
        }
      : null,
    http: { port: e.PORT, host: e.HOST },
    ...(e.DATABASE_URL ? { databaseUrl: e.DATABASE_URL } : {}),
    dataDir: e.POLBOT_DATA_DIR,
    charts: { renderer: e.CHART_RENDERER, quickchartUrl: e.QUICKCHART_URL.replace(/\/+$/, '') },
    logLevel: e.LOG_LEVEL,
    digestAdmins: e.DIGEST_ADMINS,
    rateLimits:
      e.RATE_LIMIT_PER_USER > 0 && e.RATE_LIMIT_PER_CHANNEL > 0
        ? { perUser: e.RATE_LIMIT_PER_USER, perChannel: e.RATE_LIMIT_PER_CHANNEL, windowSec: e.RATE_LIMIT_WINDOW_SEC }
        : null,
    destinations: destinations.ok ? destinations.destinations : [],
  };
}

/** Every secret value in the configuration, for scrubbing log output. */
export function secretsOf(config: Config): string[] {
  return [
    config.upstream?.apiKey,
    config.slack?.botToken,
    config.slack?.signingSecret,
    config.slack?.appToken,
    config.slack?.oauth?.clientSecret,
    config.slack?.oauth?.stateSecret,
    config.slack?.oauth?.encryptionKey.toString('base64'),
    config.discord?.token,
    config.telegram?.token,
    config.telegram?.webhookSecret,
    config.databaseUrl ? passwordOf(config.databaseUrl) : undefined,
    ...config.destinations.map((d) => (d.kind === 'pagerduty' ? d.routingKey : d.secret)),
  ].filter((s): s is string => typeof s === 'string' && s.length >= 4);
}

function passwordOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}
