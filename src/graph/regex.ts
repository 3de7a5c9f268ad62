// `matches` patterns run on RE2 (re2js, a pure JavaScript port of Go's regexp package), not on
// JavaScript's RegExp. RegExp backtracks: a pattern like (a+)+$ or ^\S+@\S+\.\S+$ takes
// exponential or high-polynomial time on a hostile 100,000-character message, and it would do
// so inside a Temporal workflow task, stalling the worker. RE2 matches in time linear in the
// text, whatever the pattern, by refusing the features that need backtracking (lookaround,
// back-references). The syntax is documented in docs/automations.md ("Regular expressions").
//
// Linear is O(text × program): the work per character grows with the size of the compiled
// pattern when RE2's DFA gives up (a pattern like a[ab]{100}b needs 2^100 states) and it
// simulates the NFA instead. A counted repetition compiles to that many copies ([ab]{1000} is
// 1,000 instructions), so the length cap alone does not bound the work; MAX_PROGRAM_SIZE does.
// bench/matches.ts measures typical patterns and the slowest ones at the cap.

import { RE2JS } from 're2js';
import { codePointLength } from './text.ts';

const MAX_PATTERN_LENGTH = 500;
export const MAX_PROGRAM_SIZE = 250;

/** A compiled pattern, or why it cannot be used (a sentence fragment after the pattern). */
export type CompiledPattern = { ok: true; test: (text: string) => boolean } | { ok: false; problem: string };

/** Compiles `pattern` the way `matches` runs it: case-insensitive unless `caseSensitive`. */
export function compilePattern(pattern: string, caseSensitive: boolean): CompiledPattern {
  if (codePointLength(pattern, MAX_PATTERN_LENGTH) > MAX_PATTERN_LENGTH) {
    return { ok: false, problem: `is longer than ${MAX_PATTERN_LENGTH} characters` };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    return { ok: false, problem: `is not a valid RE2 regular expression: ${syntaxProblem(err)}` };
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    return {
      ok: false,
      problem: `is too complex: it compiles to ${size} instructions, at most ${MAX_PROGRAM_SIZE} are allowed (a counted repetition like {100} counts every copy; split the pattern into several conditions)`,
    };
  }
  return { ok: true, test: (text) => re.test(text) };
}

/** Why `pattern` cannot be used by `matches`, or undefined when it can. */
export function patternProblem(pattern: string, caseSensitive: boolean): string | undefined {
  const compiled = compilePattern(pattern, caseSensitive);
  return compiled.ok ? undefined : compiled.problem;
}

// RE2 names the construct it stopped at; for the features authors bring from other regex
// dialects it also says why they are missing.
const UNSUPPORTED: ReadonlyArray<[RegExp, string]> = [
  [/^\(\?[=!]/, 'lookahead is not supported'],
  [/^\(\?<[=!]/, 'lookbehind is not supported'],
  [/^\\[1-9k]/, 'back-references are not supported'],
  [/^\(\?>|^(?:[*+?]|\{[\d,]*\})\+/, 'atomic groups and possessive quantifiers are not supported'],
  [/^\\u/, 'write a code point as \\x{263A}'],
];

function syntaxProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const detail = message.replace(/^error parsing regexp: /, '');
  const at = /`([^`]*)`$/.exec(detail)?.[1] ?? '';
  const hint = UNSUPPORTED.find(([shape]) => shape.test(at))?.[1];
  return hint === undefined ? detail : `${detail} (${hint})`;
}
