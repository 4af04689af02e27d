import { createHash } from 'node:crypto';
import oauth, { InvalidStateError, type InstallURLOptions, type StateStore } from '@slack/oauth';

// A CommonJS re-export that Node's ESM loader cannot see as a named export (it is found only through the default export).
const { ClearStateStore } = oauth;
import type { Queryable } from '../../../src/db/connection.js';

/** How long an install link stays good: Slack's own default for the state. */
export const STATE_TTL_SECONDS = 600;

/**
 * Bolt's signed state (ClearStateStore: SLACK_STATE_SECRET, ten minutes), used once. The signature
 * and age are checked by Bolt's store; the database remembers each state that completed a
 * callback, so a replayed callback is refused on whichever replica it reaches. No state is kept
 * before that, so any replica can start an install and any other finish it.
 */
export class OneTimeStateStore implements StateStore {
  private readonly signed: InstanceType<typeof ClearStateStore>;

  constructor(
    private readonly db: Queryable,
    stateSecret: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.signed = new ClearStateStore(stateSecret, STATE_TTL_SECONDS);
  }

  generateStateParam(installOptions: InstallURLOptions, now: Date): Promise<string> {
    return this.signed.generateStateParam(installOptions, now);
  }

  async verifyStateParam(now: Date, state: string): Promise<InstallURLOptions> {
    const options = await this.signed.verifyStateParam(now, state);
    const hash = createHash('sha256').update(state).digest('base64url');
    const at = new Date(this.clock());
    // Older than any state that could still verify: forgotten.
    await this.db.query('DELETE FROM slack_oauth_states_used WHERE used_at < $1', [
      new Date(at.getTime() - 2 * STATE_TTL_SECONDS * 1000).toISOString(),
    ]);
    const fresh = await this.db.query(
      'INSERT INTO slack_oauth_states_used (state_hash, used_at) VALUES ($1, $2) ON CONFLICT (state_hash) DO NOTHING RETURNING state_hash',
      [hash, at.toISOString()],
    );
    if (fresh.length === 0) throw new InvalidStateError('The state value was already used');
    return options;
  }
}
