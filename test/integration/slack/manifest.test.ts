import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_SHORTCUT_ID, EVENTS_PATH } from '../../../adapters/slack/index.js';
import { startFakeSlack } from '../../fakes/slack/index.js';

const manifest = readFileSync(new URL('../../../adapters/slack/manifest.yml', import.meta.url), 'utf8');
const lines = manifest.split('\n');

/** The indented lines under a top-level or nested key, comments dropped. */
function under(key: string): string[] {
  const start = lines.findIndex((l) => l.trimStart().startsWith(`${key}:`));
  if (start === -1) return [];
  const indent = lines[start]!.length - lines[start]!.trimStart().length;
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (line.length - line.trimStart().length <= indent) break;
    out.push(line.trim());
  }
  return out;
}

describe('Slack app manifest', () => {
  it('is YAML without tabs and with the manifest schema version', () => {
    expect(manifest).not.toContain('\t');
    expect(under('_metadata')).toEqual(['major_version: 1', 'minor_version: 1']);
  });

  it('declares /pol, a bot user, and exactly the scopes the adapter uses', () => {
    // Escaped, so that a user group named in an alert's escalation arrives as the mention Slack makes of it.
    expect(under('slash_commands')).toEqual(expect.arrayContaining(['- command: /pol', 'should_escape: true']));
    expect(under('bot_user')).toContain('display_name: polbot');
    expect(under('bot')).toEqual([
      '- commands',
      '- chat:write',
      '- files:write',
      '- channels:history',
      '- groups:history',
      '- im:write',
      '- channels:read',
      '- groups:read',
      '- app_mentions:read',
      '- im:history',
      '- assistant:write',
      '- links:read',
      '- links:write',
    ]);
  });

  it('enables the Home tab and the Messages tab its cards go to, and subscribes to the event that draws it', () => {
    expect(under('app_home')).toEqual(['home_tab_enabled: true', 'messages_tab_enabled: true', 'messages_tab_read_only_enabled: false']);
    expect(under('bot_events')).toContain('- app_home_opened');
    // What the adapter listens for when a workspace removes polbot.
    expect(under('bot_events')).toEqual(expect.arrayContaining(['- app_uninstalled', '- tokens_revoked']));
    // Slack sends events only to a subscription's URL in HTTP mode; the line is there to uncomment.
    expect(under('event_subscriptions')).toContain('bot_events:');
    expect(manifest).toMatch(/event_subscriptions:\n(?: {4}#.*\n)*? {4}# request_url: https:\/\/polbot\.example\.com\/slack\/events\n/);
  });

  it('is what the fake Slack grants by default, so a call needing a scope the manifest lacks fails in tests', async () => {
    const fake = await startFakeSlack();
    try {
      const res = await fetch(`${fake.url}auth.test`, { method: 'POST', headers: { authorization: `Bearer ${fake.botToken}` } });
      const granted = (res.headers.get('x-oauth-scopes') ?? '').split(',');
      expect(granted.map((g) => `- ${g}`)).toEqual(under('bot'));
    } finally {
      await fake.close();
    }
  });

  it('declares the message shortcut the adapter answers', () => {
    expect(under('shortcuts')).toEqual([
      '- name: Check with polbot',
      'type: message',
      `callback_id: ${CHECK_SHORTCUT_ID}`,
      'description: Show, to you alone, the projects and exchanges this message names',
    ]);
  });

  it('enables interactivity and Socket Mode, and documents the HTTP mode URLs', () => {
    expect(under('interactivity')).toContain('is_enabled: true');
    expect(under('settings')).toContain('socket_mode_enabled: true');
    expect(manifest).toContain(`# url: https://polbot.example.com${EVENTS_PATH}`);
    expect(manifest).toContain(`# request_url: https://polbot.example.com${EVENTS_PATH}`);
    // The listed-token select asks for its options at the same URL.
    expect(manifest).toContain(`# message_menu_options_url: https://polbot.example.com${EVENTS_PATH}`);
  });

  it('keeps Slack limits: a long description of 175 to 4000 characters, a short one under 140', () => {
    const long = /long_description: >-\n((?: {4}.*\n)+)/.exec(manifest)?.[1]?.replace(/\s+/g, ' ').trim() ?? '';
    expect(long.length).toBeGreaterThanOrEqual(175);
    expect(long.length).toBeLessThanOrEqual(4000);
    const short = /^ {2}description: (.*)$/m.exec(manifest)?.[1] ?? '';
    expect(short.length).toBeGreaterThan(0);
    expect(short.length).toBeLessThanOrEqual(140);
  });
});
