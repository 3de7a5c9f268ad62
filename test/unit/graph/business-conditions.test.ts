import { describe, expect, it } from 'vitest';
import {
  calendarReferences,
  CalendarError,
  conditionCalendarIds,
  evaluateCondition,
  walkToFirstAction,
  type BusinessCalendar,
  type ConditionData,
  type WorkflowGraph,
} from '../../../src/graph/index.ts';
import { action, condition, edge, expectOnlyIssue, expectValid, trigger, withNode, type Json } from './fixtures.ts';

// The business-hours vocabulary of the workflow language (docs/automations.md, "Business hours"):
// in_business_hours / outside_business_hours, older_than / newer_than, the field `now`,
// delay { businessSeconds, calendarId }, wait_for_reply { calendarId }, ticketFilter.calendarId.

const OFFICE = 'c0ffee00-0000-4000-8000-000000000001';
const office: BusinessCalendar = {
  timeZone: 'Europe/Berlin',
  hours: (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, from: '09:00', to: '17:00' })),
  holidays: [{ date: '2026-12-25', name: 'Christmas Day' }],
};
const calendars = { [OFFICE]: office };
const at = (text: string) => Date.parse(text);
const FRIDAY_1650 = '2026-03-06T16:50:00+01:00';

const ctx = {
  ticket: { subject: 'Printer', createdAt: '2026-03-07T10:00:00Z', updatedAt: FRIDAY_1650 },
  data: { when: '2026-03-09T10:00:00+01:00', notADate: 'soon', number: 5 },
};
const holds = (cond: Json, now: string | number = '2026-03-09T10:00:00+01:00') =>
  evaluateCondition(cond as unknown as ConditionData, ctx, { now: typeof now === 'number' ? now : at(now), calendars });

describe('in_business_hours / outside_business_hours', () => {
  it('reads now, or any date field of the context, in the calendar\'s zone', () => {
    expect(holds({ field: 'now', operator: 'in_business_hours', value: OFFICE }, '2026-03-09T16:59:00+01:00')).toBe(true);
    expect(holds({ field: 'now', operator: 'in_business_hours', value: OFFICE }, '2026-03-09T17:00:00+01:00')).toBe(false);
    expect(holds({ field: 'now', operator: 'outside_business_hours', value: OFFICE }, '2026-12-25T10:00:00+01:00')).toBe(true);
    // "Was this ticket opened while we were closed?" A Saturday.
    expect(holds({ field: 'ticket.createdAt', operator: 'outside_business_hours', value: OFFICE })).toBe(true);
    expect(holds({ field: 'data.when', operator: 'in_business_hours', value: OFFICE })).toBe(true);
  });

  it('is neither for a field that holds no date', () => {
    for (const field of ['data.notADate', 'data.number', 'data.missing', 'ticket.subject']) {
      expect(holds({ field, operator: 'in_business_hours', value: OFFICE }), field).toBe(false);
      expect(holds({ field, operator: 'outside_business_hours', value: OFFICE }), field).toBe(false);
    }
  });

  it('names the calendar when the run has no such calendar', () => {
    const unknown = 'c0ffee00-0000-4000-8000-00000000dead';
    expect(() => holds({ field: 'now', operator: 'in_business_hours', value: unknown })).toThrow(CalendarError);
    expect(() => holds({ field: 'now', operator: 'in_business_hours', value: unknown })).toThrow(`calendar "${unknown}" does not exist in this workspace`);
  });

  it('finds calendars whatever the letter case of their id', () => {
    expect(holds({ field: 'now', operator: 'in_business_hours', value: OFFICE.toUpperCase() })).toBe(true);
  });
});

describe('older_than / newer_than', () => {
  it('in calendar time: at least `seconds` ago, or less', () => {
    const now = '2026-03-06T17:50:00+01:00'; // an hour after Friday 16:50
    expect(holds({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 3600 } }, now)).toBe(true);
    expect(holds({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 3601 } }, now)).toBe(false);
    expect(holds({ field: 'ticket.updatedAt', operator: 'newer_than', value: { seconds: 3601 } }, now)).toBe(true);
    expect(holds({ field: 'ticket.updatedAt', operator: 'newer_than', value: { seconds: 3600 } }, now)).toBe(false);
  });

  it('in open time: a ticket updated Friday 16:50 is 16 open hours old on Tuesday 16:50, not before', () => {
    const sixteenOpenHours = { seconds: 16 * 3600, calendarId: OFFICE };
    expect(holds({ field: 'ticket.updatedAt', operator: 'older_than', value: sixteenOpenHours }, '2026-03-10T16:50:00+01:00')).toBe(true);
    expect(holds({ field: 'ticket.updatedAt', operator: 'older_than', value: sixteenOpenHours }, '2026-03-10T16:49:59+01:00')).toBe(false);
    expect(holds({ field: 'ticket.updatedAt', operator: 'newer_than', value: sixteenOpenHours }, '2026-03-10T16:49:59+01:00')).toBe(true);
    // Over the weekend no open time passes: still 10 open minutes old on Monday at 08:00.
    expect(holds({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 601, calendarId: OFFICE } }, '2026-03-09T08:00:00+01:00')).toBe(false);
  });

  it('a date in the future is newer than any age; a field without a date is neither', () => {
    expect(holds({ field: 'data.when', operator: 'newer_than', value: { seconds: 1 } }, '2026-01-01T00:00:00Z')).toBe(true);
    expect(holds({ field: 'data.notADate', operator: 'older_than', value: { seconds: 1 } })).toBe(false);
    expect(holds({ field: 'data.notADate', operator: 'newer_than', value: { seconds: 1 } })).toBe(false);
  });

  it('needs the time of evaluation', () => {
    expect(() => evaluateCondition({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 1 } }, ctx)).toThrow(/needs the time of evaluation/);
  });
});

