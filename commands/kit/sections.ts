import type { EntityRef, ProjectSection } from '../../src/api/domain.js';
import type { Action } from '../../src/reply/model.js';
import { targetRef } from './target.js';

/** The words a person types, and the upstream's name for each. */
export const SECTION_WORDS = ['security', 'financial', 'operational', 'reputational', 'regulatory', 'voice'] as const;
export type SectionWord = (typeof SECTION_WORDS)[number];
export const SECTION_ALIASES: Readonly<Record<string, SectionWord>> = {
  proof_of_voice: 'voice',
  pov: 'voice',
  'proof-of-voice': 'voice',
  reputation: 'reputational',
  regulation: 'regulatory',
};

export const UPSTREAM: Record<SectionWord, ProjectSection> = {
  security: 'security',
  financial: 'financial',
  operational: 'operational',
  reputational: 'reputational',
  regulatory: 'regulatory',
  voice: 'proof_of_voice',
};

export const SECTION_TITLE: Record<SectionWord, string> = {
  security: 'Security',
  financial: 'Financial',
  operational: 'Operational',
  reputational: 'Reputational',
  regulatory: 'Regulatory',
  voice: 'Proof of Voice',
};

/** The other sections and the project's card, one click away. */
export function sectionActions(entity: EntityRef, current?: SectionWord): Action[] {
  const name = targetRef('project', entity.slug);
  const actions: Action[] = SECTION_WORDS.filter((s) => s !== current).map((s) => ({
    label: SECTION_TITLE[s],
    run: { command: 'section', args: { name, section: s } },
  }));
  if (current) actions.push({ label: 'Score card', run: { command: 'project', args: { name } } });
  return actions;
}

/** An exchange's sections as a person types them; `assets` is its listed assets, a command of its own. */
export const EXCHANGE_SECTION_WORDS = ['transparency', 'security', 'solvency', 'dashboard', 'assets'] as const;
export type ExchangeSectionWord = (typeof EXCHANGE_SECTION_WORDS)[number];

export const EXCHANGE_SECTION_TITLE: Record<ExchangeSectionWord, string> = {
  transparency: 'Transparency',
  security: 'Security',
  solvency: 'Solvency',
  dashboard: 'Dashboard',
  assets: 'Listed assets',
};

/** Every word the section choice takes, projects' and exchanges', once each. */
export const ALL_SECTION_WORDS: readonly string[] = [...new Set<string>([...SECTION_WORDS, ...EXCHANGE_SECTION_WORDS])];

export const isProjectSection = (word: string): word is SectionWord => (SECTION_WORDS as readonly string[]).includes(word);
export const isExchangeSection = (word: string): word is ExchangeSectionWord =>
  (EXCHANGE_SECTION_WORDS as readonly string[]).includes(word);

/**
 * The other sections of an exchange, its listed assets and its card, one click away; `offered`
 * leaves out what the configured source cannot answer at all (the dashboard and the assets need REST).
 */
export function exchangeSectionActions(
  entity: EntityRef,
  current?: ExchangeSectionWord,
  offered: (s: ExchangeSectionWord) => boolean = () => true,
): Action[] {
  const name = targetRef('exchange', entity.slug);
  const actions: Action[] = EXCHANGE_SECTION_WORDS.filter((s) => s !== current && offered(s)).map(
    (s): Action => ({
      label: EXCHANGE_SECTION_TITLE[s],
      run: s === 'assets' ? { command: 'assets', args: { name } } : { command: 'section', args: { name, section: s } },
    }),
  );
  if (current) actions.push({ label: 'Score card', run: { command: 'exchange', args: { name } } });
  return actions;
}

/** Which of an exchange's sections a source can show at all: the dashboard and the assets are REST's alone. */
export const exchangeSectionsOf =
  (supports: (method: 'dashboard' | 'listedAssets', kind: 'exchange') => boolean) =>
  (s: ExchangeSectionWord): boolean =>
    s === 'dashboard' ? supports('dashboard', 'exchange') : s === 'assets' ? supports('listedAssets', 'exchange') : true;
