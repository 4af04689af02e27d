import { formatSlot } from '../src/digest/schedule.js';
import { inline, ref } from '../src/reply/inline.js';
import type { Action, TableReply } from '../src/reply/model.js';
import { namesSummary, nextRunText } from '../src/digest/text.js';
import { withDigests } from './kit/digest.js';
import { defineCommand } from './kit/spec.js';

export default defineCommand({
  name: 'digest-list',
  order: 42,
  words: ['digest', 'list'],
  aliases: [['digest', 'ls']],
  summary: 'The digests of this channel',
  examples: ['digest list'],
  group: 'digest',
  preconditions: ['digests'],
  options: [],
  handler: (ctx) =>
    withDigests(ctx, async (service) => {
      const { caller } = ctx;
      const digests = await service.store.listChannel(caller.platform, caller.channelId);
      if (digests.length === 0) {
        return {
          kind: 'text',
          title: 'No digests in this channel yet',
          text: inline`Add one with ${ref('digest-add', { names: ['bitcoin', 'ethereum', 'binance'], schedule: 'weekdays', at: '09:00', tz: 'Europe/Berlin' })}`,
        };
      }
      const now = ctx.now();
      const failing = digests.find((d) => d.state === 'failing');
      const table: TableReply = {
        kind: 'table',
        title: `Digests in this channel (${digests.length} of at most ${service.limits.maxPerChannel})`,
        note: failing
          ? inline`Failing digests are not sent until resumed: fix the cause, then ${ref('digest-resume', { id: String(failing.id) })}.`
          : 'Next run in each digest’s own timezone.',
        columns: [
          { key: 'id', label: '#', align: 'right' },
          { key: 'watch', label: 'Watchlist' },
          { key: 'schedule', label: 'Schedule' },
          { key: 'next', label: 'Next run' },
          { key: 'last', label: 'Last sent' },
          { key: 'state', label: 'State' },
        ],
        rows: digests.map((d) => ({
          id: String(d.id),
          watch: namesSummary(d.entities),
          schedule: `${d.scheduleLabel} ${d.timezone}`,
          next: nextRunText(d, now),
          last: d.lastSlot === null ? 'never' : formatSlot(d.lastSlot, d.timezone),
          state:
            d.state === 'failing'
              ? `failing: ${d.stateReason ?? 'unknown reason'}`
              : d.state === 'active' && d.lastError
                ? `active (last attempt failed: ${d.lastError})`
                : d.state,
        })),
        actions: digests.map(
          (d): Action => ({ label: `Preview #${d.id}`, run: { command: 'digest-preview', args: { id: String(d.id) } } }),
        ),
      };
      return table;
    }),
});
