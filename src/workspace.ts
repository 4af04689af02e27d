/**
 * Where polbot posts, as digests, alert rules and installations know it: the chat platform (named
 * by its adapter; the core never branches on it), the channel, and the workspace whose installation
 * posts there.
 */
export type Platform = 'slack' | 'discord' | 'telegram' | 'console';

/**
 * A workspace (a Slack team, a Discord server) as the stores key it. With one bot token nothing is
 * keyed by it; installed through OAuth, every post goes out with the token of the workspace its
 * channel is in.
 */
export interface WorkspaceRef {
  teamId: string | null;
  /** The organisation the workspace belongs to (an Enterprise Grid), when it is in one. */
  enterpriseId: string | null;
}

/**
 * What an installation covers: one workspace, or every workspace of an organisation when it was
 * installed organisation-wide.
 */
export interface InstallScope extends WorkspaceRef {
  orgWide: boolean;
}

/** The workspace whose installation posts for a stored digest or rule. */
export const workspaceOf = (row: { workspaceId: string | null; enterpriseId: string | null }): WorkspaceRef => ({
  teamId: row.workspaceId,
  enterpriseId: row.enterpriseId,
});

/** Why digests and alert rules of an uninstalled workspace are paused; a reinstall resumes exactly these. */
export const UNINSTALLED_REASON = 'polbot was removed from this workspace; adding it again resumes this';
