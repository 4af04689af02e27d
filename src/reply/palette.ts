/**
 * One colour scale for ratings, shared by every surface: the Discord embed colour, the Slack
 * marker and the console's colour all come from the same band. A reply without a rating (a list,
 * help, a card whose overall PoL the source cannot give) is neutral grey, never a platform's
 * default colour, which would read as a rating.
 */

export type Band = 'good' | 'fair' | 'poor' | 'neutral';

export interface BandStyle {
  /** 0xRRGGBB, as Discord takes it. */
  colour: number;
  /** A Slack emoji code. */
  emoji: string;
  /** A terminal colour name. */
  tone: 'green' | 'yellow' | 'red' | 'cyan';
  /** In words, for alt text and screen readers. */
  words: string;
}

export const BANDS: Readonly<Record<Band, BandStyle>> = {
  good: { colour: 0x2e9d5b, emoji: ':large_green_circle:', tone: 'green', words: 'A band (strong)' },
  fair: { colour: 0xe0a526, emoji: ':large_yellow_circle:', tone: 'yellow', words: 'B band (moderate)' },
  poor: { colour: 0xd64541, emoji: ':red_circle:', tone: 'red', words: 'C or D band (weak)' },
  neutral: { colour: 0x7a8591, emoji: ':white_circle:', tone: 'cyan', words: 'no rating' },
};

/** AAA to A is good, BBB to B fair, CCC to D poor; anything else has no band. */
export function bandOf(rating: string | undefined): Band {
  const r = rating?.trim().toUpperCase() ?? '';
  if (/^A{1,3}$/.test(r)) return 'good';
  if (/^B{1,3}$/.test(r)) return 'fair';
  if (/^(C{1,3}|D)$/.test(r)) return 'poor';
  return 'neutral';
}

export const styleOf = (rating: string | undefined): BandStyle => BANDS[bandOf(rating)];
