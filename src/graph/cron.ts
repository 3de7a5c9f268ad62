// Save-time validation of a scheduled trigger's cron expression: it accepts exactly the
// expressions the Temporal server accepts when the schedule is created (service/worker/
// scheduler/calendar.go of the server, parseCronString and makeRange), within the language
// documented in docs/automations.md ("Schedules"): five fields, or one of the @ macros.
// test/engine/cron-temporal.test.ts checks the verdicts against a real server.
//
// Temporal's parser also takes 6 and 7 fields (years, seconds), a `TZ=` prefix, `#` comments
// and `@every`; Deskflow refuses those on purpose (intervalSeconds and timezone say the same
// thing once). It refuses one more thing Temporal takes: a step of 2^31 or more, which the
// server stores in 32 bits, so that */4294967296 would run every minute.

const MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  /** Names accepted in place of numbers: names[k] stands for `nameBase + k`. */
  names?: readonly string[];
  nameBase?: number;
  /** Shortest prefix of a name that is accepted (jan, mo). */
  minPrefix?: number;
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES, nameBase: 1, minPrefix: 3 },
  { name: 'day-of-week', min: 0, max: 7, names: DAY_NAMES, nameBase: 0, minPrefix: 2 },
];

export const MAX_CRON_LENGTH = 200;
const MAX_STEP = 2 ** 31 - 1;

// Go's unicode.IsSpace, which the server splits fields on (JavaScript's \s differs: it has
// U+FEFF and lacks U+0085).
const SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const SPACES = new RegExp(`[${SPACE}]+`);
const EDGE_SPACES = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'g');

/** Why `expr` is not a cron expression Deskflow and Temporal accept (naming the first bad field), or undefined. */
export function cronProblem(expr: string): string | undefined {
  const text = expr.replace(EDGE_SPACES, '');
  if (text === '') return 'is empty';
  if ([...text].length > MAX_CRON_LENGTH) return `is longer than ${MAX_CRON_LENGTH} characters`;
  if (text.includes('#')) return 'has a comment (#); comments are not supported';
  if (/^(?:CRON_)?TZ=/.test(text)) return 'starts with a time zone; set the trigger\'s timezone instead';
  if (text.startsWith('@every')) return 'uses @every; set intervalSeconds instead';
  if (text.startsWith('@')) {
    return MACROS.includes(text) ? undefined : `is not one of the macros ${MACROS.join(' ')} (they are lowercase)`;
  }
  const parts = text.split(SPACES);
  if (parts.length !== FIELDS.length) {
    const extra = parts.length === 6 || parts.length === 7 ? '; seconds and years are not supported' : '';
    return `must have 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}${extra}`;
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
    const problem = itemProblem(item, spec);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** One list item: `*`, `a`, `a-b`, each with an optional `/step`; a bare `a/step` runs to the maximum. */
function itemProblem(item: string, spec: FieldSpec): string | undefined {
  if (item === '') return 'has an empty list item';
  const slashes = item.split('/').length - 1;
  if (slashes > 1) return `"${item}" has more than one "/"`;
  let base = item;
  if (slashes === 1) {
    const [before, step] = item.split('/');
    base = before;
    if (step === '') return `"${item}" has no step after "/"`;
    const n = integer(step);
    if (n === undefined) return `step "${step}" is not a whole number`;
    if (n < 1 || n > MAX_STEP) return `step ${step} is out of range 1-${MAX_STEP}`;
  }
  if (base === '*') return undefined;
  const dashes = base.split('-').length - 1;
  if (dashes > 1) return `"${base}" has more than one "-"`;
  if (dashes === 0) return valueProblem(base, spec, spec.min).problem;
  const [fromText, toText] = base.split('-');
  const from = valueProblem(fromText, spec, spec.min);
  if (from.problem !== undefined) return from.problem;
  const to = valueProblem(toText, spec, from.value);
  if (to.problem !== undefined) return from.value > to.value ? `range ${base} runs backwards` : to.problem;
  return undefined;
}

/**
 * A value between `min` and the field's maximum: a decimal number (a leading "+" and zeros
 * allowed, as Go's strconv.Atoi reads it) or a name prefix (month: 3 letters or more, day of
 * week: 2 or more, any case).
 */
function valueProblem(text: string, spec: FieldSpec, min: number): { value: number; problem?: string } {
  let value = integer(text);
  if (value === undefined && spec.names !== undefined && text.length >= (spec.minPrefix ?? 0)) {
    const lower = goLowerCase(text);
    const index = spec.names.findIndex((name) => name.startsWith(lower));
    if (index !== -1) value = index + (spec.nameBase ?? 0);
  }
  if (value === undefined) {
    const names = spec.names === undefined ? '' : ` or a name like ${spec.names[1].slice(0, spec.minPrefix)}`;
    return { value: Number.NaN, problem: `"${text}" is not a number${names}` };
  }
  if (value < min || value > spec.max) {
    return { value, problem: `${text} is out of range ${spec.min}-${spec.max}` };
  }
  return { value };
}

/** The value of an optionally signed decimal integer (strconv.Atoi), or undefined. */
function integer(text: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(text) ? Number(text) : undefined;
}

/**
 * Go's strings.ToLower as far as it can reach the ASCII names: besides A-Z, U+0130 (İ) lowers
 * to i and U+212A (Kelvin sign) to k, so the server reads "FRİ" as Friday.
 */
function goLowerCase(text: string): string {
  return text.replace(/[A-Z\u0130\u212a]/g, (c) => (c === '\u0130' ? 'i' : c === '\u212a' ? 'k' : c.toLowerCase()));
}
