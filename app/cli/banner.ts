export function consoleBanner(demo: boolean, source: string): string {
  const lines = [
    'polbot: crypto risk intelligence in your terminal',
    demo
      ? '  DEMO MODE: every number comes from the built-in simulator and is SIMULATED, not a real rating.'
      : `  Connected to the configured upstream (${source.toUpperCase()}).`,
    '  Type a name (binance, bitcoin, gate.io) or "help". A number answers a choice. "exit" quits.',
    '  To serve Slack, set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode);',
    '  for Discord, DISCORD_TOKEN and DISCORD_APPLICATION_ID. Then run npm start again. See README.',
    '',
  ];
  return lines.join('\n');
}
