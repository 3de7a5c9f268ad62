// One line that says what a node does, for its card on the canvas: calendars by their names,
// durations as people say them ("16 h of open time"), what the forms know of each parameter.

import { actionFields, operatorValue } from './fields.ts';
import { durationHint } from './time.ts';

/** The name of a calendar of the workspace, by id; undefined for one it does not have. */
export type CalendarNames = (id: unknown) => string | undefined;

const short = (v: unknown, max = 48): string => {
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

function calendar(id: unknown, names: CalendarNames): string {
  if (typeof id !== 'string' || id === '') return 'no calendar chosen';
  return names(id) ?? `unknown calendar ${id.slice(0, 8)}…`;
}

function condition(data: Record<string, unknown>, names: CalendarNames): string {
  if (Array.isArray(data.conditions)) {
    return `${data.match === 'any' ? 'any' : 'all'} of ${data.conditions.length} condition${data.conditions.length === 1 ? '' : 's'}`;
  }
  const test = `${String(data.field ?? '?')} ${String(data.operator ?? '?').replace(/_/g, ' ')}`;
  const kind = operatorValue(String(data.operator));
  if (kind.kind === 'calendar') return `${test} · ${calendar(data.value, names)}`;
  if (kind.kind === 'object' && typeof data.value === 'object' && data.value !== null) {
    const age = data.value as Record<string, unknown>;
    const openTime = Object.hasOwn(age, 'calendarId');
    return `${test} ${durationHint(age.seconds, openTime) ?? short(age.seconds)}${openTime ? ` · ${calendar(age.calendarId, names)}` : ''}`;
  }
  return `${test}${Object.hasOwn(data, 'value') ? ` ${short(data.value)}` : ''}`;
}

function action(data: Record<string, unknown>, names: CalendarNames): string {
  const { actionType, label: _label, ...params } = data;
  const fields = actionFields(String(actionType));
  const openTime = fields.some((f) => f.kind === 'calendar' && Object.hasOwn(params, f.key));
  // In the order src/graph lists the parameters, whatever order the stored JSON has them in.
  const order = (k: string) => {
    const i = fields.findIndex((f) => f.key === k);
    return i === -1 ? fields.length : i;
  };
  const entries = Object.entries(params).sort(([a], [b]) => order(a) - order(b));
  const values = entries.map(([k, v]) => {
    const spec = fields.find((f) => f.key === k);
    if (spec?.kind === 'calendar') return `calendar: ${calendar(v, names)}`;
    if (spec?.unit === 'seconds' && typeof v === 'number') return `${k}: ${durationHint(v, openTime) ?? v}`;
    if (spec?.kind === 'members' && Array.isArray(v)) return `${k}: ${v.length ? v.join(', ') : 'nobody yet'}`;
    return typeof v === 'string' || typeof v === 'number' ? `${k}: ${short(v, 40)}` : k;
  });
  return `${String(actionType ?? '?')}${values.length ? ` · ${values.join(', ')}` : ''}`;
}

export function summarize(kind: string, data: Record<string, unknown>, names: CalendarNames = () => undefined): string {
  if (kind === 'trigger') {
    const every = durationHint(data.intervalSeconds);
    const schedule = data.cron ? ` · cron ${String(data.cron)}` : every ? ` · every ${every}` : '';
    return `${String(data.triggerType ?? '?')}${schedule}`;
  }
  if (kind === 'condition') return condition(data, names);
  return action(data, names);
}
