// Small string helpers shared by validation and evaluation.

/**
 * Length in Unicode code points, the unit every "characters" limit of the contract uses
 * (an emoji counts 1, where String#length would count its two UTF-16 units). Stops
 * counting once past `cap` so a huge string costs no more than the limit being checked.
 */
export function codePointLength(s: string, cap = Number.POSITIVE_INFINITY): number {
  let n = 0;
  for (const _ of s) {
    n += 1;
    if (n > cap) break;
  }
  return n;
}

/** True for '' and whitespace-only strings (Unicode whitespace, as String#trim sees it). */
export function isBlank(s: string): boolean {
  return s.trim() === '';
}

/** A plain JSON object: not null, not an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Quote a user-supplied value for a message, shortened so one issue stays one line. */
export function quote(v: unknown, max = 60): string {
  let s: string;
  if (typeof v === 'string') s = JSON.stringify(v);
  else if (v === undefined) s = 'undefined';
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = String(v);
    }
  }
  const chars = [...s];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : s;
}
