import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SealedInstallationStore } from '../../../adapters/slack/oauth/installation-store.js';
import { openPglite, type Db } from '../../../src/db/connection.js';
import { migrate } from '../../../src/db/migrations.js';
import { DigestStore } from '../../../src/digest/store.js';
import { buildSchedule } from '../../../src/digest/schedule.js';
import { createSealer, SealError } from '../../../src/secrets/seal.js';
import { UNINSTALLED_REASON } from '../../../src/workspace.js';

/**
 * The sealed installation store on its own: tokens never stored in the clear, a sealed value that
 * does not open with another key or in another row, and Enterprise Grid lookups (a workspace's own
 * installation first, else its organisation's organisation-wide one).
 */

let db: Db;
const key = randomBytes(32);
const store = () => new SealedInstallationStore(db, createSealer(key));

const teamInstall = (teamId: string, token: string, enterpriseId?: string): Installation => ({
  team: { id: teamId, name: teamId },
  enterprise: enterpriseId ? { id: enterpriseId, name: enterpriseId } : undefined,
  user: { id: 'U0INSTALLR', token: undefined, scopes: undefined },
  bot: { id: `B${teamId}`, userId: `U${teamId}`, token, scopes: ['commands'] },
  isEnterpriseInstall: false,
  authVersion: 'v2',
});

const orgInstall = (enterpriseId: string, token: string): Installation<'v2', true> => ({
  team: undefined,
  enterprise: { id: enterpriseId, name: enterpriseId },
  user: { id: 'U0INSTALLR', token: undefined, scopes: undefined },
  bot: { id: `B${enterpriseId}`, userId: `U${enterpriseId}`, token, scopes: ['commands'] },
  isEnterpriseInstall: true,
  authVersion: 'v2',
});

beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
});
afterAll(async () => {
  await db.close();
});

describe('sealing', () => {
  it('opens only with the same key and the same context, and refuses an altered value', () => {
    const sealer = createSealer(key);
    const sealed = sealer.seal('xoxb-secret-token', 'T:T1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('xoxb');
    expect(sealer.open(sealed, 'T:T1')).toBe('xoxb-secret-token');
    expect(sealer.seal('xoxb-secret-token', 'T:T1')).not.toBe(sealed);
    expect(() => createSealer(randomBytes(32)).open(sealed, 'T:T1')).toThrow(SealError);
    expect(() => sealer.open(sealed, 'T:T2')).toThrow(SealError);
    const [v, nonce, tag, text] = sealed.split('.');
    const flipped = `${text![0] === 'A' ? 'B' : 'A'}${text!.slice(1)}`;
    expect(() => sealer.open([v, nonce, tag, flipped].join('.'), 'T:T1')).toThrow(SealError);
    expect(() => sealer.open('plain text', 'T:T1')).toThrow(SealError);
    expect(() => createSealer(randomBytes(16))).toThrow(SealError);
  });
});

describe('installations', () => {
  it('stores tokens sealed, replaces a reinstall, and deletes on removal', async () => {
    const s = store();
    await s.storeInstallation(teamInstall('T0ONE', 'xoxb-one-first'));
    await s.storeInstallation(teamInstall('T0ONE', 'xoxb-one-second'));
    const rows = await db.query<{ sealed: string }>("SELECT sealed FROM slack_installations WHERE installation_key = 'T:T0ONE'");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed).not.toContain('xoxb');
    expect((await s.fetchInstallation({ teamId: 'T0ONE', isEnterpriseInstall: false, enterpriseId: undefined })).bot?.token).toBe(
      'xoxb-one-second',
    );
    expect(await s.remove({ teamId: 'T0ONE' })).toBe(true);
    expect(await s.remove({ teamId: 'T0ONE' })).toBe(false);
    await expect(s.fetchInstallation({ teamId: 'T0ONE', isEnterpriseInstall: false, enterpriseId: undefined })).rejects.toThrow(
      /not installed in Slack workspace T0ONE/,
    );
  });

  it("answers a Grid workspace with its own installation first, else its organisation's organisation-wide one", async () => {
    const s = store();
    await s.storeInstallation(orgInstall('E0ORG', 'xoxb-org-wide'));
    await s.storeInstallation(teamInstall('T0OWN', 'xoxb-own', 'E0ORG'));
    expect((await s.find({ teamId: 'T0OWN', enterpriseId: 'E0ORG' }))?.bot?.token).toBe('xoxb-own');
    expect((await s.find({ teamId: 'T0OTHER', enterpriseId: 'E0ORG' }))?.bot?.token).toBe('xoxb-org-wide');
    expect((await s.find({ teamId: 'T0OTHER', enterpriseId: 'E0ORG', isEnterpriseInstall: true }))?.bot?.token).toBe('xoxb-org-wide');
    // A workspace outside any organisation gets nothing from one.
    expect(await s.find({ teamId: 'T0OTHER' })).toBeNull();
  });

  it('checks the key at start: the first start seals a check value, a later one with another key is refused', async () => {
    await store().checkKey();
    await store().checkKey();
    await expect(new SealedInstallationStore(db, createSealer(randomBytes(32))).checkKey()).rejects.toThrow(
      /^POLBOT_ENCRYPTION_KEY: it is not the key/,
    );
  });

  it("pauses an organisation's digests when its organisation-wide install is removed, and only the ones that were running", async () => {
    const digests = new DigestStore(db);
    const schedule = buildSchedule({ kind: 'daily', time: '09:00', timezone: 'UTC' });
    if (!schedule.ok) throw new Error(schedule.message);
    const add = async (channelId: string, workspaceId: string, enterpriseId: string | null) => {
      const made = await digests.create(
        {
          platform: 'slack',
          channelId,
          workspaceId,
          enterpriseId,
          entities: [{ kind: 'exchange', slug: 'kraken', name: 'Kraken' }],
          schedule: schedule.value,
          createdBy: 'U1',
        },
        Date.now(),
        10,
      );
      if (!made.ok) throw new Error('not created');
      return made.digest;
    };
    const inOrg = await add('C0ORG1', 'T0A', 'E0GRID');
    const inOrgPausedByHand = await add('C0ORG2', 'T0B', 'E0GRID');
    await digests.pause(inOrgPausedByHand.id, 'slack', 'C0ORG2', Date.now());
    const elsewhere = await add('C0ELSE', 'T0C', null);

    const paused = await digests.pauseWorkspace('slack', { teamId: null, enterpriseId: 'E0GRID', orgWide: true }, Date.now());
    expect(paused.map((d) => d.id)).toEqual([inOrg.id]);
    expect((await digests.get(inOrg.id))?.stateReason).toBe(UNINSTALLED_REASON);
    expect((await digests.get(elsewhere.id))?.state).toBe('active');

    const resumed = await digests.resumeWorkspace('slack', { teamId: null, enterpriseId: 'E0GRID', orgWide: true }, Date.now());
    expect(resumed.map((d) => d.id)).toEqual([inOrg.id]);
    expect((await digests.get(inOrg.id))?.nextSlot).not.toBeNull();
    expect((await digests.get(inOrgPausedByHand.id))?.state).toBe('paused');
  });
});
