// Save-time check of `matches` patterns. A workflow runs its regex against customer text
// (message bodies up to 100,000 characters) inside a Temporal workflow task, where a
// catastrophically backtracking pattern would stall the worker. We cannot prove a pattern
// safe in general, so we refuse the shapes that cause exponential backtracking and accept
// the rest:
//
//   - a repeated group (quantifier allowing more than one iteration: * + {n,} {n,m} m>1)
//     that contains another quantifier anywhere inside it: (a+)+ (a*)* (\w+\s?)* (.*a){10}
//   - a repeated group that contains an alternation: (a|aa)+ (write [ab]+ instead of (a|b)+)
//   - back-references (\1, \k<name>), and lookbehind (?<= (?<!
//   - more than 1,000 ways through the pattern from optional parts and alternatives in a
//     row: a?a?a?…aaa or (a|a)(a|a)… backtrack exponentially in the pattern's length
//   - three or more unbounded repeats in a row that can match the same text, with nothing
//     between them that only one could match: a*a*a*b, .*a.*b.*c, \w+\d+\w+ (each one more
//     multiplies the work by the text's length; two in a row, like .*refund.*, are accepted)
//   - counted repetition above 1,000, and patterns longer than 500 characters.
//
// The tokenizer follows the `u`-flag grammar (the flags evaluation uses): escapes are one
// token, a character class [...] is one atom (a `+` inside it is a literal), and `{` is
// always a quantifier because `u` mode rejects a literal brace.

import { codePointLength } from './text.ts';

export const MAX_PATTERN_LENGTH = 500;
const MAX_REPEAT_COUNT = 1000;

/** Why the pattern is refused, or undefined when it compiles and looks safe. */
export function regexProblem(pattern: string): string | undefined {
  if (codePointLength(pattern, MAX_PATTERN_LENGTH) > MAX_PATTERN_LENGTH) {
    return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  }
  try {
    new RegExp(pattern, 'u');
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return `is not a valid regular expression (${detail})`;
  }
  return backtrackingProblem(pattern);
}

interface Frame {
  /** The unbounded repeats in a row so far in the alternative being read (see overlaps()). */
  run: { atom: CharTest; count: number } | null;
  /** Some quantifier occurs inside this group (at any depth). */
  hasQuantifier: boolean;
  /** Some `|` occurs inside this group (at any depth). */
  hasAlternation: boolean;
  /** A lookahead: the engine never backtracks into it, so it offers one way through. */
  atomic: boolean;
  /** Ways through the alternatives already closed by `|`. */
  closedWays: number;
  /** Ways through the alternative being read: the product of its parts' ways. */
  ways: number;
}

interface Quantifier {
  /** Characters the quantifier spans, lazy `?` included. */
  length: number;
  /** More than one iteration is possible. */
  repeats: boolean;
  max: number;
  min: number;
}

const MAX_WAYS = 1000;

function frame(atomic: boolean): Frame {
  return { run: null, hasQuantifier: false, hasAlternation: false, atomic, closedWays: 0, ways: 1 };
}

/**
 * Ways through a part multiply along a sequence and add across alternatives; an optional
 * part (`?`, `{0,1}`) adds the way around it. Their product bounds the backtracking of one
 * match attempt, so a long run of overlapping choices (a?a?a?…aaa, (a|a)(a|a)…) is refused.
 * Unbounded repetition of a single atom counts as one way: it is polynomial, not exponential.
 */
function addPart(top: Frame, ways: number, q: Quantifier | undefined): boolean {
  const optional = q !== undefined && q.min === 0 && q.max === 1;
  top.ways *= optional ? ways + 1 : ways;
  return top.closedWays + top.ways <= MAX_WAYS;
}

const TOO_MANY_WAYS = `has too many optional parts or alternatives in a row (more than ${MAX_WAYS} ways to match), which can backtrack catastrophically`;

function backtrackingProblem(p: string): string | undefined {
  const stack: Frame[] = [frame(false)];
  let i = 0;
  while (i < p.length) {
    const ch = p[i];
    const top = stack[stack.length - 1];
    const atomStart = i;
    if (ch === '\\') {
      const next = p[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') {
        return 'uses a back-reference, which can backtrack catastrophically';
      }
      i = skipEscape(p, i);
    } else if (ch === '[') {
      i = skipClass(p, i);
    } else if (ch === '(') {
      if (p.startsWith('(?<=', i) || p.startsWith('(?<!', i)) {
        return 'uses a lookbehind, which is not supported in conditions';
      }
      stack.push(frame(p.startsWith('(?=', i) || p.startsWith('(?!', i)));
      i = skipGroupOpening(p, i);
      continue; // a group opening is not an atom: no quantifier can follow it directly
    } else if (ch === ')') {
      const group = stack.pop();
      const parent = stack[stack.length - 1];
      if (group === undefined || parent === undefined) return 'has an unbalanced parenthesis';
      i += 1;
      const q = readQuantifier(p, i);
      if (q !== undefined) {
        const bad = checkCount(q);
        if (bad !== undefined) return bad;
        if (q.repeats && group.hasQuantifier) {
          return 'repeats a group that itself contains a quantifier (like (a+)+), which can backtrack catastrophically';
        }
        if (q.repeats && group.hasAlternation) {
          return 'repeats a group that contains alternatives (like (a|aa)+), which can backtrack catastrophically; use a character class such as [ab]+ where possible';
        }
        i += q.length;
      }
      // A group's text is not judged character by character: it ends a run unless optional.
      if (q === undefined || q.min > 0) parent.run = null;
      parent.hasQuantifier ||= group.hasQuantifier || q !== undefined;
      parent.hasAlternation ||= group.hasAlternation;
      if (!addPart(parent, group.atomic ? 1 : group.closedWays + group.ways, q)) return TOO_MANY_WAYS;
      continue;
    } else if (ch === '|') {
      top.run = null;
      top.hasAlternation = true;
      top.closedWays += top.ways;
      top.ways = 1;
      i += 1;
      continue;
    } else {
      i += 1; // any other single atom: literal, `.`, `^`, `$`
    }
    const atom = charTest(p.slice(atomStart, i));
    const q = readQuantifier(p, i);
    if (q !== undefined) {
      const bad = checkCount(q);
      if (bad !== undefined) return bad;
      top.hasQuantifier = true;
      i += q.length;
    }
    if (q !== undefined && !Number.isFinite(q.max)) {
      top.run = top.run && overlaps(top.run.atom, atom) ? { atom, count: top.run.count + 1 } : { atom, count: 1 };
      if (top.run.count >= MAX_COMPETING_REPEATS) return COMPETING_REPEATS;
    } else if ((q === undefined || q.min > 0) && top.run && !covers(top.run.atom, atom)) {
      top.run = null; // a required part the repeat before it cannot match ends the run
    }
    if (!addPart(top, 1, q)) return TOO_MANY_WAYS;
  }
  return stack.length === 1 ? undefined : 'has an unbalanced parenthesis';
}

