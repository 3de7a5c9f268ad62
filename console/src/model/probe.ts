// How the console learns what a parameter is: by asking src/graph's validator what it accepts
// at that place of a graph, and src/graph's calendarReferences whether a value there names a
// calendar. A "site" is such a place: a way to build a graph with a value there (or without
// one) and the path validateGraph reports problems of that value at. Pure; the forms built from
// it are in fields.ts, unit-tested in test/unit/console.

import {
  AGE_PARAMETERS,
  APPROVAL_QUORUMS,
  APPROVAL_TIMEOUT_OUTCOMES,
  calendarReferences,
  HTTP_METHODS,
  memberReferences,
  RESOLUTION_TYPES,
  TICKET_FILTER_PARAMETERS,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  TRIGGER_TYPES,
  validateGraph,
  type TriggerType,
  type WorkflowGraph,
} from '../../../src/graph/index.ts';

/** Stands for "the parameter is left out" where a site is given a value. */
export const ABSENT: unique symbol = Symbol('absent');

export type Site = {
  /** The graph with `value` at this place, or without the key when `value` is ABSENT. */
  build: (value: unknown) => unknown;
  trigger: TriggerType;
  /** Where validateGraph reports this value's problems (`workflowJson.nodes[1].data.until`). */
  path: string;
};

/** `choice`: one of `options`; `choices`: a list of some of `options`; `text`: a string (with {{placeholders}} when `placeholders`); `number`; `calendar`: a calendar's id; `members`: user ids of the workspace's members; `list`: a list of strings; `object`: keys of its own (`fields`); `json`: any JSON value; `textOrJson`: text, or JSON when it parses as an object or list. */
export type FieldKind = 'choice' | 'choices' | 'text' | 'textOrJson' | 'number' | 'calendar' | 'members' | 'list' | 'object' | 'json';

export type FieldSpec = {
  key: string;
  kind: FieldKind;
  required: boolean;
  options?: readonly string[];
  placeholders: boolean;
  multiline: boolean;
  /** A number that counts seconds (a duration, shown with a readable hint). */
  unit?: 'seconds';
  /** The fields of an `object`. */
  fields?: FieldSpec[];
  /** A value the validator accepts here (how combinations of parameters are tried). */
  sample: unknown;
};

/** Lists of values the API knows; a parameter that takes exactly one (or a list) of them is a choice. */
const VOCABULARIES: readonly (readonly string[])[] = [TICKET_STATUSES, TICKET_PRIORITIES, RESOLUTION_TYPES, HTTP_METHODS, TRIGGER_TYPES, APPROVAL_QUORUMS, APPROVAL_TIMEOUT_OUTCOMES];
/** Parameter lists of src/graph for values that are objects of their own (a schedule's ticketFilter, an age). */
const OBJECT_SHAPES: readonly (readonly string[])[] = [TICKET_FILTER_PARAMETERS, AGE_PARAMETERS];

export const NOT_A_CHOICE = 'zz-not-a-choice';
/** Syntactically a calendar id (a UUID); whether one exists is the server's to say. */
export const SAMPLE_CALENDAR_ID = '00000000-0000-4000-8000-000000000000';
const TEXTS = ['some text', '@daily', 'UTC', '2030-01-01T09:00:00Z'];
const PLACEHOLDER = '{{ticket.subject}}';
/** A parameter that takes this much text gets a text area. */
const LONG_TEXT = 'x'.repeat(1000);
const NOT_A_PARAMETER = 'zzNotAParameter';
/** Values tried, in order, to find one a site accepts. */
const SAMPLES: readonly unknown[] = [
  60,
  ...TEXTS,
  PLACEHOLDER,
  SAMPLE_CALENDAR_ID,
  ...VOCABULARIES.map((v) => v[0]),
  ...VOCABULARIES.map((v) => [v[0]]),
  ['some text'],
  {},
  true,
];

function problemsAt(graph: unknown, trigger: TriggerType, path: string): boolean {
  const result = validateGraph(graph, trigger);
  if (result.ok) return false;
  return result.issues.some((i) => i.path === path || i.path.startsWith(`${path}.`) || i.path.startsWith(`${path}[`));
}

/** True when validateGraph reports nothing at the site, or inside it, for `value` there. */
export function accepts(site: Site, value: unknown): boolean {
  return !problemsAt(site.build(value), site.trigger, site.path);
}

/** True when src/graph counts a calendar id at this site as naming a calendar. */
export function namesCalendar(site: Site): boolean {
  const graph = site.build(SAMPLE_CALENDAR_ID) as WorkflowGraph;
  return calendarReferences(graph).some((r) => r.path === site.path);
}

/** True when src/graph counts the user ids of a list at this site as members of the workspace (approvers). */
export function namesMembers(site: Site): boolean {
  const graph = site.build(['someone']) as WorkflowGraph;
  return memberReferences(graph).some((r) => r.path.startsWith(`${site.path}[`));
}

