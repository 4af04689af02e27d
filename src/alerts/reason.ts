/**
 * Why a person resolved an alert. Buyers of risk monitors judge them by their false-positive rate,
 * so every resolve says which it was, and `alert stats` counts a rule's noise from it.
 */
export const RESOLVE_REASONS = ['real', 'noise', 'duplicate', 'expected'] as const;

export type ResolveReason = (typeof RESOLVE_REASONS)[number];

/** What each reason means, where a person picks one. */
export const REASON_MEANINGS: Readonly<Record<ResolveReason, string>> = {
  real: 'A real risk that needed looking at',
  noise: 'Nothing worth an alert: a false positive',
  duplicate: 'Already handled under another alert',
  expected: 'Known or planned: nothing new',
};