describe('now', () => {
  it('compares with dates as an instant', () => {
    expect(holds({ field: 'now', operator: 'greater_or_equal', value: '2026-03-09' })).toBe(true);
    expect(holds({ field: 'now', operator: 'less_than', value: '2026-03-09T09:00:01Z' })).toBe(true);
    expect(holds({ field: 'now', operator: 'less_than', value: '2026-03-09T09:00:00Z' })).toBe(false);
    expect(holds({ field: 'now', operator: 'greater_than', value: '2026-03-10' })).toBe(false);
  });
});

describe('validation', () => {
  const D = 'workflowJson.nodes[1].data';
  const okCond = (data: Json) => expectValid(withNode(condition('c1', data)));
  const badCond = (data: Json, path: string, message: RegExp) => expectOnlyIssue(withNode(condition('c1', data)), path, message);
  const okAction = (data: Json) => expectValid(withNode(action('a1', data)));
  const badAction = (data: Json, path: string, message: RegExp) => expectOnlyIssue(withNode(action('a1', data)), path, message);

  it('accepts the business-hours operators on now and date fields, and ages with or without a calendar', () => {
    okCond({ field: 'now', operator: 'in_business_hours', value: OFFICE });
    okCond({ field: 'ticket.createdAt', operator: 'outside_business_hours', value: OFFICE });
    okCond({ field: 'message.createdAt', operator: 'in_business_hours', value: OFFICE });
    okCond({ field: 'data.receivedAt', operator: 'in_business_hours', value: OFFICE });
    okCond({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 172800 } });
    okCond({ field: 'ticket.createdAt', operator: 'newer_than', value: { seconds: 57600, calendarId: OFFICE } });
    okCond({ field: 'now', operator: 'less_than', value: '2026-12-24T12:00:00+01:00' });
    okCond({ match: 'any', conditions: [{ field: 'now', operator: 'outside_business_hours', value: OFFICE }, { field: 'ticket.priority', operator: 'equals', value: 'urgent' }] });
  });

  it('refuses them where they mean nothing, naming the node', () => {
    badCond({ field: 'ticket.subject', operator: 'in_business_hours', value: OFFICE }, `${D}.field`, /in_business_hours needs a date field \(now, ticket.createdAt, ticket.updatedAt, message.createdAt, sla.dueAt, a data.\* path\), got "ticket.subject"/);
    badCond({ field: 'now', operator: 'older_than', value: { seconds: 1 } }, `${D}.field`, /the field now .* takes only in_business_hours, outside_business_hours, greater_than/);
    badCond({ field: 'now', operator: 'equals', value: 'x' }, `${D}.field`, /the field now .* not equals/);
    badCond({ field: 'now', operator: 'greater_than', value: 5 }, `${D}.value`, /needs an ISO 8601 date to compare now with/);
    badCond({ field: 'now', operator: 'in_business_hours', value: 'office' }, `${D}.value`, /in_business_hours needs the id of a calendar \(a UUID\), got "office"/);
    badCond({ field: 'now', operator: 'outside_business_hours' }, `${D}.value`, /got no value/);
    badCond({ field: 'ticket.updatedAt', operator: 'older_than', value: 3600 }, `${D}.value`, /older_than needs an age \{ "seconds": n \}/);
    badCond({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 0 } }, `${D}.value.seconds`, /seconds must be a number greater than 0 and at most 315360000/);
    badCond({ field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 60, hours: 1 } }, `${D}.value.hours`, /unknown parameter "hours"/);
    badCond({ field: 'ticket.updatedAt', operator: 'newer_than', value: { seconds: 60, calendarId: 7 } }, `${D}.value.calendarId`, /calendarId must be the id of a calendar/);
    badCond({ field: 'tag', operator: 'newer_than', value: { seconds: 60 } }, `${D}.field`, /newer_than needs a date field \(ticket.createdAt/);
  });

  it('takes delay { businessSeconds, calendarId } and wait_for_reply { timeoutSeconds, calendarId }', () => {
    okAction({ actionType: 'delay', businessSeconds: 57600, calendarId: OFFICE });
    okAction({ actionType: 'wait_for_reply', timeoutSeconds: 144000, calendarId: OFFICE });
    okAction({ actionType: 'wait_for_reply', timeoutSeconds: 60 });
    badAction({ actionType: 'delay', businessSeconds: 60 }, `${D}.calendarId`, /businessSeconds counts the open time of a calendar: give its calendarId/);
    badAction({ actionType: 'delay', seconds: 60, calendarId: OFFICE }, `${D}.calendarId`, /calendarId goes with businessSeconds \(open time\); a delay of seconds counts calendar time/);
    badAction({ actionType: 'delay', seconds: 60, businessSeconds: 60, calendarId: OFFICE }, D, /delay needs one of seconds, until and businessSeconds, not seconds and businessSeconds/);
    badAction({ actionType: 'delay', businessSeconds: 0, calendarId: OFFICE }, `${D}.businessSeconds`, /greater than 0 and at most 31536000/);
    badAction({ actionType: 'wait_for_reply', timeoutSeconds: 60, calendarId: 'office' }, `${D}.calendarId`, /calendarId must be the id of a calendar \(a UUID\)/);
  });

  it('takes ticketFilter.calendarId with idleForSeconds', () => {
    const scheduled = (ticketFilter: Json) => ({ nodes: [trigger('t', 'scheduled', { intervalSeconds: 60, ticketFilter })], edges: [] });
    expectValid(scheduled({ idleForSeconds: 172800, calendarId: OFFICE }), 'scheduled');
    expectOnlyIssue(scheduled({ calendarId: OFFICE }), 'workflowJson.nodes[0].data.ticketFilter.calendarId', /give idleForSeconds too/, 'scheduled');
    expectOnlyIssue(scheduled({ idleForSeconds: 60, calendarId: 'x' }), 'workflowJson.nodes[0].data.ticketFilter.calendarId', /must be the id of a calendar/, 'scheduled');
  });
});

