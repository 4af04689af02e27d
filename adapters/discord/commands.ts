import {
  ApplicationIntegrationType,
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type SlashCommandStringOption,
} from 'discord.js';
import { CHART_KINDS, MAX_COMPARE, RANGES } from '../../commands/grammar.js';

/**
 * The Discord commands as data. They mirror the text grammar: each subcommand is one grammar
 * form, and `translate.ts` turns the chosen options back into that text for the core.
 *
 * Digest management is a separate command because Discord's `default_member_permissions`
 * gates a whole command, never a subcommand: `/pol` is for everyone, `/pol-digest` only for
 * members who can manage the server (server admins may widen that under Integrations).
 */

export const POL = 'pol';
export const POL_DIGEST = 'pol-digest';

/** Names are short; the resolver reads at most this many characters. */
export const MAX_NAME = 100;
const COMPARE_SLOTS = ['a', 'b', 'c', 'd', 'e'] as const;
export const COMPARE_OPTIONS: readonly string[] = COMPARE_SLOTS.slice(0, MAX_COMPARE);

export const TOP_LISTS = ['exchanges', 'projects'] as const;
export const DIGEST_SCHEDULES = ['daily', 'weekly'] as const;

const nameOption = (o: SlashCommandStringOption, description: string, required = true) =>
  o.setName('name').setDescription(description).setRequired(required).setAutocomplete(true).setMaxLength(MAX_NAME);

function polCommand(): SlashCommandBuilder {
  const pol = new SlashCommandBuilder()
    .setName(POL)
    .setDescription('Crypto risk: Probability of Loss, ratings, category scores and red flags')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall);

  pol.addSubcommand((s) =>
    s
      .setName('card')
      .setDescription('Score card of a project or exchange')
      .addStringOption((o) => nameOption(o, 'Project or exchange (pick from the list, or type a name)')),
  );
  pol.addSubcommand((s) =>
    s
      .setName('flags')
      .setDescription('Red flags and social-fraud signals of a project')
      .addStringOption((o) => nameOption(o, 'Project (pick from the list, or type a name)')),
  );
  pol.addSubcommand((s) =>
    s
      .setName('chart')
      .setDescription('A chart over time')
      .addStringOption((o) => nameOption(o, 'Project or exchange'))
      .addStringOption((o) =>
        o
          .setName('range')
          .setDescription('Time range (default 90 days)')
          .addChoices(...RANGES.map((r) => ({ name: r === 'all' ? 'all history' : r, value: r }))),
      )
      .addStringOption((o) =>
        o
          .setName('kind')
          .setDescription('What to chart (default PoL)')
          .addChoices(...CHART_KINDS.map((k) => ({ name: k, value: k }))),
      ),
  );
  pol.addSubcommand((s) => {
    s.setName('compare').setDescription(`Up to ${MAX_COMPARE} projects or exchanges side by side`);
    COMPARE_OPTIONS.forEach((slot, i) =>
      s.addStringOption((o) =>
        o
          .setName(slot)
          .setDescription(i < 2 ? `Project or exchange ${i + 1}` : `Project or exchange ${i + 1} (optional)`)
          .setRequired(i < 2)
          .setAutocomplete(true)
          .setMaxLength(MAX_NAME),
      ),
    );
    return s;
  });
  pol.addSubcommand((s) =>
    s
      .setName('top')
      .setDescription('Top ratings, lowest Probability of Loss first')
      .addStringOption((o) =>
        o
          .setName('list')
          .setDescription('Exchanges (default) or projects')
          .addChoices(...TOP_LISTS.map((l) => ({ name: l, value: l }))),
      ),
  );
  pol.addSubcommand((s) =>
    s
      .setName('search')
      .setDescription('Find projects and exchanges')
      .addStringOption((o) => o.setName('text').setDescription('Part of a name, ticker or slug').setRequired(true).setMaxLength(MAX_NAME)),
  );
  pol.addSubcommand((s) => s.setName('trending').setDescription('What people are looking up'));
  pol.addSubcommand((s) => s.setName('index').setDescription('Index-level PoL for projects and exchanges'));
  pol.addSubcommand((s) => s.setName('health').setDescription('Is the risk-data service up'));
  pol.addSubcommand((s) => s.setName('help').setDescription('What polbot can do'));
  return pol;
}

function digestCommand(): SlashCommandBuilder {
  const digest = new SlashCommandBuilder()
    .setName(POL_DIGEST)
    .setDescription('Scheduled watchlist digests for this channel (server managers)')
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .setContexts(InteractionContextType.Guild)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall);

  digest.addSubcommand((s) =>
    s
      .setName('add')
      .setDescription('Post a digest of a watchlist to this channel on a schedule')
      .addStringOption((o) =>
        o.setName('names').setDescription('Projects and exchanges, separated by commas').setRequired(true).setAutocomplete(true).setMaxLength(400),
      )
      .addStringOption((o) =>
        o
          .setName('schedule')
          .setDescription('How often (default daily)')
          .addChoices(...DIGEST_SCHEDULES.map((v) => ({ name: v, value: v }))),
      )
      .addStringOption((o) => o.setName('cron').setDescription('A cron expression instead of daily/weekly, e.g. 0 9 * * 1-5').setMaxLength(100))
      .addStringOption((o) => o.setName('at').setDescription('Time of day, HH:MM (24 h)').setMinLength(4).setMaxLength(5))
      .addStringOption((o) => o.setName('tz').setDescription('Time zone, e.g. Europe/Berlin (default UTC)').setAutocomplete(true).setMaxLength(64)),
  );
  digest.addSubcommand((s) => s.setName('list').setDescription('Digests of this channel'));
  for (const [name, description] of [
    ['remove', 'Delete a digest'],
    ['pause', 'Pause a digest'],
    ['resume', 'Resume a paused digest'],
    ['preview', 'Show what a digest would post now'],
  ] as const) {
    digest.addSubcommand((s) =>
      s
        .setName(name)
        .setDescription(description)
        .addStringOption((o) => o.setName('id').setDescription('Digest id (see /pol-digest list)').setRequired(true).setMaxLength(64)),
    );
  }
  return digest;
}

/** Every command polbot registers, as the JSON Discord's API takes. */
export function commandDefinitions(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return [polCommand().toJSON(), digestCommand().toJSON()];
}
