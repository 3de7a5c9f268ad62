// The node forms are derived from the server's validator (console/src/model/fields.ts): these
// tests hold the derivation to what validateGraph accepts, for every action and operator.
import { describe, expect, it } from 'vitest';
import {
  ACTION_PARAMETERS,
  ACTION_TYPES,
  AGE_PARAMETERS,
  BUSINESS_HOURS_OPERATORS,
  DATE_CONTEXT_FIELDS,
  HTTP_METHODS,
  NOW_FIELD,
  OPERATORS,
  RESOLUTION_TYPES,
  TICKET_FILTER_PARAMETERS,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  TRIGGER_TYPES,
  validateGraph,
} from '../../../src/graph/index.ts';
import {
  actionChoices,
  actionFields,
  changeOperator,
  choiceOf,
  defaultField,
  fieldOptions,
  newActionData,
  newConditionData,
  operatorValue,
  PALETTE,
  scheduleFields,
  switchChoice,
  type ValueKind,
} from '../../../console/src/model/fields.ts';
import { contextPaths } from '../../../console/src/model/context.ts';

const withNode = (node: Record<string, unknown>, triggerType = 'manual') => ({
  nodes: [{ id: 't', type: 'trigger', data: { triggerType } }, { id: 'n', ...node }],
  edges: [{ source: 't', target: 'n' }],
});
const issuesOf = (node: Record<string, unknown>, triggerType = 'manual') => {
  const result = validateGraph(withNode(node, triggerType), triggerType as never);
  return result.ok ? [] : result.issues;
};

describe('actionFields', () => {
  it('has one field per parameter src/graph lists, for every action', () => {
    for (const actionType of ACTION_TYPES) {
      expect(actionFields(actionType).map((f) => f.key)).toEqual([...ACTION_PARAMETERS[actionType]]);
    }
  });

  it('finds the kind of each parameter from what the validator accepts', () => {
    const field = (a: string, k: string) => actionFields(a).find((f) => f.key === k);
    expect(field('set_status', 'status')).toMatchObject({ kind: 'choice', required: true, options: TICKET_STATUSES });
    expect(field('set_priority', 'priority')).toMatchObject({ kind: 'choice', options: TICKET_PRIORITIES });
    expect(field('set_resolution_type', 'resolutionType')).toMatchObject({ kind: 'choice', options: RESOLUTION_TYPES });
    expect(field('http_request', 'method')).toMatchObject({ kind: 'choice', required: true, options: HTTP_METHODS });
    expect(field('send_reply', 'body')).toMatchObject({ kind: 'text', required: true, placeholders: true, multiline: true });
    expect(field('send_reply', 'bodyHtml')).toMatchObject({ kind: 'text', required: false, placeholders: true });
    expect(field('add_tag', 'tag')).toMatchObject({ kind: 'text', required: true, placeholders: true, multiline: false });
    expect(field('assign_ticket', 'assignTo')).toMatchObject({ kind: 'text', required: true, placeholders: true });
    expect(field('http_request', 'url')).toMatchObject({ kind: 'text', required: true, placeholders: true, multiline: false });
    expect(field('http_request', 'headers')).toMatchObject({ kind: 'json', required: false });
    expect(field('http_request', 'body')).toMatchObject({ kind: 'textOrJson', required: false, placeholders: true });
    expect(field('delay', 'seconds')).toMatchObject({ kind: 'number', required: false, unit: 'seconds' });
    expect(field('delay', 'until')).toMatchObject({ kind: 'text', required: false, placeholders: false });
    expect(field('delay', 'businessSeconds')).toMatchObject({ kind: 'number', required: false, unit: 'seconds' });
    expect(field('delay', 'calendarId')).toMatchObject({ kind: 'calendar', required: false });
    expect(field('wait_for_reply', 'timeoutSeconds')).toMatchObject({ kind: 'number', required: true, unit: 'seconds' });
    expect(field('wait_for_reply', 'calendarId')).toMatchObject({ kind: 'calendar', required: false });
  });

  it('finds a calendar picker exactly where src/graph reads a calendar id', () => {
    const withCalendar = ACTION_TYPES.flatMap((a) => actionFields(a).filter((f) => f.kind === 'calendar').map((f) => `${a}.${f.key}`));
    expect(withCalendar).toEqual(['delay.calendarId', 'wait_for_reply.calendarId', 'request_approval.calendarId']);
  });

  it('offers the workspace\'s members exactly where src/graph names members (approvers), and an approval\'s choices', () => {
    const withMembers = ACTION_TYPES.flatMap((a) => actionFields(a).filter((f) => f.kind === 'members').map((f) => `${a}.${f.key}`));
    expect(withMembers).toEqual(['request_approval.approvers']);
    const field = (k: string) => actionFields('request_approval').find((f) => f.key === k);
    expect(field('approvers')).toMatchObject({ required: true });
    expect(field('question')).toMatchObject({ kind: 'text', required: true, placeholders: true, multiline: true });
    expect(field('quorum')).toMatchObject({ kind: 'choice', required: false, options: ['any', 'all'] });
    expect(field('timeoutSeconds')).toMatchObject({ kind: 'number', required: false, unit: 'seconds' });
    expect(field('onTimeout')).toMatchObject({ kind: 'choice', required: false, options: ['reject', 'approve'] });
    expect(actionChoices('request_approval')).toBeNull();
  });

  it('offers every option of a choice as the validator accepts it', () => {
    for (const actionType of ACTION_TYPES) {
      for (const field of actionFields(actionType).filter((f) => f.kind === 'choice')) {
        for (const option of field.options!) {
          const data = { ...newActionData(actionType), [field.key]: option };
          expect(issuesOf({ type: 'action', data }).filter((i) => i.path.endsWith(`.${field.key}`))).toEqual([]);
        }
      }
    }
  });
});

