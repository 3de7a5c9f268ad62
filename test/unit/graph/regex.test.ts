import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateCondition, MAX_PROGRAM_SIZE, patternProblem, PatternError, walkToFirstAction, type WorkflowGraph } from '../../../src/graph/index.ts';

// `matches` runs on RE2 (docs/automations.md, "Regular expressions"): linear time in the text
// whatever the pattern, so the shapes that make a backtracking engine explode are accepted.

/** The `matches` condition on `data.text`, evaluated the way the workflow does it. */
function matches(pattern: string, text: string, caseSensitive = false): boolean {
  return evaluateCondition({ field: 'data.text', operator: 'matches', value: pattern, caseSensitive }, { data: { text: text } });
}

const N = 100_000;

describe('patterns a backtracking engine cannot run safely', () => {
  it('are accepted at save', () => {
    for (const p of ['(a+)+', '(a+)+$', '(a|aa)*', '^(a|aa)*$', 'a*a*a*', 'a*a*a*b', '.*a.*b.*c', '^\\S+@\\S+\\.\\S+$', '(\\w+\\s?)*$', '(.*a){10}', `${'a?'.repeat(20)}${'a'.repeat(20)}`]) {
      expect(patternProblem(p, false), p).toBeUndefined();
    }
  });

  // Each case holds on a 100,000-character text built so that the answer is known, and is
  // checked on a 20-character version against RegExp. RegExp could not do the long ones: on a
  // failing match it tries every way to share the text among the repeats before giving up,
  //   (a+)+$       on a…a!  every split of the run of a's among iterations: 2^(n-1) ways
  //   ^(a|aa)*$    on a…ab  every split of the a's into ones and twos: Fibonacci(n) ≈ 1.6^n
  //   a*a*a*b      on a…a   from each of n starts, every split in three: about n^4/24 in all
  //   .*a.*b.*c    on abab… from each start, every choice of an a and a later b: about n^4/24
  //   ^\S+@\S+\.\S+$ on @…@.….␠  every @ times every dot times every end: about n^3/16
  //   (\w+\s?)*$   on "word word … !"  every way to cut each word: 2^(3·words) and more
  // which for n = 100,000 is beyond 10^14 steps (days) for the polynomial ones and beyond the
  // age of the universe for the exponential ones. RE2 reads the text once.
  const cases: Array<[pattern: string, make: (n: number) => string, expected: boolean]> = [
    ['(a+)+$', (n) => `${'a'.repeat(n - 1)}!`, false],
    ['(a+)+$', (n) => 'a'.repeat(n), true],
    ['^(a|aa)*$', (n) => `${'a'.repeat(n - 1)}b`, false],
    ['^(a|aa)*$', (n) => 'a'.repeat(n), true],
    ['a*a*a*b', (n) => 'a'.repeat(n), false],
    ['a*a*a*b', (n) => `${'a'.repeat(n - 1)}b`, true],
    ['.*a.*b.*c', (n) => 'ab'.repeat(n / 2), false],
    ['.*a.*b.*c', (n) => `c${'ab'.repeat(n / 2 - 1)}a`, false],
    ['.*a.*b.*c', (n) => `${'ab'.repeat(n / 2 - 1)}bc`, true],
    ['^\\S+@\\S+\\.\\S+$', (n) => `${'@'.repeat(n / 2)}${'.'.repeat(n / 2 - 1)} `, false],
    ['^\\S+@\\S+\\.\\S+$', (n) => `${'@'.repeat(n / 2)}${'.'.repeat(n / 2)}`, true],
    ['(\\w+\\s?)*$', (n) => `${'word '.repeat(n / 5 - 1)}word!`, true],
    ['^(\\w+\\s?)*$', (n) => `${'word '.repeat(n / 5 - 1)}word!`, false],
    ['^(\\w+\\s?)*$', (n) => `${'word '.repeat(n / 5 - 1)}words`, true],
  ];

  it.each(cases)('%s on 100,000 characters gives the right answer', (pattern, make, expected) => {
    const short = make(20);
    expect(new RegExp(pattern, 'iu').test(short), `RegExp on ${JSON.stringify(short)}`).toBe(expected);
    expect(matches(pattern, short)).toBe(expected);
    const text = make(N);
    expect(text).toHaveLength(N);
    expect(matches(pattern, text)).toBe(expected);
  });
});

