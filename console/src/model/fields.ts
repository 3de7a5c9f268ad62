// The forms of the nodes, derived from the server's own validator (src/graph): which parameters
// an action, a schedule, a ticket filter or an age takes are src/graph's lists, and what kind
// of input each one needs (a choice, text with placeholders, a number of seconds, a calendar,
// JSON), whether it is required, which parameters go together (a delay waits seconds, until,
// or business time), which fields an operator tests and what its value must be are found by
// asking validateGraph what it accepts (probe.ts). So an action, parameter or operator added to
// src/graph appears in the palette and gets a working form without a change here, and a form
// can never offer what the server would refuse. Pure; unit-tested in test/unit/console.

import {
  ACTION_PARAMETERS,
  ACTION_TYPES,
  CHANGEABLE_TICKET_FIELDS,
  isCalendarId,
  NOW_FIELD,
  OPERATORS,
  SCHEDULE_PARAMETERS,
  TRIGGER_TYPES,
  type ActionType,
  type Operator,
  type TriggerType,
} from '../../../src/graph/index.ts';
import { contextPaths } from './context.ts';
import { ABSENT, accepts, describeFields, inside, namesCalendar, nodeSite, objectValueFields, SAMPLE_CALENDAR_ID, type FieldSpec } from './probe.ts';

export type { FieldKind, FieldSpec } from './probe.ts';

/** Derivations are asked often (every render of a form or a node) and never change: each is worked out once. */
function remembered<A, R>(work: (arg: A) => R): (arg: A) => R {
  const known = new Map<A, R>();
  return (arg) => {
    if (!known.has(arg)) known.set(arg, work(arg));
    return known.get(arg)!;
  };
}

const actionSite = nodeSite('action', 'manual');

/** The form of an action type: one field per parameter src/graph lists for it. */
export const actionFields = remembered((actionType: ActionType | string): FieldSpec[] => {
  const keys = (ACTION_PARAMETERS as Record<string, readonly string[]>)[actionType] ?? [];
  return describeFields(actionSite, { actionType }, keys);
});

/** The schedule fields of a scheduled trigger (its ticketFilter an object of its own fields). */
export function scheduleFields(): FieldSpec[] {
  return scheduleFieldsOnce(null);
}
const scheduleFieldsOnce = remembered((_: null): FieldSpec[] => describeFields(nodeSite('trigger', 'scheduled'), { triggerType: 'scheduled' }, SCHEDULE_PARAMETERS));

/** Parameters that are only valid together and exclude the others: a delay of `seconds`, of `until`, or of business time (`businessSeconds` with `calendarId`). */
export type Choice = { keys: string[]; label: string };

/**
 * The exclusive choices of an action's optional parameters, or null when they are simply
 * optional. They are the smallest sets of optional parameters that make the node valid, tried
 * when the node is not valid without any.
 */
export const actionChoices = remembered((actionType: ActionType | string): Choice[] | null => {
  const fields = actionFields(actionType);
  const base: Record<string, unknown> = { actionType };
  for (const f of fields) if (f.required) base[f.key] = f.sample;
  if (accepts(actionSite, base)) return null;
  const optional = fields.filter((f) => !f.required);
  const found: FieldSpec[][] = [];
  for (let size = 1; size <= optional.length; size++) {
    for (const set of subsets(optional, size)) {
      if (found.some((smaller) => smaller.every((f) => set.includes(f)))) continue;
      if (accepts(actionSite, { ...base, ...Object.fromEntries(set.map((f) => [f.key, f.sample])) })) found.push(set);
    }
  }
  if (found.length === 0) return null;
  return found.map((set) => ({ keys: set.map((f) => f.key), label: set.some((f) => f.kind === 'calendar') ? 'business time' : set.map((f) => f.key).join(' + ') }));
});

function subsets<T>(items: readonly T[], size: number): T[][] {
  if (size === 0) return [[]];
  return items.flatMap((item, i) => subsets(items.slice(i + 1), size - 1).map((rest) => [item, ...rest]));
}

/** Which of `choices` the data is at: the one whose parameters it has (-1 for none). */
export function choiceOf(data: Record<string, unknown>, choices: Choice[]): number {
  let best = -1;
  choices.forEach((c, i) => {
    if (c.keys.every((k) => Object.hasOwn(data, k)) && (best === -1 || c.keys.length > choices[best].keys.length)) best = i;
  });
  return best;
}

/** The data with the parameters of `choices[index]` (at first values) in place of those of the others. */
export function switchChoice(data: Record<string, unknown>, choices: Choice[], index: number, fields: FieldSpec[]): Record<string, unknown> {
  const next = { ...data };
  for (const c of choices) for (const k of c.keys) delete next[k];
  for (const k of choices[index].keys) {
    const field = fields.find((f) => f.key === k);
    next[k] = field ? initialValue(field) : '';
  }
  return next;
}

/** What an operator's value must be: nothing, a list, one value (`numeric`: a number or a date, not free text), a calendar's id, or an object of its own fields (an age). */
export type ValueKind =
  | { kind: 'none' }
  | { kind: 'list' }
  | { kind: 'single'; numeric: boolean }
  | { kind: 'calendar' }
  | { kind: 'object'; fields: FieldSpec[] };

const leafSite = nodeSite('condition', 'ticket_updated');

/** The fields an operator tests, what the form offers for them, as the validator accepts them. */
export type FieldOptions = {
  /** Fields offered, in order: bare ticket fields (changed…), `now`, then the context's paths. */
  options: string[];
  /** True when only those are accepted (a choice); else they are suggestions for a path typed freely. */
  restricted: boolean;
  /** A `data.*` path the operator also accepts, as an example (`data.x`), when the trigger's runs have `data`. */
  dataPath: string | null;
};