describe('actionChoices', () => {
  it('offers a delay of seconds, until or business time, the combinations the validator allows', () => {
    expect(actionChoices('delay')).toEqual([
      { keys: ['seconds'], label: 'seconds' },
      { keys: ['until'], label: 'until' },
      { keys: ['businessSeconds', 'calendarId'], label: 'business time' },
    ]);
  });

  it('has none where the optional parameters are simply optional', () => {
    for (const actionType of ACTION_TYPES.filter((a) => a !== 'delay')) expect(actionChoices(actionType), actionType).toBeNull();
  });

  it('switches between the choices, each of which the validator accepts once filled in', () => {
    const choices = actionChoices('delay')!;
    const fields = actionFields('delay');
    let data = newActionData('delay');
    expect(choiceOf(data, choices)).toBe(0);
    const filledIn = { seconds: 90, until: '2030-01-01T09:00:00Z', businessSeconds: 57600, calendarId: CALENDAR };
    for (let i = 0; i < choices.length; i++) {
      data = switchChoice(data, choices, i, fields);
      expect(choiceOf(data, choices)).toBe(i);
      expect(Object.keys(data).sort()).toEqual(['actionType', ...choices[i].keys].sort());
      const filled = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, k in filledIn ? filledIn[k as keyof typeof filledIn] : v]));
      expect(issuesOf({ type: 'action', data: filled }), choices[i].label).toEqual([]);
    }
    // Two choices at once is what the validator refuses; the form shows the one with most of its keys.
    expect(choiceOf({ actionType: 'delay', seconds: 1, businessSeconds: 2, calendarId: CALENDAR }, choices)).toBe(2);
    expect(choiceOf({ actionType: 'delay' }, choices)).toBe(-1);
  });
});

describe('the palette', () => {
  it('offers every operator and action type of src/graph', () => {
    expect(PALETTE.operators).toEqual(OPERATORS);
    expect(PALETTE.actions).toEqual(ACTION_TYPES);
  });

  it('adds action nodes the validator faults only for the text still to be written and the members still to be picked', () => {
    for (const actionType of ACTION_TYPES) {
      const data = newActionData(actionType);
      const unset = (v: unknown) => v === '' || (Array.isArray(v) && v.length === 0);
      const empty = actionFields(actionType).filter((f) => f.required && unset(data[f.key])).map((f) => `workflowJson.nodes[1].data.${f.key}`);
      expect(issuesOf({ type: 'action', data }).map((i) => i.path).sort(), actionType).toEqual(empty.sort());
      const filled = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v === '' ? (k === 'url' ? 'https://example.com/hook' : 'text') : Array.isArray(v) && v.length === 0 ? ['someone'] : v]));
      expect(issuesOf({ type: 'action', data: filled }), actionType).toEqual([]);
    }
  });

  it('adds condition nodes the validator faults at most for the value still to be written', () => {
    for (const operator of OPERATORS) {
      const data = newConditionData(operator);
      const faults = issuesOf({ type: 'condition', data }, 'ticket_updated').map((i) => i.path);
      expect(faults.every((p) => p === 'workflowJson.nodes[1].data.value'), `${operator}: ${faults}`).toBe(true);
    }
  });
});

