// The forms of the nodes, derived from the server's own validator (src/graph): which parameters
// an action takes is src/graph's list, and what kind of input each one needs (a choice, text
// with placeholders, a number, JSON), whether it is required and what an operator's value must
// be are found by asking validateGraph what it accepts. So an action, parameter or operator
// added to src/graph appears in the palette and gets a working form without a change here, and
// a form can never offer what the server would refuse. Pure; unit-tested in test/unit/console.

import {
  ACTION_PARAMETERS,
  ACTION_TYPES,
  HTTP_METHODS,
  OPERATORS,
  RESOLUTION_TYPES,
  SCHEDULE_PARAMETERS,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  TRIGGER_TYPES,
  validateGraph,
  type ActionType,
  type Operator,
  type TriggerType,
} from '../../../src/graph/index.ts';

/** `choice`: one of `options`; `text`: a string (with {{placeholders}} when `placeholders`); `json`: any JSON value, text that is not JSON kept as text. */
export type FieldKind = 'choice' | 'text' | 'number' | 'json' | 'textOrJson';

export type FieldSpec = {
  key: string;
  kind: FieldKind;
  required: boolean;
  options?: readonly string[];
  placeholders: boolean;
  multiline: boolean;
};

/** Lists of values the API knows; a parameter that takes exactly one of them is a choice. */
const VOCABULARIES: readonly (readonly string[])[] = [TICKET_STATUSES, TICKET_PRIORITIES, RESOLUTION_TYPES, HTTP_METHODS, TRIGGER_TYPES];
const NOT_A_CHOICE = 'zz-not-a-choice';
const TEXTS = ['some text', '@daily', 'UTC', '2030-01-01T09:00:00Z'];
const LONG_TEXT = 'x'.repeat(5000);

type Probe = (value: unknown, present?: boolean) => boolean;

/** True when validateGraph reports nothing at `path` or inside it for `graph`. */
function clean(graph: unknown, triggerType: TriggerType, path: string): boolean {
  const result = validateGraph(graph, triggerType);
  if (result.ok) return true;
  return !result.issues.some((i) => i.path === path || i.path.startsWith(`${path}.`) || i.path.startsWith(`${path}[`));
}

function scheduleProbe(key: string): Probe {
  return (value, present = true) =>
    clean(
      { nodes: [{ id: 't', type: 'trigger', data: { triggerType: 'scheduled', ...(present ? { [key]: value } : {}) } }], edges: [] },
      'scheduled',
      `workflowJson.nodes[0].data.${key}`,
    );
}

function describe(key: string, accepts: Probe): FieldSpec {
  const required = !accepts(undefined, false);
  const base = { key, required, placeholders: false, multiline: false };
  if (!accepts(NOT_A_CHOICE)) {
    const vocabulary = VOCABULARIES.find((v) => v.every((value) => accepts(value)));
    if (vocabulary) return { ...base, kind: 'choice', options: vocabulary };
  }
  const text = TEXTS.some((t) => accepts(t)) || accepts('{{ticket.subject}}');
  if (text) {
    return {
      ...base,
      kind: accepts({}) ? 'textOrJson' : 'text',
      placeholders: accepts('{{ticket.subject}}'),
      multiline: accepts(LONG_TEXT),
    };
  }
  if (accepts(60)) return { ...base, kind: 'number' };
  return { ...base, kind: 'json', multiline: true };
}

/** The form of an action type: one field per parameter src/graph lists for it. */
export function actionFields(actionType: ActionType | string): FieldSpec[] {
  const keys = (ACTION_PARAMETERS as Record<string, readonly string[]>)[actionType] ?? [];
  return keys.map((key) => describe(key, actionProbe(actionType, key)));
}

/** The schedule fields of a scheduled trigger. */
export function scheduleFields(): FieldSpec[] {
  return SCHEDULE_PARAMETERS.map((key) => describe(key, scheduleProbe(key)));
}

/** What an operator's value must be: nothing, a list, or one value (`numeric`: a number or a date, not free text). */
export type ValueKind = { kind: 'none' } | { kind: 'list' } | { kind: 'single'; numeric: boolean };

function leafProbe(operator: string): Probe {
  return (value, present = true) =>
    clean(
      {
        nodes: [
          { id: 't', type: 'trigger', data: { triggerType: 'ticket_updated' } },
          { id: 'c', type: 'condition', data: { field: 'status', operator, ...(present ? { value } : {}) } },
        ],
        edges: [{ source: 't', target: 'c' }],
      },
      'ticket_updated',
      'workflowJson.nodes[1].data.value',
    );
}

export function operatorValue(operator: Operator | string): ValueKind {
  const accepts = leafProbe(operator);
  if (accepts(undefined, false)) return { kind: 'none' };
  if (accepts(['a'])) return { kind: 'list' };
  return { kind: 'single', numeric: !accepts('a') && accepts(1) };
}

/** Everything the palette offers: every operator, as a condition, and every action. */
export const PALETTE = {
  operators: OPERATORS,
  actions: ACTION_TYPES,
  triggers: TRIGGER_TYPES,
};

function actionGraph(data: Record<string, unknown>) {
  return {
    nodes: [
      { id: 't', type: 'trigger', data: { triggerType: 'manual' } },
      { id: 'a', type: 'action', data },
    ],
    edges: [{ source: 't', target: 'a' }],
  };
}

function actionProbe(actionType: string, key: string): Probe {
  return (value, present = true) =>
    clean(actionGraph({ actionType, ...(present ? { [key]: value } : {}) }), 'manual', `workflowJson.nodes[1].data.${key}`);
}

/** A problem of the parameters together (delay needs seconds or until), not of one of them. */
function wholeDataProblem(data: Record<string, unknown>): boolean {
  const result = validateGraph(actionGraph(data), 'manual');
  return !result.ok && result.issues.some((i) => i.path === 'workflowJson.nodes[1].data');
}

function initialValue(field: FieldSpec): unknown {
  if (field.kind === 'choice') return field.options![0];
  if (field.kind === 'number') return 60;
  if (field.kind === 'json') return {};
  return '';
}

/**
 * The data a node gets when added from the palette: each required parameter at a first value
 * (empty text the form then asks for), and where the parameters are only valid together (one
 * of two), the first optional one that makes them so.
 */
export function newActionData(actionType: string): Record<string, unknown> {
  const fields = actionFields(actionType);
  const data: Record<string, unknown> = { actionType };
  for (const field of fields) if (field.required) data[field.key] = initialValue(field);
  if (wholeDataProblem(data)) {
    for (const field of fields) {
      if (field.required) continue;
      const candidate = { ...data, [field.key]: initialValue(field) };
      if (!wholeDataProblem(candidate)) return candidate;
    }
  }
  return data;
}

export function newConditionData(operator: string): Record<string, unknown> {
  const value = operatorValue(operator);
  const isChange = operator.startsWith('changed');
  const data: Record<string, unknown> = { field: isChange ? 'status' : 'ticket.subject', operator };
  if (value.kind === 'list') data.value = [];
  else if (value.kind === 'single') data.value = value.numeric ? 0 : '';
  return data;
}
