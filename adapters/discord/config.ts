/** What the Discord adapter is configured with (from DISCORD_* in the environment). */
export interface DiscordConfig {
  token: string;
  applicationId: string;
  guildId?: string;
  apiUrl?: string;
  /** With it, interactions come over HTTP (`POST /discord/interactions`) instead of the gateway. */
  publicKey?: string;
}
