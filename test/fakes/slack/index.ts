/**
 * A loopback stand-in for Slack that the real @slack/web-api and @slack/bolt
 * clients talk to once their API base is overridden:
 *
 *   const fake = await startFakeSlack();
 *   const app = new App({ token: fake.botToken, signingSecret, clientOptions: { slackApiUrl: fake.url } });
 *
 * Bolt calls auth.test from its constructor, so start the fake first. Stop Bolt
 * apps before closing the fake: a Socket Mode client that loses its server keeps
 * reconnecting, and its retries outlive the test.
 */
export { startFakeSlack, type FakeSlack, type FakeSlackOptions } from './server.js';
export type { RecordedCall, CallPredicate } from './recorder.js';
export type { FailOptions, RateLimitOptions } from './failures.js';
export type { FakeFile, UploadRecord } from './files.js';
export type { EnvelopeInput, SocketAck, SocketModeControls } from './socket-mode.js';
export { signSlackRequest, postToBolt, type SlackSignatureHeaders, type PostToBoltOptions, type BoltResponse } from './signing.js';
export {
  slashCommandPayload,
  slashCommandBody,
  blockActionsPayload,
  blockActionsBody,
  messageActionBody,
  blockSuggestionBody,
  type BlockSuggestionInput,
  type SlashCommandInput,
  type BlockActionsInput,
  type ActionInput,
} from './payloads.js';
export { DEFAULT_CHANNEL_ID, type FakeIdentity } from './identity.js';
export { appHomeOpenedBody, homeBlockActionsBody, homeBlockSuggestionBody, type FakeHome } from './home.js';
export { appUninstalledBody, tokensRevokedBody } from './events.js';
export {
  appMentionBody,
  assistantThreadStartedBody,
  directMessageBody,
  messageTs,
  type SaidInput,
} from './conversation.js';
export type { WorkspaceSpec } from './workspaces.js';
