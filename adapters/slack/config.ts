/** What the Slack adapter is configured with (from SLACK_* in the environment). */
export interface SlackConfig {
  /** One workspace with `botToken`, or many installed through OAuth (`oauth`): exactly one of the two. */
  botToken?: string;
  oauth?: SlackOAuthConfig;
  signingSecret?: string;
  appToken?: string;
  apiUrl?: string;
  /** POLBOT_UNFURL_DOMAINS: links to these hosts (and their subdomains) pasted in Slack are unfurled. */
  unfurlDomains?: readonly string[];
}

export interface SlackOAuthConfig {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** AES-256-GCM key for the installation tokens at rest. */
  encryptionKey: Buffer;
}
