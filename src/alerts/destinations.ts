/**
 * Where alerts go outside chat, named by the operator in the environment (POLBOT_DESTINATIONS) and
 * never typed into chat: a rule says `notify oncall`, and only names configured here are accepted.
 */
export type Destination =
  | { name: string; kind: 'pagerduty'; routingKey: string; eventsUrl: string }
  | { name: string; kind: 'webhook'; url: string; secret: string };

/** PagerDuty's Events API v2; PAGERDUTY_EVENTS_URL points it elsewhere (a proxy, tests). */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** The environment variable holding a webhook destination's signing secret. */
export const secretVariable = (name: string): string => `POLBOT_WEBHOOK_SECRET_${name.toUpperCase().replace(/-/g, '_')}`;

/**
 * Reads `name=pagerduty:<routing key>,name=webhook:<url>`; every mistake is one line naming the
 * variable, and a secret is never repeated in it.
 */
export function parseDestinations(
  spec: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  eventsUrl = PAGERDUTY_EVENTS_URL,
): { ok: true; destinations: Destination[] } | { ok: false; message: string } {
  const destinations: Destination[] = [];
  const fail = (message: string) => ({ ok: false as const, message: `POLBOT_DESTINATIONS: ${message}` });
  for (const entry of (spec ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([^=]+)=(pagerduty|webhook):(.+)$/.exec(entry);
    if (!m) return fail(`'${entry.split('=')[0]}=…' must read name=pagerduty:<routing key> or name=webhook:<https url>`);
    const name = m[1]!.trim();
    const kind = m[2] as Destination['kind'];
    const target = m[3]!.trim();
    if (!NAME.test(name)) return fail(`'${name.slice(0, 40)}' is not a destination name: lowercase letters, digits, - and _, up to 32`);
    if (destinations.some((d) => d.name === name)) return fail(`'${name}' is named twice`);
    if (kind === 'pagerduty') {
      // PagerDuty refuses any other length; saying so at start-up beats a refused page later.
      if (!/^[A-Za-z0-9]{32}$/.test(target))
        return fail(`the routing key of '${name}' must be the 32 characters of an Events API v2 integration key`);
      destinations.push({ name, kind, routingKey: target, eventsUrl });
      continue;
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return fail(`the URL of '${name}' is not a URL`);
    }
    // A signed event still reveals what it says to anyone on the path: https, except on this machine.
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return fail(`the URL of '${name}' must be https`);
    const variable = secretVariable(name);
    const secret = env[variable]?.trim();
    if (!secret) return { ok: false, message: `${variable}: required for the webhook destination '${name}' (a long random string)` };
    if (secret.length < 16) return { ok: false, message: `${variable}: must be at least 16 characters` };
    destinations.push({ name, kind, url: url.toString(), secret });
  }
  return { ok: true, destinations };
}
