/**
 * Text an upstream source (entity names, red flags, descriptions, reviews) could send us, built to
 * break out of wherever a renderer puts it: platform mentions and broadcasts, masked links,
 * markdown and mrkdwn constructs, entities, characters that hide or reorder text, broken UTF-16,
 * control characters, and sizes far beyond any platform limit.
 *
 * `shows` lists words a reader must still find in the rendered message when the text sits in a
 * place that keeps its beginning: escaping may change how a character is encoded, never whether
 * the person sees it. Every such word sits in the first SHOWN_PREFIX characters, so even a narrow
 * table column keeps it.
 */

export interface HostileString {
  name: string;
  text: string;
  shows?: string[];
}

/** A table column is the narrowest place that shows upstream text (28 characters on Discord). */
export const SHOWN_PREFIX = 24;

/** More than any message on either platform can carry: the renderers must clip, never reject or stall. */
export const BIG = 100 * 1024;

const big = (unit: string): string => unit.repeat(Math.ceil(BIG / unit.length)).slice(0, BIG);

const DISCORD_ID = '123456789012345678';

/** Letters buried under combining marks ("zalgo"); the marks cycle through above, below and through. */
function zalgo(word: string): string {
  const marks = ['\u0337', '\u0322', '\u0338', '\u0335', '\u0336', '\u0334', '\u0315', '\u031b', '\u0340', '\u0341', '\u0358', '\u0321'];
  return [...word].map((ch, i) => ch + marks.slice(i % 4, (i % 4) + 6).join('')).join('');
}

