/** Case, diacritics, punctuation and spacing folded away: "Gate.io", "gate io" and "GATE-IO" compare equal. */
export function normalize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The normalized form without spaces, for exact comparison. */
export function compact(text: string): string {
  return normalize(text).replace(/ /g, '');
}

/** Longest input the resolver considers; beyond it nothing can match and nothing is sent anywhere. */
export const MAX_QUERY_LENGTH = 100;

/** Strips control and invisible characters so they can't hide inside a name. */
export function clean(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
}