/** The site of node data: a trigger's (`scheduled`), or a condition's or action's after a trigger of `trigger`. */
export function nodeSite(kind: 'trigger' | 'condition' | 'action', trigger: TriggerType): Site {
  if (kind === 'trigger') {
    return { trigger, path: 'workflowJson.nodes[0].data', build: (data) => ({ nodes: [{ id: 't', type: 'trigger', data }], edges: [] }) };
  }
  return {
    trigger,
    path: 'workflowJson.nodes[1].data',
    build: (data) => ({
      nodes: [
        { id: 't', type: 'trigger', data: { triggerType: trigger } },
        { id: 'n', type: kind, data },
      ],
      edges: [{ source: 't', target: 'n' }],
    }),
  };
}

/** The site of `key` in the object at `site` whose other keys are `base`. */
export function inside(site: Site, base: Record<string, unknown>, key: string): Site {
  return {
    trigger: site.trigger,
    path: `${site.path}.${key}`,
    build: (value) => {
      const { [key]: _dropped, ...others } = base;
      return site.build(value === ABSENT ? others : { ...others, [key]: value });
    },
  };
}

/**
 * What the value at `site` is, or undefined when this site says nothing about it: no sample
 * is accepted there (the parameter needs another one beside it), or every kind is (a problem of
 * the whole node hides the parameter's own).
 */
function describeAt(site: Site, key: string, required: boolean, depth: number): FieldSpec | undefined {
  const ok = (value: unknown) => accepts(site, value);
  const sample = SAMPLES.find(ok);
  if (sample === undefined) return undefined;
  if (ok(NOT_A_CHOICE) && ok(60) && ok(true)) return undefined;
  const base = { key, required, placeholders: false, multiline: false, sample };
  if (!ok(NOT_A_CHOICE)) {
    const vocabulary = VOCABULARIES.find((v) => v.every(ok));
    if (vocabulary) return { ...base, kind: 'choice', options: vocabulary };
    if (!ok(60) && ok(SAMPLE_CALENDAR_ID) && namesCalendar(site)) return { ...base, kind: 'calendar' };
    const listed = VOCABULARIES.find((v) => v.every((value) => ok([value])));
    if (listed && !ok([NOT_A_CHOICE])) return { ...base, kind: 'choices', options: listed };
  }
  if (TEXTS.some(ok) || ok(PLACEHOLDER)) {
    return { ...base, kind: ok({}) ? 'textOrJson' : 'text', placeholders: ok(PLACEHOLDER), multiline: ok(LONG_TEXT) };
  }
  if (ok(60)) return { ...base, kind: 'number', ...(/seconds$/i.test(key) ? { unit: 'seconds' as const } : {}) };
  if (ok(['some text'])) return { ...base, kind: namesMembers(site) ? 'members' : 'list' };
  const fields = depth < 2 ? objectFields(site, depth + 1) : undefined;
  if (fields) return { ...base, kind: 'object', fields };
  return { ...base, kind: 'json', multiline: true };
}

/**
 * One field per key of the object at `site` (node data, a ticketFilter, an age), in the order
 * given. Whether a key is required is asked with the others left out; what it is, where the
 * validator constrains it: with the others left out, or else beside one other key (a delay's
 * calendarId says what it is only beside businessSeconds). `spec` is undefined for a key no
 * such place describes.
 */
function describeKeys(site: Site, base: Record<string, unknown>, keys: readonly string[], depth: number): Array<{ key: string; required: boolean; spec: FieldSpec | undefined }> {
  const required = keys.map((key) => !accepts(inside(site, base, key), ABSENT));
  const alone = keys.map((key, i) => describeAt(inside(site, base, key), key, required[i], depth));
  return keys.map((key, i) => {
    let spec = alone[i];
    for (let j = 0; j < keys.length && !spec; j++) {
      if (j === i || !alone[j]) continue;
      spec = describeAt(inside(site, { ...base, [keys[j]]: alone[j]!.sample }, key), key, required[i], depth);
    }
    return { key, required: required[i], spec };
  });
}

/** The fields of the object at `site` whose keys are `keys` (beside `base`); a key nothing describes takes any JSON. */
export function describeFields(site: Site, base: Record<string, unknown>, keys: readonly string[]): FieldSpec[] {
  return describeKeys(site, base, keys, 0).map(({ key, required, spec }) => spec ?? { key, kind: 'json', required, placeholders: false, multiline: true, sample: {} });
}

/** The fields of an object value at `site` when it has the keys of one of src/graph's parameter lists, and no others. */
function objectFields(site: Site, depth: number): FieldSpec[] | undefined {
  for (const keys of OBJECT_SHAPES) {
    const described = describeKeys(site, {}, keys, depth);
    if (described.some((d) => d.spec === undefined)) continue;
    const fields = described.map((d) => d.spec!);
    const filled = Object.fromEntries(fields.filter((f) => f.required).map((f) => [f.key, f.sample]));
    if (!accepts(site, filled)) continue;
    if (SAMPLES.some((value) => accepts(site, { ...filled, [NOT_A_PARAMETER]: value }))) continue;
    return fields;
  }
  return undefined;
}

/** The fields of the object value at `site` (an age), when it is one; for an operator's value. */
export function objectValueFields(site: Site): FieldSpec[] | undefined {
  return objectFields(site, 1);
}
