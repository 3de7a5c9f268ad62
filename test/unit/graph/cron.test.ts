import { describe, expect, it } from 'vitest';
import { cronProblem } from '../../../src/graph/index.ts';

describe('cronProblem', () => {
  it('accepts standard expressions, names and macros', () => {
    const good = [
      '* * * * *',
      '0 9 * * 1-5',
      '*/15 * * * *',
      '0 8-18/2 * * MON-FRI',
      '30 6 1,15 * *',
      '0 0 1 jan,Jul *',
      '0 0 * * sun',
      '0 0 * * 7',
      '59 23 31 12 0',
      '  0   12  *  *  *  ',
      '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly', '@DAILY',
    ];
    for (const expr of good) expect(cronProblem(expr), expr).toBeUndefined();
  });
  it('names the first bad field', () => {
    const cases: Array<[string, RegExp]> = [
      ['60 * * * *', /field 1 \(minute\) "60": 60 is out of range 0-59/],
      ['0 24 * * *', /field 2 \(hour\) "24": 24 is out of range 0-23/],
      ['0 0 0 * *', /field 3 \(day-of-month\) "0": 0 is out of range 1-31/],
      ['0 0 32 * *', /field 3 \(day-of-month\)/],
      ['0 0 * 13 *', /field 4 \(month\) "13"/],
      ['0 0 * FOO *', /field 4 \(month\) "FOO": "FOO" is not a number 1-12 or a name JAN-DEC/],
      ['0 0 * * 8', /field 5 \(day-of-week\) "8": 8 is out of range 0-7/],
      ['0 0 * * MONDAY', /field 5 \(day-of-week\)/],
      ['5-1 * * * *', /field 1 \(minute\) "5-1": range 5-1 runs backwards/],
      ['*/0 * * * *', /step 0 is out of range/],
      ['*/x * * * *', /step "x" is not a number/],
      ['5/10 * * * *', /a step needs "\*" or a range/],
      ['1,,2 * * * *', /empty list item/],
      ['? * * * *', /field 1 \(minute\)/],
      ['* * * *', /must have 5 fields .* got 4/],
      ['* * * * * *', /got 6/],
      ['', /is empty/],
      ['@reboot', /macro "@reboot" is not supported/],
      ['@every 5m', /not supported/],
    ];
    for (const [expr, message] of cases) expect(cronProblem(expr), expr).toMatch(message);
  });
});
