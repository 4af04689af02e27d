import { parseCondition, type Condition } from '../../src/alerts/condition.js';
import type { AlertStore } from '../../src/alerts/store.js';
import type { EntityRef } from '../../src/api/domain.js';

/** A rule a benchmark checks: created through the real store, as `alert add` would, or an error. */
export interface BenchRule {
  text: string;
  entities: EntityRef[];
  channelId: string;
  workspaceId: string;
  everySec: number;
}

/** Adds the rule (a Slack channel's, checked every `everySec`, cooling down an hour), with room for `total` rules; returns its condition. */
export async function addBenchRule(store: AlertStore, rule: BenchRule, now: number, total: number): Promise<Condition> {
  const parsed = parseCondition(
    rule.text,
    rule.entities.map((e) => e.kind),
  );
  if (!parsed.ok) throw new Error(`'${rule.text}': ${parsed.message}`);
  const created = await store.create(
    {
      platform: 'slack',
      workspaceId: rule.workspaceId,
      channelId: rule.channelId,
      entities: rule.entities,
      condition: parsed.condition,
      conditionText: rule.text,
      everySec: rule.everySec,
      cooldownSec: 3600,
      createdBy: 'U0',
    },
    now,
    { perChannel: total, perWorkspace: total },
  );
  if (!created.ok) throw new Error(`a rule on ${rule.entities[0]?.slug} was refused: ${created.reason}`);
  return parsed.condition;
}
