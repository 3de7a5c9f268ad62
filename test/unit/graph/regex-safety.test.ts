import { describe, expect, it } from 'vitest';
import { regexProblem } from '../../../src/graph/index.ts';

describe('regexProblem', () => {
  it('accepts ordinary safe patterns', () => {
    const safe = [
      '^re:',
      'refund|chargeback',
      '\\d{3}-\\d{4}',
      '^[a-z+*]+$',
      '[(]+\\)',
      '\\(a+\\)+',
      'order #\\d+',
      '(?:ab)+',
      '(abc)?d+',
      '(a+)?',
      '(?<year>\\d{4})-(?<month>\\d{2})',
      '\\p{L}+',
      '(?=.*\\d)\\w+',
      '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
      '^\\w+@\\w+\\.\\w+$',
      '.*refund.*',
      '\\d+\\s*\\w+',
      '^\\s*\\d+\\s*$',
      'colou?r',
      '[^\\]]+',
      '[^]x',
    ];
    for (const p of safe) expect(regexProblem(p), p).toBeUndefined();
  });
  it('refuses nested quantifiers', () => {
    for (const p of ['(a+)+', '(a*)*', '(\\w+\\s?)*', '(.*a){10}', '(?:a+)+b', '((a+)b)*', '(x[a-z]+)+', '(a{2,3})+', '((ab)?)+']) {
      expect(regexProblem(p), p).toMatch(/repeats a group that itself contains a quantifier/);
    }
  });
  it('refuses alternation inside a repeated group', () => {
    for (const p of ['(a|aa)+', '(a|a)*', '(?:x|y){2,}', '((a|b)c)+']) {
      expect(regexProblem(p), p).toMatch(/contains alternatives/);
    }
  });
  it('refuses long runs of optional parts or alternatives (exponential in the pattern)', () => {
    expect(regexProblem(`${'a?'.repeat(10)}${'a'.repeat(10)}`)).toMatch(/too many optional parts or alternatives/);
    expect(regexProblem('(a|a)'.repeat(10))).toMatch(/more than 1000 ways/);
    expect(regexProblem('(a|b|c|d)(e|f|g|h)(i|j|k|l)(m|n|o|p)(q|r|s|t)')).toMatch(/more than 1000 ways/);
  });
  it('accepts a moderate number of choices', () => {
    expect(regexProblem(`${'a?'.repeat(9)}${'a'.repeat(9)}`)).toBeUndefined();
    expect(regexProblem(Array.from({ length: 120 }, (_, k) => `w${k}`).join('|'))).toBeUndefined();
    expect(regexProblem('^\\+?\\d{1,3}[-. ]?\\(?\\d{3}\\)?[-. ]?\\d{3}[-. ]?\\d{4}$')).toBeUndefined();
    expect(regexProblem('^(https?://)?(www\\.)?example\\.(com|org|net)(/.*)?$')).toBeUndefined();
    expect(regexProblem('(?=a?)(?=b?)(?=c?)(?=d?)(?=e?)(?=f?)(?=g?)(?=h?)(?=i?)(?=j?)x')).toBeUndefined();
  });
  it('refuses three or more unbounded repeats in a row that can match the same text', () => {
    for (const p of ['^a*a*a*a*a*a*a*a*a*a*a*a*b$', 'a*a*a*', '.*a.*b.*c', '^\\S+@\\S+\\.\\S+$', '\\w+\\d+\\w+', 'x+x?x+x+', '[a-z]+[a-c]*[b]+']) {
      expect(regexProblem(p), p).toMatch(/unbounded repeats in a row that can match the same text/);
    }
  });
  it('counts a run of repeats afresh after a part the repeats cannot match, an alternative or a group', () => {
    for (const p of ['a*a*b+a*a*', '\\d+\\w+-\\w+', '.*a.*|.*b.*', 'a+(?:bc)a+a+', '\\s+\\d+\\s+\\d+\\s+']) {
      expect(regexProblem(p), p).toBeUndefined();
    }
  });
  it('refuses back-references and lookbehind', () => {
    expect(regexProblem('(a)\\1')).toMatch(/back-reference/);
    expect(regexProblem('(?<x>a)\\k<x>')).toMatch(/back-reference/);
    expect(regexProblem('(?<=a)b')).toMatch(/lookbehind/);
    expect(regexProblem('(?<!a)b')).toMatch(/lookbehind/);
  });
  it('refuses invalid, overlong and huge-count patterns', () => {
    expect(regexProblem('(')).toMatch(/not a valid regular expression/);
    expect(regexProblem('a{')).toMatch(/not a valid regular expression/);
    expect(regexProblem('a'.repeat(501))).toMatch(/longer than 500/);
    expect(regexProblem('😀'.repeat(500))).toBeUndefined();
    expect(regexProblem('a{1001}')).toMatch(/more than 1000/);
    expect(regexProblem('a{2,99999999999999999999}')).toMatch(/more than 1000/);
  });
  it('treats a quantifier character inside a class or an escape as a literal', () => {
    expect(regexProblem('([+*?])+')).toBeUndefined();
    expect(regexProblem('(\\+\\*)+')).toBeUndefined();
    expect(regexProblem('([\\]+])+')).toBeUndefined();
  });
});