/** A calendar id as a workflow names one (whether the workspace has it is the server's to say). */
const CALENDAR = '3f0c8a52-6f1e-4d8b-9a51-0c1c2b7e4d10';

/** A value of the kind the derivation says, as a person would fill it in. */
function valueOfKind(kind: ValueKind): { value?: unknown } {
  switch (kind.kind) {
    case 'none':
      return {};
    case 'list':
      return { value: ['open'] };
    case 'single':
      return { value: kind.numeric ? 3 : 'open' };
    case 'calendar':
      return { value: CALENDAR };
    case 'object':
      return { value: Object.fromEntries(kind.fields.map((f) => [f.key, f.kind === 'calendar' ? CALENDAR : 57600])) };
  }
}

describe('operatorValue', () => {
  it('says what value each operator takes, as the validator does', () => {
    expect(operatorValue('is_empty')).toEqual({ kind: 'none' });
    expect(operatorValue('changed')).toEqual({ kind: 'none' });
    expect(operatorValue('in')).toEqual({ kind: 'list' });
    expect(operatorValue('not_in')).toEqual({ kind: 'list' });
    expect(operatorValue('contains')).toEqual({ kind: 'single', numeric: false });
    expect(operatorValue('greater_than')).toEqual({ kind: 'single', numeric: true });
    expect(operatorValue('in_business_hours')).toEqual({ kind: 'calendar' });
    expect(operatorValue('outside_business_hours')).toEqual({ kind: 'calendar' });
    for (const operator of OPERATORS) {
      const kind = operatorValue(operator);
      const { field } = newConditionData(operator);
      expect(issuesOf({ type: 'condition', data: { field, operator, ...valueOfKind(kind) } }, 'ticket_updated'), operator).toEqual([]);
    }
  });

  it('describes an age as its seconds and an optional calendar, from src/graph\'s list', () => {
    for (const operator of ['older_than', 'newer_than']) {
      const kind = operatorValue(operator);
      expect(kind.kind).toBe('object');
      const fields = (kind as Extract<ValueKind, { kind: 'object' }>).fields;
      expect(fields.map((f) => f.key)).toEqual([...AGE_PARAMETERS]);
      expect(fields[0]).toMatchObject({ key: 'seconds', kind: 'number', unit: 'seconds', required: true });
      expect(fields[1]).toMatchObject({ key: 'calendarId', kind: 'calendar', required: false });
      // Calendar time: the seconds alone.
      expect(issuesOf({ type: 'condition', data: { field: 'ticket.updatedAt', operator, value: { seconds: 57600 } } })).toEqual([]);
    }
  });
});

