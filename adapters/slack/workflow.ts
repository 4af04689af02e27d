import type { App } from '@slack/bolt';
import type { RiskScore } from '../../commands/core/index.js';
import type { Logger } from '../../src/log.js';

/**
 * A custom step for Slack's Workflow Builder, "Get risk score" (`get_risk_score`, declared in the
 * manifest's `functions`): its input `name` resolved as a person's would be, its outputs the PoL (a
 * probability, 0..1), the rating, a one-line summary, the slug and the kind. A name that could be
 * several or none fails the step with the words a person would get, its candidates named: a
 * workflow never goes on with a guess.
 */
export const RISK_SCORE_STEP = 'get_risk_score';

export function registerWorkflowStep(app: App, o: { score(name: string): Promise<RiskScore>; log: Logger }): void {
  app.function(RISK_SCORE_STEP, async ({ inputs, complete, fail }) => {
    const name = typeof inputs.name === 'string' ? inputs.name : '';
    let result: RiskScore;
    try {
      result = await o.score(name);
    } catch (err) {
      o.log.error({ err }, 'slack: the risk score step failed');
      result = { ok: false, message: 'Something went wrong on our side. It has been logged; run the workflow again.' };
    }
    if (result.ok) {
      await complete({
        outputs: { pol: result.pol, rating: result.rating, summary: result.summary, slug: result.slug, kind: result.kind },
      });
      o.log.info({ step: RISK_SCORE_STEP, kind: result.kind }, 'slack: workflow step completed');
    } else {
      await fail({ error: result.message });
      o.log.info({ step: RISK_SCORE_STEP }, 'slack: workflow step refused its input');
    }
  });
}
