import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/index.js';

/**
 * The fake Slack's rules for files shown inside messages, each shown failing and passing with the
 * real @slack/web-api client: an image block needs alt text and one source; its `slack_file` must
 * be a completed, processed image uploaded in the poster's workspace; an upload completed without
 * a channel is shared nowhere, and one completed with a channel becomes a message there.
 */

const OAUTH = { clientId: '1111.2222', clientSecret: 'fake-files-client-secret-5d1e' };
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x01]);
const CHANNEL = 'C0FILES001';

let fake: FakeSlack;
let client: webApi.WebClient;
let otherClient: webApi.WebClient;

const webClient = (token: string) =>
  new webApi.WebClient(token, { slackApiUrl: fake.url, logLevel: webApi.LogLevel.ERROR, retryConfig: { retries: 0 } });

beforeAll(async () => {
  fake = await startFakeSlack({ oauth: OAUTH });
  client = webClient(fake.botToken);
  // A second workspace, installed as Slack installs one: its token acts as that workspace.
  const code = fake.installWorkspace({ teamId: 'T0OTHERWS1' });
  const installed = await new webApi.WebClient(undefined, { slackApiUrl: fake.url, logLevel: webApi.LogLevel.ERROR }).oauth.v2.access({
    client_id: OAUTH.clientId,
    client_secret: OAUTH.clientSecret,
    code,
  });
  otherClient = webClient(String(installed.access_token));
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.processFilesFor(0);
});

/** Uploads a file without sharing it (no channel): its id. */
async function upload(by: webApi.WebClient, filename = 'chart.png', bytes: Buffer = PNG): Promise<string> {
  const res = (await by.files.uploadV2({ file: bytes, filename, alt_text: 'a chart' })) as unknown as {
    files: { files: { id: string }[] }[];
  };
  return res.files[0]!.files[0]!.id;
}

/** An image block showing a Slack file; `null` alt text leaves the field out. */
const image = (slack_file: Record<string, unknown>, alt_text: string | null = 'PoL of Kraken over 30 days') => ({
  type: 'image',
  slack_file,
  ...(alt_text === null ? {} : { alt_text }),
});

/** Posts the blocks; Slack's answer, refused or not. */
async function post(
  blocks: unknown[],
  by: webApi.WebClient = client,
  channel = CHANNEL,
): Promise<{ ok: boolean; errors?: string[]; ts?: string }> {
  try {
    const res = await by.chat.postMessage({ channel, text: 'alert', blocks: blocks as never });
    return { ok: true, ts: String(res.ts) };
  } catch (err) {
    const data = (err as { data?: { ok: boolean; error?: string; errors?: string[] } }).data;
    if (data?.error !== 'invalid_blocks') throw err;
    return { ok: false, errors: data.errors ?? [] };
  }
}

