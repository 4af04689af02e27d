/**
 * A Slack workspace, as digests, alert rules and installations know it. With one bot token
 * (SLACK_BOT_TOKEN) nothing is keyed by it; installed through OAuth, every post goes out with the
 * token of the workspace its channel is in.
 */
export interface WorkspaceRef {
  teamId: string | null;
  /** The Enterprise Grid organisation, when the workspace is in one. */
  enterpriseId: string | null;
}

/**
 * What an installation covers: one workspace, or every workspace of an organisation when it was
 * installed organisation-wide.
 */
export interface InstallScope extends WorkspaceRef {
  orgWide: boolean;
}

/**
 * SQL matching the rows of `scope` on a table with `workspace_id` and `enterprise_id`, its
 * parameters numbered from `first`.
 */
export function scopeCondition(scope: InstallScope, first: number): { sql: string; params: unknown[] } {
  if (scope.orgWide && scope.enterpriseId) return { sql: `enterprise_id = $${first}`, params: [scope.enterpriseId] };
  return { sql: `workspace_id = $${first}`, params: [scope.teamId] };
}

/** Why digests and alert rules of an uninstalled workspace are paused; a reinstall resumes exactly these. */
export const UNINSTALLED_REASON = 'polbot was removed from this workspace; adding it again resumes this';
