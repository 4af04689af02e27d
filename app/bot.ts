import { discordDeliverer, startDiscord, type DiscordHandle } from '../adapters/discord/index.js';
import { discordOverHttp } from '../adapters/discord/http/index.js';
import { slackDeliverer, slackRefusals, startSlack, type SlackAdapter } from '../adapters/slack/index.js';
import { telegram as telegramAdapter, type TelegramHandle } from '../adapters/telegram/index.js';
import { slackWorkspaces } from './slack-workspaces.js';
import { lateDeliverer, type Deliverer } from '../src/delivery/port.js';
import { AlertService } from '../src/alerts/service.js';
import { moveChannel } from '../src/installs/moves.js';
import { AlertStore } from '../src/alerts/store.js';
import { ListedReadingStore } from '../src/exposure/store.js';
import { Outbox } from '../src/alerts/outbox.js';
import type { DemoMove } from '../src/alerts/demo.js';
import type { EntityRef } from '../src/api/domain.js';
import { applyMove, listedProject, type Move } from '../src/sim/admin.js';
import type { Config } from './config.js';
import { createDigests, type Digests } from '../src/digest/index.js';
import type { AppLogger } from '../src/log.js';
import { createCore, withCommandText, type Core, type CoreParts } from '../commands/core/index.js';
import { coreParts } from './core.js';
import { openDatabase } from '../src/db/index.js';
import { Health, logStartupCheck } from '../src/ops/health.js';
import { createMetrics, type Metrics } from '../src/ops/metrics.js';
import { operationalRoutes, startRouteServer } from '../src/http/routes.js';

export interface Bot {
  core: Core;
  health: Health;
  metrics: Metrics;
  slack: SlackAdapter | null;
  discord: DiscordHandle | null;
  telegram: TelegramHandle | null;
  digests: Digests;
  alerts: AlertService;
  /** The port serving `/healthz` and `/metrics` (and Slack events in HTTP mode). */
  port: number | undefined;
  /** Stops taking new work, finishes what is under way (bounded), stops the scheduler, closes the database. */
  stop(): Promise<void>;
}

/**
 * Demo mode: `alert test` moves the in-process simulator, and the cache forgets what it held. A
 * listed asset moves through the rated project behind it, the one listed with the highest PoL.
 */
function demoMover(upstream: CoreParts['upstream']) {
  const sim = upstream.sim!;
  return async (entity: EntityRef, move: DemoMove): Promise<string | undefined> => {
    let said: string | undefined;
    if ('listedAsset' in move) {
      const project = listedProject(sim.store, entity.slug);
      if (!project) return 'it lists no asset the simulator can move';
      const pol = Math.min(0.95, 'pol' in move.listedAsset ? move.listedAsset.pol : project.pol + move.listedAsset.rise);
      applyMove(sim.store, { kind: 'project', slug: project.slug, pol });
      said = `listed ${project.asset} moved to ${(pol * 100).toFixed(1)}% PoL`;
    } else applyMove(sim.store, { kind: entity.kind, slug: entity.slug, ...move } as Move);
    upstream.source.cache.clear();
    return said;
  };
}

/**
 * Everything `polbot start` runs when a chat platform is configured, built here and nowhere else:
 * the core's parts, the one database, the digest and alert services that stand on both, the core
 * that is handed all of them, then the adapters. Order matters: the core and the stores are ready
 * before any adapter takes its first command.
 */