describe('fake Slack: files shown in messages', () => {
  it('shows a file uploaded without a channel in an image block, by id or by its private URL', async () => {
    const id = await upload(client);
    expect(await post([image({ id })])).toMatchObject({ ok: true });
    const [complete] = fake.calls('files.completeUploadExternal').slice(-1);
    const url = (complete!.response as { files: { url_private: string }[] }).files[0]!.url_private;
    expect(await post([image({ url })])).toMatchObject({ ok: true });
  });

  it('refuses a slack_file that names no file', async () => {
    expect(await post([image({ id: 'F0000000999' })])).toEqual({
      ok: false,
      errors: ['[ERROR] invalid slack file [json-pointer:/blocks/0/slack_file]'],
    });
  });

  it('refuses a file uploaded by another workspace, which the other workspace itself can show', async () => {
    const theirs = await upload(otherClient);
    expect(await post([image({ id: theirs })], client)).toEqual({
      ok: false,
      errors: ['[ERROR] invalid slack file [json-pointer:/blocks/0/slack_file]'],
    });
    expect(await post([image({ id: theirs })], otherClient, 'C0OTHERWS1')).toMatchObject({ ok: true });
    // Nor can a workspace complete another's upload.
    const { file_id } = await otherClient.files.getUploadURLExternal({ filename: 'x.png', length: PNG.length });
    await fetch(`${fake.origin}/upload/${String(file_id)}`, { method: 'POST', body: PNG });
    await expect(client.files.completeUploadExternal({ files: [{ id: String(file_id) }] })).rejects.toMatchObject({
      data: { error: 'file_not_found' },
    });
  });

  it('refuses a file whose upload was never completed, and shows it once completed', async () => {
    const { file_id, upload_url } = await client.files.getUploadURLExternal({ filename: 'late.png', length: PNG.length });
    const id = String(file_id);
    expect((await fetch(String(upload_url), { method: 'POST', body: PNG })).status).toBe(200);
    expect(await post([image({ id })])).toEqual({ ok: false, errors: ['[ERROR] invalid slack file [json-pointer:/blocks/0/slack_file]'] });
    expect(fake.files().find((f) => f.id === id)?.completedAt).toBeUndefined();

    await client.files.completeUploadExternal({ files: [{ id }] });
    expect(await post([image({ id })])).toMatchObject({ ok: true });
  });

  it('refuses a file Slack is still processing, and shows it once processed', async () => {
    fake.processFilesFor(400);
    const id = await upload(client);
    const started = Date.now();
    expect(await post([image({ id })])).toEqual({ ok: false, errors: ['[ERROR] invalid slack file [json-pointer:/blocks/0/slack_file]'] });
    await new Promise((resolve) => setTimeout(resolve, 400 - (Date.now() - started) + 20));
    expect(await post([image({ id })])).toMatchObject({ ok: true });
  });

  it('refuses a file that is not an image', async () => {
    const csv = await upload(client, 'assets.csv', Buffer.from('name,pol\nkraken,0.05\n'));
    expect(await post([image({ id: csv })])).toEqual({
      ok: false,
      errors: ['[ERROR] invalid slack file [json-pointer:/blocks/0/slack_file]'],
    });
  });

  it('needs an image block’s alt text, and exactly one source: image_url or slack_file, a slack_file by id or by url', async () => {
    const id = await upload(client);
    expect(await post([image({ id }, null)])).toEqual({
      ok: false,
      errors: ['[ERROR] missing required field: alt_text [json-pointer:/blocks/0]'],
    });
    expect(await post([image({ id }, ' ')])).toMatchObject({ ok: false });
    expect(await post([{ ...image({ id }), image_url: 'http://127.0.0.1:9/x.png' }])).toEqual({
      ok: false,
      errors: ['[ERROR] must provide exactly one of image_url or slack_file [json-pointer:/blocks/0]'],
    });
    expect(await post([{ type: 'image', alt_text: 'nothing to show' }])).toMatchObject({ ok: false });
    expect(await post([image({ id, url: 'https://files.slack.com/files-pri/T0-F1/x.png' })])).toEqual({
      ok: false,
      errors: ['[ERROR] must provide exactly one of id or url [json-pointer:/blocks/0/slack_file]'],
    });
    expect(await post([image({ id }, 'a'.repeat(2001))])).toMatchObject({ ok: false });
    expect(await post([image({ id }, 'a'.repeat(2000))])).toMatchObject({ ok: true });
  });

  it('holds a redraw (chat.update) to the same rules', async () => {
    const id = await upload(client);
    const posted = await post([image({ id })]);
    const update = (slack_file: Record<string, unknown>) =>
      client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'redrawn', blocks: [image(slack_file)] as never }).then(
        () => 'ok',
        (err: unknown) => (err as { data: { errors: string[] } }).data.errors.join(),
      );
    expect(await update({ id: 'F0000000998' })).toBe('[ERROR] invalid slack file [json-pointer:/blocks/0/slack_file]');
    expect(await update({ id })).toBe('ok');
  });

  it('shares an upload completed without a channel nowhere, and one completed with a channel as a message of its own there', async () => {
    const read = async (channel: string) =>
      (await client.conversations.history({ channel })).messages as { ts: string; files?: { id: string }[]; upload?: boolean }[];
    const before = (await read('C0SHARED01')).length;

    const unshared = await upload(client);
    expect(fake.files().find((f) => f.id === unshared)).toMatchObject({ team: fake.identity.teamId, channels: [] });
    expect(await read('C0SHARED01')).toHaveLength(before);

    const shared = (await client.files.uploadV2({ channel_id: 'C0SHARED01', file: PNG, filename: 'shared.png' })) as unknown as {
      files: { files: { id: string }[] }[];
    };
    const sharedId = shared.files[0]!.files[0]!.id;
    expect(fake.files().find((f) => f.id === sharedId)?.channels).toEqual(['C0SHARED01']);
    const messages = await read('C0SHARED01');
    expect(messages).toHaveLength(before + 1);
    expect(messages[0]).toMatchObject({ upload: true, files: [{ id: sharedId }] });
  });

  it('reads one message by its ts: latest with inclusive and a limit of 1', async () => {
    const first = await post([{ type: 'section', text: { type: 'mrkdwn', text: 'first' } }], client, 'C0ONEMSG01');
    await post([{ type: 'section', text: { type: 'mrkdwn', text: 'second' } }], client, 'C0ONEMSG01');
    const one = await client.conversations.history({ channel: 'C0ONEMSG01', latest: first.ts!, inclusive: true, limit: 1 });
    expect(one.messages?.map((m) => m.ts)).toEqual([first.ts]);
    const before = await client.conversations.history({ channel: 'C0ONEMSG01', latest: first.ts!, limit: 1 });
    expect(before.messages).toEqual([]);
  });
});
