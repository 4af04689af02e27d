/**
 * What a number from the simulator's dataset must read as, worked out here from the value itself
 * and the display rules the README states, never through `src/reply/format.ts`: a test whose
 * expected text came from the formatter it checks passes a formatter that is 10× off.
 */

/** PoL (a probability) as a percent: 3 decimals below 0.1 %, 2 below 10 %, 1 from there. */
export function polText(pol: number): string {
  const pct = pol * 100;
  return `${pct.toFixed(pct < 0.1 ? 3 : pct < 10 ? 2 : 1)}%`;
}

/** A category quality score (0..100) to one decimal, without trailing zeros. */
export function scoreText(score: number): string {
  return String(Math.round(score * 10) / 10);
}

/** A PoL change in percentage points, signed with a true minus. */
export function ppText(delta: number): string {
  if (delta === 0) return '±0 pp';
  const pp = Math.abs(delta * 100);
  return `${delta > 0 ? '+' : '−'}${pp.toFixed(pp < 0.1 ? 3 : 2)} pp`;
}

/**
 * Every percentage in `text` that could be the PoL `pol` (the shown digits equal 100 × PoL at the
 * precision shown, and at least two significant digits shown). Used where a test reads a PoL out
 * of rendered text without knowing its exact place.
 */
export function showsPol(text: string, pol: number): boolean {
  for (const m of text.matchAll(/(?<![\d.])(\d+(?:\.(\d+))?)%/g)) {
    const shown = Number(m[1]);
    const decimals = m[2]?.length ?? 0;
    if (Math.abs(shown - pol * 100) <= 0.5 * 10 ** -decimals + 1e-9 && significant(m[1]!) >= 2) return true;
  }
  return false;
}

const significant = (digits: string) => digits.replace('.', '').replace(/^0+/, '').length;

/** A dollar amount with three significant digits and a K/M/B/T suffix: $1.23K, $988M, $23.5B. */
export function usdText(amount: number): string {
  const steps: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ];
  const [size, suffix] = steps.find(([s]) => Math.abs(amount) >= s) ?? [1, ''];
  return `${amount < 0 ? '−' : ''}$${Number((Math.abs(amount) / size).toPrecision(3))}${suffix}`;
}

/** A whole count with thousands separators. */
export function countText(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Numbers in a reply that no upstream answer could make right: Infinity, NaN, exponent notation,
 * and any PoL (the card's headline, a table's PoL column, a field labelled PoL) that is a percent
 * outside 0..100. Other percents may pass 100 (reserves coverage, changes), so only PoL is bounded.
 */
export function brokenNumbers(reply: unknown): string[] {
  const found: string[] = [];
  JSON.stringify(reply, (key, value: unknown) => {
    if (key === 'png' || key === 'command') return undefined;
    if (typeof value === 'string' && /Infinity|NaN|\de[+-]\d/.test(value)) found.push(value);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const o = value as Record<string, unknown>;
      const polTexts = [
        ...(typeof o.label === 'string' && /\bPoL\b|Probability of Loss/.test(o.label) && typeof o.value === 'string' ? [o.value] : []),
        ...(typeof o.pol === 'string' ? [o.pol] : []),
      ];
      for (const text of polTexts) {
        const m = /^([−-]?)([\d.]+)%/.exec(text);
        if (m && (m[1] || Number(m[2]) > 100)) found.push(`PoL ${text}`);
      }
    }
    return value;
  });
  return found;
}