describe('RE2 agrees with RegExp where both apply', () => {
  // The common ground: literals, classes, \d \w \s \b, anchors, groups, alternation and every
  // quantifier. Texts avoid what the engines read differently: `.` and \s on \r, \v, U+00A0,
  // U+2028 (RE2's `.` excludes only \n, its \s is [\t\n\f\r ]).
  const alphabet = ['a', 'b', 'c', 'A', 'B', '0', '1', ' ', '\t', '\n', '-', '.', 'é', 'É', 'ß'];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }).map((cs) => cs.join(''));
  const literal = fc.constantFrom('a', 'b', 'A', '0', ' ', '-', '\\.', 'é', 'ß', 'c');
  const klass = fc.constantFrom('.', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '[ab]', '[^a ]', '[a-c0-1]', '[^\\d\\s]', '[é.-]');
  const quantifier = fc.constantFrom('', '', '*', '+', '?', '{2}', '{0,2}', '{1,}', '*?', '+?', '??', '{1,3}?');
  const { alternation } = fc.letrec<{ alternation: string; atom: string; sequence: string }>((tie) => ({
    atom: fc.oneof(
      { maxDepth: 2, withCrossShrink: true },
      literal,
      klass,
      tie('alternation').map((a) => `(?:${a})`),
      tie('alternation').map((a) => `(${a})`),
    ),
    sequence: fc
      .tuple(
        fc.constantFrom('', '', '^', '\\b'),
        fc.array(fc.tuple(tie('atom'), quantifier).map(([a, q]) => a + q), { minLength: 1, maxLength: 3 }),
        fc.constantFrom('', '', '$', '\\b'),
      )
      .map(([start, pieces, end]) => start + pieces.join('') + end),
    alternation: fc.array(tie('sequence'), { minLength: 1, maxLength: 3 }).map((alts) => alts.join('|')),
  }));

  it('on generated patterns and texts, both cases', () => {
    fc.assert(
      fc.property(alternation, text, fc.boolean(), (pattern, subject, caseSensitive) => {
        fc.pre(patternProblem(pattern, caseSensitive) === undefined); // a few nest into too many copies
        const expected = new RegExp(pattern, caseSensitive ? 'u' : 'iu').test(subject);
        expect(matches(pattern, subject, caseSensitive)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('what RE2 refuses, and why', () => {
  it('names the construct and the missing feature', () => {
    expect(patternProblem('(?=.*\\d)\\w+', false)).toMatch(/not a valid RE2 regular expression: .*`\(\?=`.*lookahead is not supported/);
    expect(patternProblem('(?!spam)\\w+', false)).toMatch(/lookahead is not supported/);
    expect(patternProblem('(?<=re: )\\w+', false)).toMatch(/lookbehind is not supported/);
    expect(patternProblem('(?<!no )refund', false)).toMatch(/lookbehind is not supported/);
    expect(patternProblem('(a)\\1', false)).toMatch(/`\\1`.*back-references are not supported/);
    expect(patternProblem('(?<x>a)\\k<x>', false)).toMatch(/back-references are not supported/);
    expect(patternProblem('a++', false)).toMatch(/possessive quantifiers are not supported/);
    expect(patternProblem('\\u00e9', false)).toMatch(/\\x\{263A\}/);
    expect(patternProblem('([a-z', false)).toMatch(/missing closing \]/);
    expect(patternProblem('a{1001}', false)).toMatch(/invalid repeat count/);
  });
  it('accepts RE2 syntax that RegExp lacks', () => {
    for (const p of ['(?P<order>\\d+)', '\\Qa.b*c\\E', '[[:alpha:]]+', '\\pL\\p{Greek}', '(?i)refund', '(?s)a.b', '\\Arefund\\z', '\\x{263A}']) {
      expect(patternProblem(p, true), p).toBeUndefined();
    }
    expect(matches('\\Qa.b*c\\E', 'x a.b*c y', true)).toBe(true);
    expect(matches('\\Qa.b*c\\E', 'x aXbbc y', true)).toBe(false);
  });
  it('caps the length at 500 characters and the compiled size', () => {
    expect(patternProblem('a'.repeat(501), false)).toMatch(/longer than 500/);
    expect(patternProblem('😀'.repeat(MAX_PROGRAM_SIZE - 10), false)).toBeUndefined();
    expect(patternProblem(`[ab]{${MAX_PROGRAM_SIZE}}`, false)).toMatch(new RegExp(`too complex: it compiles to \\d+ instructions, at most ${MAX_PROGRAM_SIZE}`));
    expect(patternProblem(`[ab]{${MAX_PROGRAM_SIZE - 10}}`, false)).toBeUndefined();
  });
});

describe('a stored pattern that RE2 cannot run', () => {
  const lookahead = { field: 'ticket.subject', operator: 'matches' as const, value: '^(?=.*\\d)refund' };
  it('fails the condition with a message naming the pattern and the reason, whatever the data', () => {
    for (const context of [{ ticket: { subject: 'refund 42' } }, { ticket: { subject: 7 } }, {}]) {
      expect(() => evaluateCondition(lookahead, context)).toThrow(PatternError);
    }
    expect(() => evaluateCondition(lookahead, {})).toThrow(
      /The condition on "ticket.subject" cannot be evaluated: its pattern "\^\(\?=\.\*\\\\d\)refund" is not a valid RE2 regular expression: .*lookahead is not supported\)\. Edit the workflow/,
    );
  });
  it('fails a group too, even when the leaves before it decide', () => {
    const decided = { field: 'ticket.subject', operator: 'equals' as const, value: 'refund 42' };
    expect(() => evaluateCondition({ match: 'any', conditions: [decided, lookahead] }, { ticket: { subject: 'refund 42' } })).toThrow(PatternError);
  });
  it('leaves it to the run: walking the conditions up front asks for a run instead of failing the caller', () => {
    const graph: WorkflowGraph = {
      nodes: [
        { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } },
        { id: 'refund', type: 'condition', data: lookahead },
      ],
      edges: [{ source: 'start', target: 'refund' }],
    };
    expect(walkToFirstAction(graph, { ticket: { subject: 'refund 42' } })).toEqual({ steps: [{ nodeId: 'start', status: 'passed' }], reachesAction: true });
  });
});
