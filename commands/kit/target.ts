import type { EntityKind } from '../../src/api/domain.js';

/** What a person named: free text to resolve, or an explicit `kind:slug` (from a button or a pick). */
export interface Target {
  text: string;
  kind?: EntityKind;
  explicit?: { kind: EntityKind; slug: string };
}

const EXPLICIT = /^(project|exchange):([a-z0-9][a-z0-9_-]{0,127})$/;

/** `project:bitcoin` is what our own buttons and pickers send: an explicit choice, never re-resolved fuzzily. */
export function parseTarget(text: string, kind?: EntityKind): Target {
  const trimmed = text.trim();
  const m = EXPLICIT.exec(trimmed);
  if (m) return { text: trimmed, explicit: { kind: m[1] as EntityKind, slug: m[2]! } };
  return { text: trimmed, ...(kind ? { kind } : {}) };
}

export const isExplicit = (text: string): boolean => EXPLICIT.test(text.trim());

export function targetRef(kind: EntityKind, slug: string): string {
  return `${kind}:${slug}`;
}