describe('calendar references', () => {
  const OTHER = 'c0ffee00-0000-4000-8000-000000000002';
  const graph = {
    nodes: [
      trigger('t', 'scheduled', { intervalSeconds: 60, ticketFilter: { idleForSeconds: 60, calendarId: OTHER } }),
      condition('c', { match: 'all', conditions: [{ field: 'now', operator: 'in_business_hours', value: OFFICE.toUpperCase() }, { field: 'ticket.updatedAt', operator: 'older_than', value: { seconds: 1, calendarId: OTHER } }] }),
      action('wait', { actionType: 'delay', businessSeconds: 60, calendarId: OFFICE }),
      action('reply', { actionType: 'wait_for_reply', timeoutSeconds: 60, calendarId: OFFICE }),
    ],
    edges: [edge('t', 'c'), edge('c', 'wait'), edge('wait', 'reply')],
  } as unknown as WorkflowGraph;

  it('lists every calendar a graph names, with the node and the path of the value', () => {
    expect(calendarReferences(graph)).toEqual([
      { calendarId: OTHER, nodeId: 't', path: 'workflowJson.nodes[0].data.ticketFilter.calendarId' },
      { calendarId: OFFICE, nodeId: 'c', path: 'workflowJson.nodes[1].data.conditions[0].value' },
      { calendarId: OTHER, nodeId: 'c', path: 'workflowJson.nodes[1].data.conditions[1].value.calendarId' },
      { calendarId: OFFICE, nodeId: 'wait', path: 'workflowJson.nodes[2].data.calendarId' },
      { calendarId: OFFICE, nodeId: 'reply', path: 'workflowJson.nodes[3].data.calendarId' },
    ]);
    expect(conditionCalendarIds(graph.nodes[1].data)).toEqual([OFFICE, OTHER]);
    expect(conditionCalendarIds({ field: 'now', operator: 'greater_than', value: '2026-01-01' })).toEqual([]);
  });

  it('the walk up to the first action evaluates them at the given time', () => {
    const g = expectValid({
      nodes: [trigger('start'), condition('closed', { field: 'now', operator: 'outside_business_hours', value: OFFICE }), action('tag', { actionType: 'add_tag', tag: 'after-hours' })],
      edges: [edge('start', 'closed'), edge('closed', 'tag', 'true')],
    });
    expect(walkToFirstAction(g, ctx, { now: at('2026-03-07T12:00:00Z'), calendars }).reachesAction).toBe(true);
    const open = walkToFirstAction(g, ctx, { now: at('2026-03-09T12:00:00Z'), calendars });
    expect(open).toEqual({ steps: [{ nodeId: 'start', status: 'passed' }, { nodeId: 'closed', status: 'passed', result: false }], reachesAction: false });
    // A calendar the run cannot read is for the run to report: it reaches the run.
    expect(walkToFirstAction(g, ctx, { now: at('2026-03-09T12:00:00Z'), calendars: {} }).reachesAction).toBe(true);
  });
});
