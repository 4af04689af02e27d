/**
 * A bare Bolt app in its own process, the yardstick for polbot's Slack acknowledgements: Bolt's
 * defaults (its HTTPReceiver), one listener that acknowledges every command and does nothing else.
 * The only settings are the ones it cannot run without: the signing secret and a bot token, with
 * the Web API pointed at the fake Slack so that Bolt's own auth.test of the token is answered.
 *
 * A process of its own, like the load generator's, so that its event loop is shared with nothing;
 * polbot's endpoint is measured with its core working on the cards of the same burst, since a bot
 * doing real work must acknowledge as fast as one that does nothing.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App } from '@slack/bolt';
import { serveParent } from './child.js';

const [signingSecret, token, slackApiUrl] = process.argv.slice(2);
if (!signingSecret || !token || !slackApiUrl) throw new Error('usage: bolt-child.ts SIGNING_SECRET BOT_TOKEN SLACK_API_URL');

const app = new App({ signingSecret, token, clientOptions: { slackApiUrl } });
app.command(/.*/, async ({ ack }) => ack());
// Bolt checks the token with auth.test as it is constructed, and every event waits for that check.
// A call of the same kind, sent after it to the same fake, is answered after it: once this one is,
// the first burst does not wait on the fake Slack (polbot, too, checks its token before it listens).
await app.client.auth.test();

// On loopback only, as polbot's endpoint is started in the benchmark.
const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;

serveParent(
  { port: (server.address() as AddressInfo).port },
  (msg) => {
    throw new Error(`unknown op ${msg.op}`);
  },
  async () => {
    server.closeAllConnections();
    await app.stop();
  },
);
