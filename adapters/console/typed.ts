/** People paste "/pol binance" into the console as they would type it in Slack; both forms are accepted. */
export function withoutSlashCommand(text: string): string {
  return text.replace(/^\s*\/pol\b/i, '').trim();
}
