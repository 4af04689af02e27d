import type { EntityRef, ProjectSection } from '../../src/api/domain.js';
import type { Action } from '../../src/reply/model.js';
import { targetRef } from './target.js';

/** The words a person types, and the upstream's name for each. */
export const SECTION_WORDS = ['security', 'financial', 'operational', 'reputational', 'regulatory', 'voice'] as const;
export type SectionWord = (typeof SECTION_WORDS)[number];
export const SECTION_ALIASES: Readonly<Record<string, SectionWord>> = { proof_of_voice: 'voice', pov: 'voice', 'proof-of-voice': 'voice', reputation: 'reputational', regulation: 'regulatory' };

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
  const actions: Action[] = SECTION_WORDS.filter((s) => s !== current).map((s) => ({ label: SECTION_TITLE[s], run: { command: 'section', args: { name, section: s } } }));
  if (current) actions.push({ label: 'Score card', run: { command: 'project', args: { name } } });
  return actions;
}