function fieldAccepted(operator: string, field: string): boolean {
  return accepts(inside(leafSite, { operator }, 'field'), field);
}

const fieldOptionsOf = remembered((key: string): FieldOptions => {
  const [operator, triggerType] = key.split(' ');
  const paths = contextPaths(triggerType);
  const concrete = paths.filter((p) => !p.endsWith('.'));
  const prefixes = paths.filter((p) => p.endsWith('.')).map((p) => `${p}x`);
  const bare = CHANGEABLE_TICKET_FIELDS.filter((f) => fieldAccepted(operator, f));
  const options = [
    ...bare,
    ...(fieldAccepted(operator, NOW_FIELD) ? [NOW_FIELD] : []),
    // `ticket.status` and `status` name the same field where both are accepted: offered once.
    ...concrete.filter((p) => fieldAccepted(operator, p) && !bare.some((f) => p === `ticket.${f}`)),
  ];
  return {
    options,
    restricted: concrete.some((p) => !fieldAccepted(operator, p)),
    dataPath: prefixes.find((p) => fieldAccepted(operator, p)) ?? null,
  };
});

export function fieldOptions(operator: Operator | string, triggerType: TriggerType | string): FieldOptions {
  return fieldOptionsOf(`${operator} ${triggerType}`);
}

/** Fields a new condition starts with, when its operator accepts them: what people test most. */
const PREFERRED_FIELDS = ['ticket.subject', 'status'];

/** The field a condition of `operator` gets: `current` when the operator accepts it, else a preferred one, else the first it accepts. */
export function defaultField(operator: string, triggerType: TriggerType | string = 'ticket_updated', current?: unknown): string {
  if (typeof current === 'string' && current !== '' && fieldAccepted(operator, current)) return current;
  const { options } = fieldOptions(operator, triggerType);
  return PREFERRED_FIELDS.find((f) => options.includes(f)) ?? options[0] ?? 'ticket.subject';
}

export const operatorValue = remembered((operator: Operator | string): ValueKind => {
  const site = inside(leafSite, { field: defaultField(operator), operator }, 'value');
  const ok = (value: unknown) => accepts(site, value);
  if (ok(ABSENT)) return { kind: 'none' };
  if (ok(['a'])) return { kind: 'list' };
  if (!ok('a') && !ok(1) && ok(SAMPLE_CALENDAR_ID) && namesCalendar(site)) return { kind: 'calendar' };
  const fields = objectValueFields(site);
  if (fields) return { kind: 'object', fields };
  return { kind: 'single', numeric: !ok('a') && ok(1) };
});

/** Everything the palette offers: every operator, as a condition, and every action. */
export const PALETTE = {
  operators: OPERATORS,
  actions: ACTION_TYPES,
  triggers: TRIGGER_TYPES,
};

/** The value a field starts at: the first option, empty text (the form then asks for it), an hour. */
export function initialValue(field: FieldSpec): unknown {
  switch (field.kind) {
    case 'choice':
      return field.options![0];
    case 'choices':
    case 'members':
    case 'list':
      return [];
    case 'number':
      return field.unit === 'seconds' ? 3600 : 60;
    case 'object':
      return objectStart(field.fields!);
    case 'json':
      return {};
    default:
      return '';
  }
}

function objectStart(fields: FieldSpec[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => f.required).map((f) => [f.key, initialValue(f)]));
}

/**
 * The data a node gets when added from the palette: each required parameter at a first value
 * (empty text the form then asks for), and where the optional parameters are exclusive
 * choices, the first of them.
 */
export function newActionData(actionType: string): Record<string, unknown> {
  const fields = actionFields(actionType);
  const data: Record<string, unknown> = { actionType };
  for (const field of fields) if (field.required) data[field.key] = initialValue(field);
  const choices = actionChoices(actionType);
  return choices ? switchChoice(data, choices, 0, fields) : data;
}

/** The value a condition of this operator starts with. */
export function initialConditionValue(value: ValueKind): unknown {
  if (value.kind === 'list') return [];
  if (value.kind === 'single') return value.numeric ? 0 : '';
  if (value.kind === 'calendar') return '';
  if (value.kind === 'object') return objectStart(value.fields);
  return undefined;
}

export function newConditionData(operator: string, triggerType: TriggerType | string = 'ticket_updated'): Record<string, unknown> {
  const value = initialConditionValue(operatorValue(operator));
  return { field: defaultField(operator, triggerType), operator, ...(value !== undefined ? { value } : {}) };
}

/**
 * A leaf moved to another operator: its field kept when the operator takes it (else the one it
 * would start with), its value kept when it is of the kind the operator takes.
 */
export function changeOperator(leaf: Record<string, unknown>, operator: string, triggerType: TriggerType | string): Record<string, unknown> {
  const kind = operatorValue(operator);
  const next: Record<string, unknown> = { ...leaf, operator, field: defaultField(operator, triggerType, leaf.field) };
  const old = leaf.value;
  if (kind.kind === 'none') delete next.value;
  else if (kind.kind === 'list') next.value = Array.isArray(old) ? old : old === undefined || old === '' || typeof old === 'object' ? [] : [old];
  else if (kind.kind === 'single') next.value = Array.isArray(old) ? (old[0] ?? '') : old === undefined || (typeof old === 'object' && old !== null) ? initialConditionValue(kind) : old;
  else if (kind.kind === 'calendar') next.value = isCalendarId(old) ? old : '';
  else next.value = typeof old === 'object' && old !== null && !Array.isArray(old) ? old : initialConditionValue(kind);
  return next;
}

