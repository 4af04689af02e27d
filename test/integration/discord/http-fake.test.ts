import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { interactionsRoute, type RawInteraction } from '../../../adapters/discord/http/endpoint.js';
import { startRouteServer, type RouteServer } from '../../../src/http/routes.js';
import { createLogger } from '../../../src/log.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { GUILD_ID } from '../../helpers/discord.js';

/**
 * The fake Discord as the other side of an HTTP interactions endpoint enforces Discord's rules on
 * the response: it must come within the deadline, be a valid initial response, and be the only
 * one; the interaction webhook then lives 15 minutes. The endpoint here is the product's own
 * route (signature checks and all) with a hand-written answer, so each rule can be broken on purpose.
 */

/** Discord's own limit for the initial response, which the fake applies by default. */
const DEADLINE_MS = 3_000;
let fake: FakeDiscord;
let server: RouteServer | undefined;
let answer: (raw: RawInteraction, res: ServerResponse) => Promise<void> = async () => undefined;

beforeAll(async () => {
  fake = await startFakeDiscord({ guildIds: [GUILD_ID] });
  const route = interactionsRoute({
    publicKey: fake.publicKey,
    applicationId: fake.applicationId,
    log: createLogger({ level: 'silent' }),
    answer: (raw, res) => answer(raw, res),
    stopping: () => false,
  });
  server = await startRouteServer([route], 0, '127.0.0.1');
  await fake.setInteractionsEndpoint(`http://127.0.0.1:${server.port}/discord/interactions`);
});
afterEach(() => {
  answer = async () => undefined;
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const webhook = (token: string, path = '/messages/@original') => `${fake.apiUrl}/v10/webhooks/${fake.applicationId}/${token}${path}`;
const patch = (url: string, body: unknown) =>
  fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the fake Discord over HTTP', () => {
  it('refuses an Interactions Endpoint URL that accepts a bad signature', async () => {
    const lax = createServer((_req, res) => json(res, { type: 1 }));
    await new Promise<void>((r) => lax.listen(0, '127.0.0.1', r));
    try {
      await expect(fake.setInteractionsEndpoint(`http://127.0.0.1:${(lax.address() as AddressInfo).port}/`)).rejects.toThrow(
        /bad signature/,
      );
    } finally {
      lax.close();
    }
  });

  it('sends interactions only to the endpoint once it is set, never over the gateway', async () => {
    answer = async (_raw, res) => json(res, { type: 4, data: { content: 'hello' } });
    const h = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    expect((await h.httpResponse()).status).toBe(200);
    expect(fake.connectionCount).toBe(0);
    expect(h.original()?.content).toBe('hello');
  });

  it('records a response later than 3 s as a failed interaction, makes no message, and opens no webhook', async () => {
    answer = async (_raw, res) => {
      await sleep(DEADLINE_MS + 300);
      if (!res.destroyed) json(res, { type: 4, data: { content: 'too late' } });
    };
    const h = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    const x = await h.httpResponse();
    expect(x.status).toBe(0);
    expect(x.failure).toMatch(/^This interaction failed: no response within 3000 ms/);
    expect(x.ms).toBeGreaterThan(DEADLINE_MS - 50);
    expect(h.failure()).toBe(x.failure);
    expect(h.original()).toBeUndefined();
    const late = await patch(webhook(h.token), { content: 'edit' });
    expect(late.status).toBe(404);
    expect(((await late.json()) as { code: number }).code).toBe(10015);
    // Nor may the callback route answer it afterwards.
    const callback = await fetch(`${fake.apiUrl}/v10/interactions/${h.id}/${h.token}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":4,"data":{"content":"x"}}',
    });
    expect(callback.status).toBe(404);
  });

  it('lets an interaction be answered once: a callback after the HTTP response is refused', async () => {
    answer = async (_raw, res) => json(res, { type: 5 });
    const h = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    expect((await h.httpResponse()).failure).toBeUndefined();
    const again = await fetch(`${fake.apiUrl}/v10/interactions/${h.id}/${h.token}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":4,"data":{"content":"second"}}',
    });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { code: number }).code).toBe(40060);
  });

  it('takes webhook edits sent right after the response, and refuses them once the token is 15 minutes old', async () => {
    let edited: Promise<number> | undefined;
    answer = async (raw, res) => {
      json(res, { type: 5 });
      // No wait: Discord reads the response before it serves the interaction's webhook.
      edited = patch(webhook(raw.token), { content: 'done' }).then((r) => r.status);
    };
    const h = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    await h.httpResponse();
    await expect.poll(() => edited).toBeDefined();
    expect(await edited).toBe(200);
    expect(h.original()?.content).toBe('done');
    fake.advanceClock(15 * 60 * 1000 + 1_000);
    try {
      const expired = await patch(webhook(h.token), { content: 'much later' });
      expect(expired.status).toBe(404);
    } finally {
      fake.advanceClock(-(15 * 60 * 1000 + 1_000));
    }
  });

  it('refuses a response Discord would refuse: too many files, the wrong type for autocomplete, a body that is not JSON', async () => {
    answer = async (_raw, res) => {
      const form = new FormData();
      form.append('payload_json', JSON.stringify({ type: 4, data: { content: 'files', attachments: [] } }));
      for (let i = 0; i < 11; i += 1) form.append(`files[${i}]`, new Blob([Buffer.from('x')], { type: 'text/plain' }), `f${i}.txt`);
      const encoded = new Response(form);
      res.writeHead(200, { 'content-type': encoded.headers.get('content-type')! });
      res.end(Buffer.from(await encoded.arrayBuffer()));
    };
    const files = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    expect((await files.httpResponse()).failure).toMatch(/refused \(Invalid Form Body\)/);
    expect(files.original()).toBeUndefined();

    answer = async (_raw, res) => json(res, { type: 4, data: { content: 'not choices' } });
    const auto = fake.sendAutocomplete({ name: 'pol', subcommand: 'card', options: { name: 'bin' }, focused: 'name' });
    expect((await auto.httpResponse()).failure).toMatch(/refused/);

    answer = async (_raw, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"type":');
    };
    const broken = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    expect((await broken.httpResponse()).failure).toMatch(/not valid JSON/);
  });

  it('records a multipart response with its files and makes the message with them attached', async () => {
    answer = async (_raw, res) => {
      const form = new FormData();
      form.append('payload_json', JSON.stringify({ type: 4, data: { content: 'chart', attachments: [{ id: 0, filename: 'c.png' }] } }));
      form.append('files[0]', new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'c.png');
      const encoded = new Response(form);
      res.writeHead(200, { 'content-type': encoded.headers.get('content-type')! });
      res.end(Buffer.from(await encoded.arrayBuffer()));
    };
    const h = fake.sendCommand({ name: 'pol', subcommand: 'help' });
    const x = await h.httpResponse();
    expect(x.failure).toBeUndefined();
    expect(x.files.map((f) => [f.field, f.name, f.contentType])).toEqual([['files[0]', 'c.png', 'image/png']]);
    expect(h.original()?.attachments.map((a) => a.filename)).toEqual(['c.png']);
    const callback = await h.callback();
    expect(callback.type).toBe(4);
    expect(callback.call.via).toBe('http-response');
  });
});