/**
 * Unbounded repeats in a row that can match the same characters compete for the same text:
 * when the match fails, the engine tries every way of sharing the text among them, which
 * grows with the text's length to the power of their number. Which characters an atom
 * matches is judged on a sample alphabet (ASCII and a few letters, spaces and symbols
 * beyond it), case-insensitively, which errs toward overlap.
 */
const MAX_COMPETING_REPEATS = 3;
const COMPETING_REPEATS = `has ${MAX_COMPETING_REPEATS} or more unbounded repeats in a row that can match the same text (like a*a*a* or .*a.*b.*), which can backtrack catastrophically`;
const SAMPLE = [...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)), 'é', 'ß', 'Ω', 'ж', '中', '\u00a0', '\u2028', '€', '😀'];

type CharTest = (c: string) => boolean;

function charTest(atom: string): CharTest {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${atom})$`, 'iu');
  } catch {
    return () => true; // not judged alone (cannot happen for a pattern that compiles): assume the worst
  }
  return (c) => re.test(c);
}

function overlaps(a: CharTest, b: CharTest): boolean {
  return SAMPLE.some((c) => a(c) && b(c));
}

/** Every sample character `part` matches, `repeat` matches too (and `part` matches some). */
function covers(repeat: CharTest, part: CharTest): boolean {
  const matched = SAMPLE.filter(part);
  return matched.length > 0 && matched.every(repeat);
}

function checkCount(q: Quantifier): string | undefined {
  if (q.min > MAX_REPEAT_COUNT || (Number.isFinite(q.max) && q.max > MAX_REPEAT_COUNT)) {
    return `repeats more than ${MAX_REPEAT_COUNT} times`;
  }
  return undefined;
}

/** Index after an escape sequence starting at `i` (which holds the backslash). */
function skipEscape(p: string, i: number): number {
  const kind = p[i + 1];
  if (kind === undefined) return i + 1;
  if ((kind === 'p' || kind === 'P' || kind === 'u') && p[i + 2] === '{') {
    const close = p.indexOf('}', i + 3);
    return close === -1 ? p.length : close + 1;
  }
  if (kind === 'u') return i + 6; // \uXXXX
  if (kind === 'x') return i + 4; // \xHH
  if (kind === 'c') return i + 3; // \cX
  // One escaped code point (a surrogate pair stays together).
  const cp = p.codePointAt(i + 1) ?? 0;
  return i + 1 + (cp > 0xffff ? 2 : 1);
}

/** Index after the character class opened at `i`. In `u` mode classes do not nest. */
function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j += 1;
  while (j < p.length) {
    if (p[j] === '\\') {
      j = skipEscape(p, j);
    } else if (p[j] === ']') {
      return j + 1;
    } else {
      j += 1;
    }
  }
  return j;
}

/** Index after `(`, `(?:`, `(?=`, `(?!`, `(?<name>` or a modifier group `(?i:`. */
function skipGroupOpening(p: string, i: number): number {
  if (p[i + 1] !== '?') return i + 1;
  if (p[i + 2] === '<') {
    const close = p.indexOf('>', i + 3);
    return close === -1 ? p.length : close + 1;
  }
  if (p[i + 2] === ':' || p[i + 2] === '=' || p[i + 2] === '!') return i + 3;
  const colon = p.indexOf(':', i + 2); // (?ims-ims:
  return colon === -1 ? p.length : colon + 1;
}

function readQuantifier(p: string, i: number): Quantifier | undefined {
  const ch = p[i];
  let length: number;
  let min: number;
  let max: number;
  if (ch === '*' || ch === '+' || ch === '?') {
    length = 1;
    min = ch === '+' ? 1 : 0;
    max = ch === '?' ? 1 : Number.POSITIVE_INFINITY;
  } else if (ch === '{') {
    const braces = /\{(\d+)(,(\d*))?\}/y; // sticky: match exactly at i
    braces.lastIndex = i;
    const m = braces.exec(p);
    if (m === null) return undefined;
    length = m[0].length;
    min = Number(m[1]);
    max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
  } else {
    return undefined;
  }
  if (p[i + length] === '?') length += 1; // lazy
  return { length, min, max, repeats: max > 1 };
}
