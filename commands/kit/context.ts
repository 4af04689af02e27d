import type { Platform } from '../../src/workspace.js';
import type { CachedDataSource } from '../../src/api/cache/cached-source.js';
import type { EntityKind, EntityRef } from '../../src/api/domain.js';
import type { ChartRenderer } from '../../src/charts/index.js';
import type { Group } from '../../src/alerts/escalation.js';
import type { AlertService } from '../../src/alerts/service.js';
import type { DigestService } from '../../src/digest/service.js';
import type { ListedReadings } from '../../src/exposure/readings.js';
import type { Resolver } from '../../src/resolve/resolver.js';

/** Who asked, where: digests belong to a channel and only some people may manage them. */
export interface Caller {
  platform: Platform;
  userId: string;
  channelId: string;
  /** Whether this person may add, remove, pause or resume digests and alert rules here. */
  canManageDigests: boolean;
  /** How the person is shown when an alert says who acknowledged or resolved it. */
  userName?: string;
  /** The Slack workspace or Discord server, for limits on alert rules across its channels. */
  workspaceId?: string;
  /** The Slack Enterprise Grid organisation of the workspace, if any: with the workspace, whose token posts there. */
  enterpriseId?: string;
  /**
   * False where polbot can answer the person but not post to the channel by itself: a Discord
   * server it is not in, reached through a person's own install, or their DMs with others.
   */
  canPost?: boolean;
  /** Who may manage digests and alert rules where the person is, in words, when the platform decides it (`the group's administrators`). */
  whoManages?: string;
  /** The groups of people polbot may call on where the person is; absent where there are none. */
  groups?: GroupDirectory;
}

/** What a mention came to: a group (with anything the person should know of it), or why there is none. */
export type FoundGroup = { ok: true; group: Group; note?: string } | { ok: false; message: string };

/**
 * The groups of people a platform can notify at once (a user group, a role), as its adapter finds
 * them. A mention arrives as the person's platform delivered it (its own markup, or a typed
 * `@name`); only the adapter can read it, and it says plainly when there is no such group.
 */
export interface GroupDirectory {
  find(mention: string): Promise<FoundGroup>;
}

/** Who asked when no caller is given: the local terminal, which has no channel to deliver digests to. */
export const CONSOLE_CALLER: Caller = { platform: 'console', userId: 'console', channelId: 'console', canManageDigests: true };

/** What a command handler may use; it does no I/O except through these. */
export interface CommandContext {
  source: CachedDataSource;
  resolver: Resolver;
  charts: ChartRenderer;
  /** Epoch ms; injectable so tests and digests control time. */
  now: () => number;
  /** Scheduled digests; absent where no digest store is configured. */
  digests?: DigestService;
  /** Alert rules and incidents; absent where alerts cannot be delivered. */
  alerts?: AlertService;
  /** polbot's own readings of exchanges' listed assets (`exposure`): in the database, or this process's memory. */
  listed: ListedReadings;
}

/**
 * What an option's completion may use. Suggestions answer while the person types (chat platforms
 * wait 3 s for them), so they come from what is at hand and never wait on the upstream: what is
 * missing is fetched in the background, for a later keystroke.
 */
export interface CompletionContext {
  /** For what the cache holds (`source.cache.peek`) and fetches started in the background, never awaited. */
  source: CachedDataSource;
  /** Best matches from the entity lists at hand. */
  suggest(prefix: string, limit: number): EntityRef[];
  /** Whether the source can list entities of `kind` at all (the tool server alone lists no exchanges). */
  canList(kind: EntityKind): boolean;
  /** Reloads the list of `kind` in the background, at most once a minute however fast people type. */
  refreshList(kind: EntityKind): void;
  /** What the alert service is configured with (the operator's destinations outside chat); absent where alerts cannot be delivered. */
  readonly alerts?: Pick<AlertService, 'destinations'> | undefined;
}
