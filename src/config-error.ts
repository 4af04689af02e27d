/**
 * Configuration that cannot work: start-up stops with its message, one line naming the variable and
 * what is wrong with it (never a secret value).
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