export async function startBot(config: Config, log: AppLogger): Promise<Bot> {
  const metrics = createMetrics();
  const parts = await coreParts(config, { log, metrics });
  const { upstream } = parts;
  log.scrubber.addSecrets(upstream.secrets);
  const health = new Health(upstream.source);
  void logStartupCheck(health, log);
  const routes = operationalRoutes(health, metrics);
  // Run in reverse order of start on the way down.
  const stoppers: (() => Promise<void>)[] = [() => upstream.close()];
  const stopAll = async () => {
    for (const stop of stoppers) await stop().catch((err: Error) => log.warn({ err }, 'error while stopping'));
  };

  let slack: SlackAdapter | null = null;
  let discord: DiscordHandle | null = null;
  let telegram: TelegramHandle | null = null;
  try {
    const db = await openDatabase({
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      ...(config.dataDir ? { dataDir: config.dataDir } : {}),
    });
    stoppers.unshift(() => db.close());
    // The adapters start after the stores: until then a delivery fails in a way that is retried.
    const deliverers: Deliverer[] = [];
    if (config.slack) deliverers.push(lateDeliverer('slack', () => (slack ? slackDeliverer(slack) : null)));
    if (config.discord) deliverers.push(lateDeliverer('discord', () => (discord ? discordDeliverer(discord) : null)));
    if (config.telegram) deliverers.push(lateDeliverer('telegram', () => telegram?.deliverer ?? null));
    const data = { source: upstream.source, charts: parts.charts };
    const digests = await createDigests({
      db,
      ctx: data,
      deliverers,
      log,
      scheduler: { onOutcome: (platform, outcome) => metrics.digests.inc({ platform, outcome }) },
    });
    stoppers.unshift(() => digests.stop());
    const alertStore = new AlertStore(db);
    const listed = new ListedReadingStore(db);
    const alerts = new AlertService({
      store: alertStore,
      deps: data,
      deliverers,
      complete: (reply) => withCommandText(reply, parts.registry),
      log: log.child({ component: 'alerts' }),
      listed,
      ...(upstream.sim ? { demo: demoMover(upstream) } : {}),
      ...(config.destinations.length
        ? { outbox: new Outbox({ db, destinations: config.destinations, log: log.child({ component: 'alert-destinations' }) }) }
        : {}),
    });
    stoppers.unshift(() => alerts.stop());
    const core = createCore({ ...parts, digests: digests.service, alerts, listed });
    health.register('database', async () => {
      await db.query('select 1');
      return { ok: true };
    });

    // Over HTTP, Discord's interactions arrive on the same port as the routes, so the endpoint joins them before any server starts.
    const discordHttp = config.discord?.publicKey
      ? discordOverHttp({
          core,
          discord: { ...config.discord, publicKey: config.discord.publicKey },
          log: log.child({ adapter: 'discord' }),
          metrics,
        })
      : null;
    if (discordHttp) {
      routes.push(discordHttp.route);
      stoppers.unshift(() => discordHttp.stop());
    }

    // Telegram's webhook, like Discord's endpoint, is a route on the same port.
    const telegramStart = config.telegram
      ? telegramAdapter({
          core,
          telegram: config.telegram,
          db,
          log: log.child({ adapter: 'telegram' }),
          moved: (from, to) => moveChannel(db, 'telegram', from, to),
        })
      : null;
    if (telegramStart?.route) routes.push(telegramStart.route);

    if (config.slack) {
      const slackLog = log.child({ adapter: 'slack' });
      const { oauth, workspaces } = await slackWorkspaces({
        slack: config.slack,
        db,
        digests: digests.store,
        alerts: alertStore,
        complete: core.complete,
        adapter: () => slack,
        log: slackLog,
      });
      if (oauth) routes.push(...oauth.routes);
      const started = await startSlack({
        core,
        slack: config.slack,
        http: config.http,
        log: slackLog,
        customRoutes: routes,
        digestAdmins: config.digestAdmins,
        workspaces,
        ...(oauth ? { oauth } : {}),
        onRefused: slackRefusals(metrics.registry),
      });
      slack = started;
      stoppers.unshift(() => started.stop());
      health.register('slack', () => ({ ok: true, detail: `${started.mode} mode` }));
    }
    // Without a Slack receiver serving them, the operational routes get a server of their own.
    const own = slack?.port === undefined ? await startRouteServer(routes, config.http.port, config.http.host) : null;
    if (own) stoppers.unshift(() => own.close());

    if (config.discord) {
      const started = discordHttp
        ? await discordHttp.start()
        : await startDiscord({ core, discord: config.discord, log: log.child({ adapter: 'discord' }) });
      discord = started;
      if (!discordHttp) stoppers.unshift(() => started.stop());
      health.register('discord', () => started.status());
    }

    if (telegramStart) {
      const started = await telegramStart.start();
      telegram = started;
      stoppers.unshift(() => started.stop());
      health.register('telegram', () => started.status());
    }

    // Under Discord sharding every process runs this; only one should schedule. Slack replicas
    // all may: each slot is claimed in the database.
    if (!discord || discord.primary) {
      digests.start();
      alerts.start();
    }

    let stopping: Promise<void> | null = null;
    return {
      core,
      health,
      metrics,
      slack,
      discord,
      telegram,
      digests,
      alerts,
      port: slack?.port ?? own?.port,
      stop() {
        health.stopping = true;
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
