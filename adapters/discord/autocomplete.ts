import type { Choice } from '../../commands/core/index.js';
import { clip, plainText } from './escape.js';

/** An autocomplete choice as Discord takes it. */
export interface DiscordChoice {
  name: string;
  value: string;
}

/** Discord's limits for an autocomplete answer. */
export const MAX_CHOICES = 25;
const MAX_CHOICE_TEXT = 100;

/**
 * The core's suggestions within Discord's limits, in the core's order: labels are clipped, but a
 * value too long is left out, since a cut value would fill in something else than what was shown.
 */
export function discordChoices(choices: readonly Choice[]): DiscordChoice[] {
  const out: DiscordChoice[] = [];
  for (const c of choices) {
    if (c.value.length > MAX_CHOICE_TEXT) continue;
    out.push({ name: clip(plainText(c.label), MAX_CHOICE_TEXT), value: c.value });
    if (out.length === MAX_CHOICES) break;
  }
  return out;
}
