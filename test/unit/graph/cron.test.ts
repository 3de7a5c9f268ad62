import { describe, expect, it } from 'vitest';
import { cronProblem } from '../../../src/graph/index.ts';

// The rules are Temporal's (docs/automations.md, "Schedules"); test/engine/cron-temporal.test.ts
// compares these verdicts with a real Temporal server's.

describe('cronProblem', () => {
  it('accepts five fields of lists, ranges, steps and names', () => {
    const good = [
      '* * * * *',
      '0 9 * * 1-5',
      '*/15 * * * *',
      '0 8-18/2 * * MON-FRI',
      '30 6 1,15 * *',
      '0 0 1 jan,Jul *',
      '0 0 * * sun',
      '0 0 * * 7',
      '0 0 * * 5-7',
      '59 23 31 12 0',
      '  0   12  *  *  *  ',
      '0\t12\u00a0* * *',
    ];
    for (const expr of good) expect(cronProblem(expr), expr).toBeUndefined();
  });
  it('reads numbers and names as the Temporal server does', () => {
    const good = [
      '5/15 * * * *', // from 5 to the end of the range, every 15
      '*/100 * * * *', // a step longer than the range: once
      '+5 +05 007 +1 +0',
      '0 0 * JANUARY,feb,MaR,sept *',
      '0 0 * * MONDAY,tu,wed,THURS,fri',
      '0 0 * * FRİ', // Go lowercases U+0130 to "i"
      '0 0 * apr-dec/2 mo-fr/2',
      '0 0 * * */2147483647',
    ];
    for (const expr of good) expect(cronProblem(expr), expr).toBeUndefined();
  });
  it('accepts the lowercase @ macros only', () => {
    for (const expr of ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly', ' @daily ']) {
      expect(cronProblem(expr), expr).toBeUndefined();
    }
    for (const expr of ['@DAILY', '@Daily', '@reboot', '@ daily']) {
      expect(cronProblem(expr), expr).toMatch(/is not one of the macros @yearly @annually @monthly @weekly @daily @midnight @hourly \(they are lowercase\)/);
    }
  });
  it('names the first bad field and what is wrong with it', () => {
    const cases: Array<[string, RegExp]> = [
      ['60 * * * *', /^field 1 \(minute\) "60": 60 is out of range 0-59$/],
      ['0 24 * * *', /^field 2 \(hour\) "24": 24 is out of range 0-23$/],
      ['0 0 0 * *', /^field 3 \(day-of-month\) "0": 0 is out of range 1-31$/],
      ['0 0 32 * *', /field 3 \(day-of-month\)/],
      ['0 0 * 13 *', /field 4 \(month\) "13"/],
      ['0 0 * FOO *', /^field 4 \(month\) "FOO": "FOO" is not a number or a name like feb$/],
      ['0 0 * ja *', /field 4 \(month\) "ja": "ja" is not a number/],
      ['0 0 * * 8', /^field 5 \(day-of-week\) "8": 8 is out of range 0-7$/],
      ['0 0 * * m', /field 5 \(day-of-week\) "m": "m" is not a number or a name like mo/],
      ['0 0 * * sat-sun', /range sat-sun runs backwards/],
      ['5-1 * * * *', /^field 1 \(minute\) "5-1": range 5-1 runs backwards$/],
      ['1-5-7 * * * *', /"1-5-7" has more than one "-"/],
      ['-5 * * * *', /"" is not a number/],
      ['*-5 * * * *', /"\*" is not a number/],
      ['*/0 * * * *', /step 0 is out of range 1-2147483647/],
      ['*/2147483648 * * * *', /step 2147483648 is out of range/],
      ['*/4294967296 * * * *', /step 4294967296 is out of range/],
      ['*/x * * * *', /step "x" is not a whole number/],
      ['*/ * * * *', /"\*\/" has no step after "\/"/],
      ['1/2/3 * * * *', /"1\/2\/3" has more than one "\/"/],
      ['1,,2 * * * *', /empty list item/],
      ['? * * * *', /field 1 \(minute\)/],
      ['L * * * *', /field 1 \(minute\)/],
      ['* * * *', /must have 5 fields .* got 4$/],
      ['0 * * * * *', /got 6; seconds and years are not supported/],
      ['', /is empty/],
      [' \u3000', /is empty/],
      ['0 2 * * * # nightly', /comment/],
      ['TZ=Europe/Berlin 0 2 * * *', /set the trigger's timezone instead/],
      ['CRON_TZ=UTC 0 2 * * *', /timezone/],
      ['@every 5m', /set intervalSeconds instead/],
      ['0 0 * * \ufeff1', /field 5 \(day-of-week\)/], // U+FEFF is whitespace to JavaScript, not to Go
    ];
    for (const [expr, message] of cases) expect(cronProblem(expr), expr).toMatch(message);
  });
});
