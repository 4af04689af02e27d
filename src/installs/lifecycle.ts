import type { AlertRule, AlertStore } from '../alerts/store.js';
import type { Digest, DigestStore } from '../digest/store.js';
import type { Reply } from '../reply/model.js';
import type { InstallScope, Platform } from '../workspace.js';

/** What came back to one channel when polbot was added to its workspace again. */
export interface ChannelReturn {
  channelId: string;
  digests: Digest[];
  alerts: AlertRule[];
}

/**
 * What happens to a workspace's digests and alert rules when polbot is removed from it (paused,
 * never deleted) and added again (those same ones resume; ones someone paused on purpose stay
 * paused). The platform whose installs come and go per workspace says so by making one.
 */
export class WorkspaceLifecycle {
  constructor(
    private readonly platform: Platform,
    private readonly digests: DigestStore,
    private readonly alerts: AlertStore,
    private readonly clock: () => number = Date.now,
  ) {}

  async removed(scope: InstallScope): Promise<{ digests: number; alerts: number }> {
    const [digests, alerts] = await Promise.all([
      this.digests.pauseWorkspace(this.platform, scope, this.clock()),
      this.alerts.pauseWorkspace(this.platform, scope),
    ]);
    return { digests: digests.length, alerts: alerts.length };
  }

  /** Resumes what the removal paused; returns it per channel, to say so there. */
  async returned(scope: InstallScope): Promise<ChannelReturn[]> {
    const now = this.clock();
    const [digests, alerts] = await Promise.all([
      this.digests.resumeWorkspace(this.platform, scope, now),
      this.alerts.resumeWorkspace(this.platform, scope, now),
    ]);
    const byChannel = new Map<string, ChannelReturn>();
    const of = (channelId: string) =>
      byChannel.get(channelId) ?? byChannel.set(channelId, { channelId, digests: [], alerts: [] }).get(channelId)!;
    for (const d of digests) of(d.channelId).digests.push(d);
    for (const r of alerts) of(r.channelId).alerts.push(r);
    return [...byChannel.values()];
  }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The message a channel gets when what it had runs again after a reinstall. */
export function backNotice(back: ChannelReturn): Reply {
  const parts = [
    back.digests.length ? plural(back.digests.length, 'digest', 'digests') : null,
    back.alerts.length ? plural(back.alerts.length, 'alert rule', 'alert rules') : null,
  ].filter((p): p is string => p !== null);
  const n = back.digests.length + back.alerts.length;
  return {
    kind: 'text',
    audience: 'channel',
    title: '👋 polbot is back in this workspace',
    text: [
      `It was removed, and has been added again: this channel's ${parts.join(' and ')} ${n === 1 ? 'runs' : 'run'} again, as before. See them with `,
      ...(back.digests.length ? [{ ref: { command: 'digest-list' } }] : []),
      ...(back.digests.length && back.alerts.length ? [' and '] : []),
      ...(back.alerts.length ? [{ ref: { command: 'alert-list' } }] : []),
      '.',
    ],
  };
}