describe('fieldOptions', () => {
  it('offers now and the date fields of the context for the business-hours operators, and nothing else', () => {
    for (const operator of BUSINESS_HOURS_OPERATORS) {
      for (const trigger of TRIGGER_TYPES) {
        const options = fieldOptions(operator, trigger);
        expect(options.restricted).toBe(true);
        expect(options.options).toEqual([NOW_FIELD, ...DATE_CONTEXT_FIELDS.filter((f) => contextPaths(trigger).includes(f))]);
        expect(options.dataPath).toBe(contextPaths(trigger).includes('data.') ? 'data.x' : null);
        for (const field of [...options.options, ...(options.dataPath ? [options.dataPath] : [])]) {
          expect(issuesOf({ type: 'condition', data: { field, operator, value: CALENDAR } }, trigger), `${operator} on ${field}`).toEqual([]);
        }
      }
    }
  });

  it('offers the date fields, not now, for the ages', () => {
    expect(fieldOptions('older_than', 'message_received')).toEqual({ options: DATE_CONTEXT_FIELDS.filter((f) => !f.startsWith('sla.')), restricted: true, dataPath: null });
    expect(fieldOptions('older_than', 'sla_breached').options).toEqual(['ticket.createdAt', 'ticket.updatedAt', 'sla.dueAt']);
    expect(fieldOptions('newer_than', 'ticket_created').options).toEqual(['ticket.createdAt', 'ticket.updatedAt']);
  });

  it('suggests every path of the context, and now where an instant is compared', () => {
    expect(fieldOptions('equals', 'ticket_created')).toEqual({ options: contextPaths('ticket_created'), restricted: false, dataPath: null });
    expect(fieldOptions('less_than', 'ticket_created').options).toEqual([NOW_FIELD, ...contextPaths('ticket_created')]);
    expect(fieldOptions('changed_to', 'ticket_updated')).toMatchObject({ options: ['subject', 'status', 'priority', 'assignedTo', 'resolutionType', 'tags', 'customerEmail', 'customerName'], restricted: true });
  });

  it('starts a condition on a field its operator takes, and keeps a field the next operator takes too', () => {
    expect(defaultField('equals')).toBe('ticket.subject');
    expect(defaultField('changed')).toBe('status');
    expect(defaultField('in_business_hours')).toBe(NOW_FIELD);
    expect(defaultField('older_than')).toBe('ticket.createdAt');
    expect(defaultField('outside_business_hours', 'ticket_created', 'ticket.createdAt')).toBe('ticket.createdAt');
    expect(defaultField('older_than', 'ticket_created', NOW_FIELD)).toBe('ticket.createdAt');

    const moved = changeOperator({ field: 'ticket.subject', operator: 'contains', value: 'urgent' }, 'outside_business_hours', 'ticket_created');
    expect(moved).toEqual({ field: NOW_FIELD, operator: 'outside_business_hours', value: '' });
    const aged = changeOperator({ ...moved, field: 'ticket.updatedAt', value: CALENDAR }, 'older_than', 'ticket_created');
    expect(aged).toEqual({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 3600 } });
    expect(changeOperator({ ...moved, value: CALENDAR }, 'in_business_hours', 'ticket_created').value).toBe(CALENDAR);
    expect(changeOperator(aged, 'equals', 'ticket_created')).toEqual({ field: 'ticket.updatedAt', operator: 'equals', value: '' });
    expect(changeOperator({ field: 'ticket.tags', operator: 'contains', value: 'vip' }, 'in', 'ticket_created').value).toEqual(['vip']);
  });
});

describe('scheduleFields', () => {
  it('describes the schedule of a scheduled trigger', () => {
    expect(scheduleFields().map((f) => [f.key, f.kind, f.required])).toEqual([
      ['cron', 'text', false],
      ['intervalSeconds', 'number', false],
      ['timezone', 'text', false],
      ['ticketFilter', 'object', false],
    ]);
  });

  it('describes the ticket filter field by field, its calendar among them', () => {
    const filter = scheduleFields().find((f) => f.key === 'ticketFilter')!;
    expect(filter.fields!.map((f) => f.key)).toEqual([...TICKET_FILTER_PARAMETERS]);
    const field = (k: string) => filter.fields!.find((f) => f.key === k);
    expect(field('status')).toMatchObject({ kind: 'choices', options: TICKET_STATUSES, required: false });
    expect(field('priority')).toMatchObject({ kind: 'choices', options: TICKET_PRIORITIES, required: false });
    expect(field('tagsAny')).toMatchObject({ kind: 'list', required: false });
    expect(field('idleForSeconds')).toMatchObject({ kind: 'number', unit: 'seconds', required: false });
    expect(field('calendarId')).toMatchObject({ kind: 'calendar', required: false });
    const trigger = { triggerType: 'scheduled', intervalSeconds: 3600, ticketFilter: { status: ['pending'], priority: ['high'], tagsAny: ['vip'], idleForSeconds: 57600, calendarId: CALENDAR } };
    expect(validateGraph({ nodes: [{ id: 't', type: 'trigger', data: trigger }], edges: [] }, 'scheduled')).toMatchObject({ ok: true });
  });
});
