import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChoiceReply, ErrorReply, Reply, TableReply, TextReply } from '../../../src/reply/model.js';
import { demoCore, slackText } from '../../helpers/core.js';
import { createHarness, discordCaller, slackCaller, type Harness } from '../../helpers/digest/harness.js';
import { ENGINES } from '../../helpers/digest/helpers.js';

const err = (r: Reply) => {
  expect(r.kind, JSON.stringify(r).slice(0, 300)).toBe('error');
  return r as ErrorReply;
};

describe.each(ENGINES)('digest commands on %s', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine, { start: '2026-11-22T10:00:00Z', limits: { maxPerChannel: 3 } });
  });
  afterEach(() => h.reset());
  afterAll(() => h.close());

  it('adds a digest with every name resolved now, and lists it with the next run in its own timezone', async () => {
    const added = (await h.ask(
      'digest add bitcoin, lido dao, binance weekdays at 09:00 tz Asia/Tokyo',
      slackCaller('C-CMD', 'U-ANNA'),
    )) as TextReply;
    expect(added.kind).toBe('text');
    expect(added.title).toMatch(/^Digest #\d+ added$/);
    // Sunday 22 November 10:00 UTC is 19:00 in Tokyo: the next weekday 09:00 is Monday's.
    expect(added.text).toBe('3 names, weekdays at 09:00 (Asia/Tokyo). First digest: Mon 2026-11-23 09:00 Asia/Tokyo.');
    expect(added.sections?.[0]?.items).toEqual(['Bitcoin (BTC) · project', 'Lido DAO (LDO) · project', 'Binance · exchange']);
    const id = Number(/#(\d+)/.exec(added.title!)![1]);
    expect(await h.store.get(id)).toMatchObject({
      platform: 'slack',
      channelId: 'C-CMD',
      createdBy: 'U-ANNA',
      cron: '0 9 * * 1-5',
      timezone: 'Asia/Tokyo',
      entities: [
        { kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' },
        { kind: 'project', slug: 'lido-dao', name: 'Lido DAO', ticker: 'LDO' },
        { kind: 'exchange', slug: 'binance', name: 'Binance' },
      ],
    });

    // Everyone in the channel may list; other channels do not see it.
    const list = (await h.ask('digest list', slackCaller('C-CMD', 'U-BOB', false))) as TableReply;
    expect(list.kind).toBe('table');
    expect(list.rows).toEqual([
      {
        id: String(id),
        watch: 'Bitcoin, Lido DAO, Binance',
        schedule: 'weekdays at 09:00 Asia/Tokyo',
        next: 'Mon 2026-11-23 09:00 Asia/Tokyo',
        last: 'never',
        state: 'active',
      },
    ]);
    expect(list.title).toBe('Digests in this channel (1 of at most 3)');
    expect(((await h.ask('digest list', slackCaller('C-ELSEWHERE'))) as TextReply).title).toBe('No digests in this channel yet');
    expect(((await h.ask('digest list', discordCaller('C-CMD'))) as TextReply).title).toBe('No digests in this channel yet');
  });

  it('refuses an ambiguous name with the candidates, keeping the rest of the command in each choice', async () => {
    const r = (await h.ask('digest add bitcoin, shiba weekly friday at 16:00 tz Europe/Berlin', slackCaller('C-AMBIG'))) as ChoiceReply;
    expect(r).toMatchObject({ kind: 'choice', reason: 'ambiguous' });
    expect(r.options.map((o) => o.command).sort()).toEqual([
      'digest add bitcoin, project:shiba-inu weekly friday at 16:00 tz Europe/Berlin',
      'digest add bitcoin, project:shibaswap weekly friday at 16:00 tz Europe/Berlin',
    ]);
    expect(await h.store.listChannel('slack', 'C-AMBIG')).toEqual([]);
    // Choosing runs the command with that entity, named as the upstream names it.
    const chosen = (await h.ask(r.options.find((o) => o.command!.includes('shibaswap'))!.command!, slackCaller('C-AMBIG'))) as TextReply;
    expect(chosen.title).toMatch(/added$/);
    expect(chosen.text).toContain('weekly on Friday at 16:00 (Europe/Berlin)');
    const [stored] = await h.store.listChannel('slack', 'C-AMBIG');
    expect(stored?.entities).toEqual([
      { kind: 'project', slug: 'bitcoin', name: 'Bitcoin', ticker: 'BTC' },
      { kind: 'project', slug: 'shibaswap', name: 'ShibaSwap', ticker: 'BONE' },
    ]);
    const unknown = (await h.ask('digest add etherium', slackCaller('C-AMBIG'))) as ChoiceReply;
    expect(unknown).toMatchObject({ kind: 'choice', reason: 'not_found' });
    expect(unknown.options.map((o) => o.command)).toContain('digest add project:ethereum');
  });

  it('validates names, schedule, cron, timezone and the per-channel limit, each with a clear error', async () => {
    const c = slackCaller('C-VALID');
    const names26 = h.sim.data.projects
      .slice(0, 26)
      .map((p) => p.slug)
      .join(', ');
    const cases: [string, RegExp][] = [
      [`digest add ${names26}`, /at most 25 names; you named 26/],
      ['digest add', /Name at least one project or exchange/],
      ['digest add bitcoin "*/5 * * * *"', /runs more often than once an hour/],
      ['digest add bitcoin "0 9 * *"', /needs exactly 5 fields/],
      ['digest add bitcoin "0 25 * * *"', /is not valid: .*hour/i],
      ['digest add bitcoin daily tz Europe/Atlantis', /Unknown timezone 'Europe\/Atlantis'/],
      ['digest add bitcoin daily at 9pm', /Unknown time '9pm'/],
      ['digest add bitcoin 0 9 * * *', /in double quotes/],
      ['digest add project:no-such-coin', /There is no project 'no-such-coin'/],
      ['digest frobnicate', /Unknown digest command 'frobnicate'/],
      ['digest remove twelve', /'twelve' is not a digest number/],
      ['digest pause', /Which digest\?/],
    ];
    for (const [text, message] of cases) {
      const r = err(await h.ask(text, c));
      expect(r.message, text).toMatch(message);
    }
    expect(slackText(err(await h.ask('digest add bitcoin "0 9 * *"', c)).hint)).toMatch(/^For example:? \/pol digest add \S+/);
    for (let i = 0; i < 3; i++) await h.add(`digest add bitcoin daily at 0${i}:00`, c);
    const full = err(await h.ask('digest add ethereum daily', c));
    expect(full.message).toBe('This channel already has 3 digests, the most it can have.');
    expect(await h.store.listChannel('slack', 'C-VALID')).toHaveLength(3);
  });

  it('lets only people allowed to manage digests add, remove, pause or resume; list and preview are for everyone', async () => {
    const id = await h.add('digest add bitcoin daily', slackCaller('C-PERM'));
    for (const text of ['digest add ethereum daily', `digest remove ${id}`, `digest pause ${id}`, `digest resume ${id}`]) {
      const slack = err(await h.ask(text, slackCaller('C-PERM', 'U-GUEST', false)));
      expect(slack.message, text).toBe('You are not allowed to add, remove, pause or resume digests here.');
      expect(slack.hint).toMatch(/digest admins/);
      const discord = err(await h.ask(text, discordCaller('C-PERM', '300000000000000009', false)));
      expect(discord.hint).toMatch(/admin digest command/);
    }
    expect((await h.store.get(id))?.state).toBe('active');
    expect(((await h.ask('digest list', slackCaller('C-PERM', 'U-GUEST', false))) as TableReply).rows).toHaveLength(1);
    expect(((await h.ask(`digest preview ${id}`, slackCaller('C-PERM', 'U-GUEST', false))) as TableReply).kind).toBe('table');
  });

  it('pauses, resumes and removes by short id, only in the digest’s own channel', async () => {
    const id = await h.add('digest add bitcoin, binance daily at 09:00', slackCaller('C-LIFE'));
    expect(err(await h.ask(`digest pause ${id}`, slackCaller('C-OTHER'))).message).toBe(`There is no digest #${id} in this channel.`);
    expect(err(await h.ask(`digest preview ${id}`, discordCaller('C-LIFE'))).message).toBe(`There is no digest #${id} in this channel.`);

    expect(((await h.ask(`digest pause #${id}`, slackCaller('C-LIFE'))) as TextReply).title).toBe(`Digest #${id} paused`);
    const paused = (await h.ask('digest list', slackCaller('C-LIFE'))) as TableReply;
    expect(paused.rows[0]).toMatchObject({ next: 'paused', state: 'paused' });
    h.clock.set('2026-11-24T12:00:00Z');
    const resumed = (await h.ask(`digest resume ${id}`, slackCaller('C-LIFE'))) as TextReply;
    expect(resumed).toMatchObject({ title: `Digest #${id} resumed`, text: 'Next digest: Wed 2026-11-25 09:00 UTC.' });
    expect(((await h.ask(`digest resume ${id}`, slackCaller('C-LIFE'))) as TextReply).title).toBe(`Digest #${id} is already active`);
    expect(((await h.ask(`digest remove ${id}`, slackCaller('C-LIFE'))) as TextReply).title).toBe(`Digest #${id} removed`);
    expect(await h.store.get(id)).toBeNull();
    h.clock.set('2026-11-22T10:00:00Z');
  });

  it('from the console: reads work, changes are refused politely (there is no channel to post to)', async () => {
    const r = err(
      await h.ask('digest add bitcoin daily', { platform: 'console', userId: 'console', channelId: 'console', canManageDigests: true }),
    );
    expect(r.message).toBe('Digests post to a Slack, Discord or Telegram chat: add and manage them from that chat.');
    const viaRun = await h.core.run('digest list');
    expect(viaRun.reply).toMatchObject({ kind: 'text', title: 'No digests in this channel yet' });
    const help = (await h.ask('digest', slackCaller('C-HELP'))) as TextReply;
    expect(help.commands?.map((c) => `/pol ${c.typed}`)).toEqual(expect.arrayContaining(['/pol digest list', '/pol digest preview <id>']));
  });
});

describe('digest commands without a digest store', () => {
  it('say plainly that digests are not enabled', async () => {
    const core = await demoCore({ RATE_LIMIT_PER_USER: '0' });
    try {
      const r = (await core.run('digest add bitcoin daily', slackCaller('C-NONE'))).reply as ErrorReply;
      expect(r).toMatchObject({ kind: 'error', message: expect.stringMatching(/delivered to Slack, Discord or Telegram chats/) });
    } finally {
      await core.close();
    }
  });
});
