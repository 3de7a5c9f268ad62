// Save-time validation of a scheduled trigger's cron expression. Temporal computes the fire
// times; this only makes sure the author gets a precise message instead of a schedule that
// Temporal refuses when the workflow is activated.
//
// Accepted: five fields (minute hour day-of-month month day-of-week) separated by whitespace,
// each a comma list of `*`, `*/n`, `a`, `a-b` or `a-b/n`; month names JAN-DEC and day names
// SUN-SAT in any case; day-of-week 0-7 (0 and 7 are Sunday). Or one of the macros
// @yearly @annually @monthly @weekly @daily @hourly.

const MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly'];

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  /** Names accepted in place of numbers; names[k] stands for min + k. */
  names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day-of-week', min: 0, max: 7, names: DAY_NAMES },
];

export const MAX_CRON_LENGTH = 200;

/** Why `expr` is not a valid cron expression (naming the first bad field), or undefined. */
export function cronProblem(expr: string): string | undefined {
  const text = expr.trim();
  if (text === '') return 'is empty';
  if (text.length > MAX_CRON_LENGTH) return `is longer than ${MAX_CRON_LENGTH} characters`;
  if (text.startsWith('@')) {
    return MACROS.includes(text.toLowerCase())
      ? undefined
      : `macro "${text}" is not supported (use one of ${MACROS.join(' ')})`;
  }
  const parts = text.split(/\s+/);
  if (parts.length !== FIELDS.length) {
    return `must have 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  }
  for (let k = 0; k < FIELDS.length; k += 1) {
    const spec = FIELDS[k];
    const problem = fieldProblem(parts[k], spec);
    if (problem !== undefined) return `field ${k + 1} (${spec.name}) "${parts[k]}": ${problem}`;
  }
  return undefined;
}

function fieldProblem(field: string, spec: FieldSpec): string | undefined {
  for (const item of field.split(',')) {
    if (item === '') return 'has an empty list item';
    const problem = itemProblem(item, spec);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function itemProblem(item: string, spec: FieldSpec): string | undefined {
  const slash = item.indexOf('/');
  const base = slash === -1 ? item : item.slice(0, slash);
  if (slash !== -1) {
    const step = item.slice(slash + 1);
    if (!/^\d+$/.test(step)) return `step "${step}" is not a number`;
    const n = Number(step);
    if (n < 1 || n > spec.max) return `step ${n} is out of range 1-${spec.max}`;
    if (base !== '*' && !base.includes('-')) {
      return `a step needs "*" or a range before it ("*/${step}" or "a-b/${step}")`;
    }
  }
  if (base === '*') return undefined;
  const dash = base.indexOf('-');
  if (dash === -1) return valueProblem(base, spec).problem;
  const from = valueProblem(base.slice(0, dash), spec);
  if (from.problem !== undefined) return from.problem;
  const to = valueProblem(base.slice(dash + 1), spec);
  if (to.problem !== undefined) return to.problem;
  if (from.value > to.value) return `range ${base} runs backwards`;
  return undefined;
}

function valueProblem(text: string, spec: FieldSpec): { value: number; problem?: string } {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value < spec.min || value > spec.max) {
      return { value, problem: `${value} is out of range ${spec.min}-${spec.max}` };
    }
    return { value };
  }
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index !== -1) return { value: spec.min + index };
  const hint = spec.names === undefined ? '' : ` or a name ${spec.names[0]}-${spec.names[spec.names.length - 1]}`;
  return { value: Number.NaN, problem: `"${text}" is not a number ${spec.min}-${spec.max}${hint}` };
}
