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
//   - counted repetition above 1,000, and patterns longer than 500 characters.
//
// Known limit: adjacent unbounded quantifiers such as .*a.*b.*c are polynomial, not
// exponential, and are accepted.
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
  return { hasQuantifier: false, hasAlternation: false, atomic, closedWays: 0, ways: 1 };
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
      parent.hasQuantifier ||= group.hasQuantifier || q !== undefined;
      parent.hasAlternation ||= group.hasAlternation;
      if (!addPart(parent, group.atomic ? 1 : group.closedWays + group.ways, q)) return TOO_MANY_WAYS;
      continue;
    } else if (ch === '|') {
      top.hasAlternation = true;
      top.closedWays += top.ways;
      top.ways = 1;
      i += 1;
      continue;
    } else {
      i += 1; // any other single atom: literal, `.`, `^`, `$`
    }
    const q = readQuantifier(p, i);
    if (q !== undefined) {
      const bad = checkCount(q);
      if (bad !== undefined) return bad;
      top.hasQuantifier = true;
      i += q.length;
    }
    if (!addPart(top, 1, q)) return TOO_MANY_WAYS;
  }
  return stack.length === 1 ? undefined : 'has an unbalanced parenthesis';
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
