/** The fake Slack in its own process: its parsing of 500 uploads must not count against polbot's acks. */
import { startFakeSlack } from '../../test/fakes/slack/index.js';
import { serveParent } from './child.js';

const fake = await startFakeSlack({});

serveParent(
  { url: fake.url, origin: fake.origin, botToken: fake.botToken },
  (msg) => {
    switch (msg.op) {
      case 'responseUrl':
        return { url: fake.responseUrl(msg.key as string) };
      case 'counts': {
        const calls = fake.calls();
        const byMethod: Record<string, number> = {};
        for (const c of calls) byMethod[c.method] = (byMethod[c.method] ?? 0) + 1;
        return { byMethod };
      }
      case 'arrivals':
        // When each call of one method arrived (epoch ms): how long a burst's answers took.
        return {
          at: fake
            .calls()
            .filter((c) => c.method === msg.method && c.status === 200)
            .map((c) => c.at.getTime()),
        };
      case 'clear':
        fake.clear();
        return {};
      default:
        throw new Error(`unknown op ${msg.op}`);
    }
  },
  () => fake.close(),
);
