/**
 * Who the fake workspace says it is. Payload builders use the same defaults so a
 * slash command built without overrides looks like it came from the workspace the
 * fake server answers for.
 */
export interface FakeIdentity {
  teamId: string;
  teamName: string;
  teamDomain: string;
  botUserId: string;
  botUserName: string;
  botId: string;
  appId: string;
}

export const DEFAULT_IDENTITY: Readonly<FakeIdentity> = Object.freeze({
  teamId: 'T0FAKE0001',
  teamName: 'Fake Workspace',
  teamDomain: 'fake-workspace',
  botUserId: 'U0FAKEBOT1',
  botUserName: 'polbot',
  botId: 'B0FAKEBOT1',
  appId: 'A0FAKEAPP1',
});

export const DEFAULT_BOT_TOKEN = 'xoxb-0000000000-0000000000000-fakebottoken000000000000';
export const DEFAULT_APP_TOKEN = 'xapp-1-A0FAKEAPP1-0000000000000-fakeapptoken00000000000000';
export const DEFAULT_USER_ID = 'U0FAKEUSR1';
export const DEFAULT_USER_NAME = 'fake.user';
export const DEFAULT_CHANNEL_ID = 'C0FAKECHN1';
export const DEFAULT_CHANNEL_NAME = 'general';

/**
 * Slack message timestamps double as message ids, so they must never repeat and
 * must sort in posting order even when several posts land in the same microsecond.
 */
export function createTsClock(): () => string {
  let lastMicros = 0;
  return () => {
    lastMicros = Math.max(Date.now() * 1000, lastMicros + 1);
    const seconds = Math.floor(lastMicros / 1_000_000);
    const micros = lastMicros % 1_000_000;
    return `${seconds}.${String(micros).padStart(6, '0')}`;
  };
}

export function createIdSequence(prefix: string): () => string {
  let n = 0;
  return () => {
    n += 1;
    return `${prefix}${String(n).padStart(10, '0')}`;
  };
}