export const HOSTILE_STRINGS: readonly HostileString[] = [
  // Slack: special mentions, user/channel/group mentions, dates and links in angle brackets.
  { name: 'slack <!channel>', text: '<!channel> wake up', shows: ['channel', 'wake up'] },
  { name: 'slack <!here>', text: '<!here>', shows: ['here'] },
  { name: 'slack <!everyone>', text: '<!everyone>', shows: ['everyone'] },
  { name: 'slack <!here|label>', text: '<!here|here> now', shows: ['here'] },
  { name: 'slack user mention', text: '<@U123> is the admin', shows: ['U123'] },
  { name: 'slack user mention with label', text: '<@U123|admin>', shows: ['U123'] },
  { name: 'slack channel mention', text: '<#C123>', shows: ['C123'] },
  { name: 'slack user group', text: '<!subteam^S1>', shows: ['subteam'] },
  { name: 'slack date token', text: '<!date^1700000000^{date}|x>', shows: ['date'] },
  { name: 'slack masked link', text: '<https://evil.example|click>', shows: ['evil.example'] },
  { name: 'slack javascript link', text: '<javascript:alert(1)|x>', shows: ['javascript'] },
  { name: 'slack mailto link', text: '<mailto:a@evil.example|help>', shows: ['mailto'] },
  { name: 'bare broadcast words', text: '@channel @here @everyone', shows: ['channel', 'here', 'everyone'] },

  // Discord: mass mentions, user/role/channel/command mentions, emoji, timestamps, links.
  { name: 'discord @everyone', text: '@everyone free airdrop', shows: ['everyone', 'free airdrop'] },
  { name: 'discord @here', text: '@here', shows: ['here'] },
  { name: 'discord @everyone glued to a word', text: '@everyonewin @herein', shows: ['everyonewin'] },
  { name: 'discord user mention', text: `<@${DISCORD_ID}>`, shows: [DISCORD_ID] },
  { name: 'discord nickname mention', text: `<@!${DISCORD_ID}>`, shows: [DISCORD_ID] },
  { name: 'discord role mention', text: `<@&${DISCORD_ID}>`, shows: [DISCORD_ID] },
  { name: 'discord channel mention', text: `<#${DISCORD_ID}>`, shows: [DISCORD_ID] },
  { name: 'discord command mention', text: `</pol card:${DISCORD_ID}>`, shows: ['pol card'] },
  { name: 'discord custom emoji', text: `<:pepe:${DISCORD_ID}> <a:party:1>`, shows: ['pepe'] },
  { name: 'discord custom emoji before italics', text: '<:pepe_frog:1> _it_ __u__', shows: ['pepe_frog'] },
  { name: 'discord timestamp', text: '<t:1700000000:R>', shows: ['1700000000'] },
  { name: 'discord guide link', text: '<id:customize>', shows: ['customize'] },
  { name: 'discord masked link', text: '[click](https://evil.example)', shows: ['click', 'https://evil'] },
  { name: 'discord masked link in brackets', text: '[click](<https://evil.example>)', shows: ['click'] },
  { name: 'discord masked link posing as a url', text: '[https://bank.example](https://evil.example)', shows: ['bank.example'] },
  { name: 'discord nested masked links', text: '[[a](https://a.example)](https://b.example)', shows: ['a.example'] },
  { name: 'autolink', text: 'https://evil.example/x', shows: ['evil.example'] },
  { name: 'autolink in angle brackets', text: '<https://evil.example>', shows: ['evil.example'] },

  // Markdown and mrkdwn constructs.
  { name: 'code fence', text: '```\n<!channel> @everyone\n```', shows: ['channel', 'everyone'] },
  { name: 'code fence with language', text: '```js\nalert(1)\n```', shows: ['alert'] },
  { name: 'code fence inside a word', text: 'x```y\nz```', shows: ['x```y'] },
  { name: 'inline backticks', text: '`code` and ``double``', shows: ['`code`'] },
  { name: 'long backtick run', text: '````\n`````', shows: ['````'] },
  { name: 'bold', text: '*bold* **bolder** ***both***', shows: ['*bold*'] },
  { name: 'italic and underline', text: '_it_ __under__ ___both___', shows: ['_it_'] },
  { name: 'strikethrough', text: '~strike~ ~~strike~~', shows: ['~strike~'] },
  { name: 'spoiler', text: '||spoiler|| |||x|||', shows: ['||spoiler||'] },
  { name: 'block quote', text: '> quote\n>>> block quote', shows: ['> quote'] },
  { name: 'quote after spaces', text: '   > quote', shows: ['quote'] },
  { name: 'headings', text: '# heading\n## two\n### three', shows: ['# heading'] },
  { name: 'heading after spaces', text: '  # heading', shows: ['# heading'] },
  { name: 'subtext', text: '-# subtext', shows: ['-# subtext'] },
  { name: 'list markers', text: '- item\n* item\n1. item\n   - nested', shows: ['- item'] },
  { name: 'backslash escapes', text: '\\<@U1> \\*not\\* \\', shows: ['\\<@U1>'] },
  { name: 'everything at once', text: '[x](https://e.example) # **y** <@1> `y` ||z|| > @here', shows: ['e.example'] },

  // HTML-ish text and Slack's three control characters.
  { name: 'entities', text: '&lt;!channel&gt; &amp; &#60;@U1&#62;', shows: ['&lt;!channel&gt;'] },
  { name: 'raw angle brackets and ampersand', text: 'a < b > c & d <> &', shows: ['a < b > c & d'] },
  { name: 'html tag', text: '<script>alert(1)</script>', shows: ['<script>'] },
  { name: 'half an entity', text: '&amp', shows: ['&amp'] },

  // Zero-width characters hiding a mention or a link from an escaper.
  { name: 'zero-width space in @everyone', text: '@\u200beveryone', shows: ['everyone'] },
  { name: 'zero-width non-joiner in @here', text: '@\u200chere', shows: ['here'] },
  { name: 'zero-width joiner in @everyone', text: '@\u200deveryone', shows: ['everyone'] },
  { name: 'word joiner in @channel', text: '@\u2060channel', shows: ['channel'] },
  { name: 'byte-order mark in @everyone', text: '@\ufeffeveryone', shows: ['everyone'] },
  { name: 'soft hyphen in @everyone', text: '@\u00adeveryone', shows: ['everyone'] },
  { name: 'zero-width in <!channel>', text: '<\u200b!channel> <!\u200bhere>', shows: ['channel'] },
  { name: 'zero-width in <@user>', text: `<\u200b@${DISCORD_ID}> <@\u200dU1>`, shows: [DISCORD_ID] },
  { name: 'zero-width in a masked link', text: '[click]\u200b(https://evil.example)', shows: ['click'] },
  { name: 'zero-width in a code fence', text: '`\u200b`\u2060`', shows: ['```'] },
  { name: 'zero-width only', text: '\u200b\u200c\u200d\u2060\ufeff' },

  // Bidirectional controls that reverse or reorder what follows.
  { name: 'right-to-left override', text: 'evil\u202egnp.exe', shows: ['evilgnp.exe'] },
  { name: 'left-to-right override', text: '\u202dabc\u202c', shows: ['abc'] },
  { name: 'bidi isolates', text: 'a\u2066b\u2067c\u2068d\u2069e', shows: ['abcde'] },
  { name: 'bidi marks', text: '\u200fright\u200e', shows: ['right'] },
  { name: 'arabic letter mark', text: '\u061cmark', shows: ['mark'] },
  { name: 'override inside a mention', text: '<\u202e!channel> @\u202eeveryone', shows: ['channel'] },
  { name: 'override left open at the end', text: 'price \u202e', shows: ['price'] },
  { name: 'right-to-left script', text: 'مرحبا <!channel> שלום', shows: ['مرحبا', 'שלום'] },

  // Combining characters.
  { name: 'zalgo', text: `<!channel> ${zalgo('zalgo')}`, shows: ['channel'] },
  { name: 'combining mark on a bracket', text: '<\u0338!channel> @\u0301everyone', shows: ['channel'] },

  // Emoji and surrogate pairs; broken surrogates.
  { name: 'emoji', text: '🚨 rug 😀 🇺🇸 👍🏽', shows: ['🚨 rug 😀'] },
  { name: 'emoji sequences', text: '🏳️‍🌈 👨‍👩‍👧 keycap 1️⃣', shows: ['keycap'] },
  { name: 'emoji across a column cut', text: `${'a'.repeat(26)}😀😀😀😀 ${'b'.repeat(5)}`, shows: ['aaaaaaaaaa'] },
  { name: 'lone high surrogate', text: 'alpha\ud800beta', shows: ['alpha', 'beta'] },
  { name: 'lone low surrogate', text: 'alpha\udc00beta', shows: ['alpha', 'beta'] },
  { name: 'reversed surrogate pair', text: 'left\udc00\ud800right', shows: ['left', 'right'] },
  { name: 'high surrogate at the end', text: 'tail\ud83d', shows: ['tail'] },
  { name: 'surrogate split by zero-width', text: 'pre\ud83d\u200b\ude00post', shows: ['pre', 'post'] },

  // Control characters.
  { name: 'nul', text: 'nu\u0000ll', shows: ['null'] },
  { name: 'bell and escape sequence', text: '\u0007\u001b[31mred\u001b[0m', shows: ['red'] },
  { name: 'carriage returns', text: 'one\rtwo\r\nthree', shows: ['one', 'three'] },
  { name: 'tabs', text: 'tab\tbed\t\tend', shows: ['tab', 'bed'] },
  { name: 'newlines', text: '\n\nfirst\n\n\nsecond\n', shows: ['first', 'second'] },
  { name: 'delete and C1 controls', text: 'del\u007f\u0085\u009bete', shows: ['delete'] },
  { name: 'line and paragraph separators', text: 'ls\u2028ps\u2029end', shows: ['ls', 'end'] },

  // Empty and blank.
  { name: 'empty', text: '' },
  { name: 'whitespace only', text: '  \t \n \r\n  ' },
  { name: 'bidi controls only', text: '\u202e\u2066\u2069\u200f' },

  // 100 KB, far past every limit on both platforms.
  { name: '100 KB of letters', text: big('A'), shows: ['AAAAAAAAAAAAAAAAAAAA'] },
  { name: '100 KB of words', text: big('risk '), shows: ['risk risk'] },
  { name: '100 KB of <!channel>', text: big('<!channel>'), shows: ['channel'] },
  { name: '100 KB of @everyone', text: big('@everyone '), shows: ['everyone'] },
  { name: '100 KB of Discord mentions', text: big(`<@${DISCORD_ID}>`), shows: [DISCORD_ID] },
  { name: '100 KB of backticks', text: big('`'), shows: ['```'] },
  { name: '100 KB of markup, no spaces', text: big('*_~|'), shows: ['*_~|'] },
  { name: '100 KB of masked links', text: big('[x](https://evil.example)'), shows: ['evil.example'] },
  { name: '100 KB of emoji', text: big('😀'), shows: ['😀😀😀'] },
  { name: '100 KB of newlines', text: big('\n') },
  { name: '100 KB of ampersands', text: big('&'), shows: ['&&&&'] },
  { name: '100 KB of zero-width and overrides', text: big('\u200b\u202e'), shows: [] },
];
