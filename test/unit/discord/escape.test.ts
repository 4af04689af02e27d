import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clean, clip, codeText, escapeText, plainText } from '../../../adapters/discord/escape.js';

/** Mentions and links Discord would render in a markdown context, after escaping has run. */
function live(text: string): string[] {
  const found: string[] = [];
  if (/@(everyone|here)\b/i.test(text)) found.push('mass mention');
  if (/(^|[^\\])<(@|#|\/|a?:|t:)/.test(text)) found.push('mention or emoji');
  if (/(^|[^\\])\[[^\]]*\]\(/.test(text)) found.push('masked link');
  if (/[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/.test(text.replace(/@\u200b(everyone|here)/gi, ''))) found.push('invisible');
  return found;
}

describe('escaping upstream text for Discord', () => {
  it('neutralises mass mentions, user/role/channel mentions, commands, emoji and timestamps', () => {
    const out = escapeText('@everyone @here <@123> <@!123> <@&456> <#789> </pol card:1> <:pepe:42> <a:x:1> <t:1700000000:R>');
    expect(out).toContain('@\u200beveryone');
    expect(out).toContain('@\u200bhere');
    for (const raw of ['<@123>', '<@!123>', '<@&456>', '<#789>', '</pol', '<:pepe', '<a:x', '<t:1700']) {
      expect(out).toContain(`\\${raw}`);
    }
    expect(live(out)).toEqual([]);
  });

  it('turns masked links and markdown into literal text', () => {
    const out = escapeText('[claim airdrop](https://evil.example) and [x](<https://e.example>)');
    expect(out).not.toMatch(/(^|[^\\])\]\(/);
    expect(escapeText('**bold** __under__ ~~strike~~ ||spoiler|| `code` ```block```')).toBe(
      '\\*\\*bold\\*\\* \\_\\_under\\_\\_ \\~\\~strike\\~\\~ \\|\\|spoiler\\|\\| \\`code\\` \\`\\`\\`block\\`\\`\\`',
    );
    expect(escapeText('# Heading\n> quote\n-# small\n- item\n1. first')).toBe('\\# Heading\n\\> quote\n\\-# small\n\\- item\n1\\. first');
    // Numbers are numbers, not list markers.
    expect(escapeText('1.33%')).toBe('1.33%');
  });

  it('removes zero-width and direction-override characters, and control characters', () => {
    expect(clean('gnp\u202E.exe\u200b\u2066x\u0007\u0000y\u00ad')).toBe('gnp.exexy');
    expect(plainText('@everyone \u202Ehi')).toBe('@\u200beveryone hi');
    expect(codeText('a```b\nc')).toBe('aˋˋˋb c');
  });

  it('leaves nothing live, whatever the input', () => {
    const piece = fc.constantFrom(
      '@everyone',
      '@here',
      '<@1>',
      '<@&2>',
      '<#3>',
      '[a](http://x)',
      '](',
      '[',
      '\u202E',
      '\u200b',
      '\\',
      '*',
      '_',
      '`',
      'text',
      ' ',
      '\n',
      '<',
      '@',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (parts) => {
        expect(live(escapeText(parts.join('')))).toEqual([]);
      }),
    );
  });

  it('cuts visibly without leaving half an escape or half a character', () => {
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('abc', 4)).toBe('abc');
    expect(clip('ab\\*cd', 4)).toBe('ab…');
    expect(clip('ab\\\\cd', 5)).toBe('ab\\\\…');
    expect(clip('a😀b', 3)).toBe('a…');
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 1, max: 100 }), (s, max) => {
        expect(clip(s, max).length).toBeLessThanOrEqual(Math.max(max, 1));
      }),
    );
  });
});
