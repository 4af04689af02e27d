/**
 * The bot scopes an install asks for: the manifest's (`adapters/slack/manifest.yml`,
 * `oauth_config.scopes.bot`), which a test keeps equal.
 */
export const BOT_SCOPES: readonly string[] = [
  'commands',
  'chat:write',
  'files:write',
  'channels:history',
  'groups:history',
  'im:write',
  'channels:read',
  'groups:read',
  'app_mentions:read',
  'im:history',
  'assistant:write',
  'links:read',
  'links:write',
];
