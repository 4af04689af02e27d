import type { InstallScope } from '../workspace.js';

/**
 * SQL matching the rows of `scope` on a table with `workspace_id` and `enterprise_id`, its
 * parameters numbered from `first`.
 */
export function scopeCondition(scope: InstallScope, first: number): { sql: string; params: unknown[] } {
  if (scope.orgWide && scope.enterpriseId) return { sql: `enterprise_id = $${first}`, params: [scope.enterpriseId] };
  return { sql: `workspace_id = $${first}`, params: [scope.teamId] };
}
