// The node forms are derived from the server's validator (console/src/model/fields.ts): these
// tests hold the derivation to what validateGraph accepts, for every action and operator.
import { describe, expect, it } from 'vitest';
import {
  ACTION_PARAMETERS,
  ACTION_TYPES,
  HTTP_METHODS,
  OPERATORS,
  RESOLUTION_TYPES,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  validateGraph,
} from '../../../src/graph/index.ts';
import { actionFields, newActionData, newConditionData, operatorValue, PALETTE, scheduleFields } from '../../../console/src/model/fields.ts';

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
    expect(field('delay', 'seconds')).toMatchObject({ kind: 'number', required: false });
    expect(field('delay', 'until')).toMatchObject({ kind: 'text', required: false, placeholders: false });
    expect(field('wait_for_reply', 'timeoutSeconds')).toMatchObject({ kind: 'number', required: true });
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

describe('the palette', () => {
  it('offers every operator and action type of src/graph', () => {
    expect(PALETTE.operators).toEqual(OPERATORS);
    expect(PALETTE.actions).toEqual(ACTION_TYPES);
  });

  it('adds action nodes the validator faults only for the text still to be written', () => {
    for (const actionType of ACTION_TYPES) {
      const data = newActionData(actionType);
      const empty = actionFields(actionType).filter((f) => f.required && data[f.key] === '').map((f) => `workflowJson.nodes[1].data.${f.key}`);
      expect(issuesOf({ type: 'action', data }).map((i) => i.path).sort(), actionType).toEqual(empty.sort());
      const filled = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v === '' ? (k === 'url' ? 'https://example.com/hook' : 'text') : v]));
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

describe('operatorValue', () => {
  it('says what value each operator takes, as the validator does', () => {
    expect(operatorValue('is_empty')).toEqual({ kind: 'none' });
    expect(operatorValue('changed')).toEqual({ kind: 'none' });
    expect(operatorValue('in')).toEqual({ kind: 'list' });
    expect(operatorValue('not_in')).toEqual({ kind: 'list' });
    expect(operatorValue('contains')).toEqual({ kind: 'single', numeric: false });
    expect(operatorValue('greater_than')).toEqual({ kind: 'single', numeric: true });
    for (const operator of OPERATORS) {
      const kind = operatorValue(operator);
      const value = kind.kind === 'none' ? {} : { value: kind.kind === 'list' ? ['open'] : kind.numeric ? 3 : 'open' };
      const field = operator.startsWith('changed') ? 'status' : 'ticket.status';
      expect(issuesOf({ type: 'condition', data: { field, operator, ...value } }, 'ticket_updated'), operator).toEqual([]);
    }
  });
});

describe('scheduleFields', () => {
  it('describes the schedule of a scheduled trigger', () => {
    expect(scheduleFields().map((f) => [f.key, f.kind, f.required])).toEqual([
      ['cron', 'text', false],
      ['intervalSeconds', 'number', false],
      ['timezone', 'text', false],
      ['ticketFilter', 'json', false],
    ]);
  });
});
