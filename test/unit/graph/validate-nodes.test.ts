import { describe, expect, it } from 'vitest';
import { isValidTimeZone } from '../../../src/graph/index.ts';
import type { TriggerType } from '../../../src/graph/index.ts';
import { action, condition, expectOnlyIssue, expectValid, issuesOf, trigger, withNode } from './fixtures.ts';
import type { Json } from './fixtures.ts';

const emoji = '😀';
const D = 'workflowJson.nodes[1].data';

function leaf(field: string, operator: string, value?: unknown, extra: Json = {}): Json {
  return value === undefined ? { field, operator, ...extra } : { field, operator, value, ...extra };
}
const okCond = (data: Json): void => {
  expectValid(withNode(condition('c1', data)));
};
const badCond = (data: Json, path: string, message: RegExp): void => {
  const issue = expectOnlyIssue(withNode(condition('c1', data)), path, message);
  expect(issue.message.startsWith('node "c1": ')).toBe(true);
};
const okAction = (data: Json): void => {
  expectValid(withNode(action('a1', data)));
};
const badAction = (data: Json, path: string, message: RegExp): void => {
  const issue = expectOnlyIssue(withNode(action('a1', data)), path, message);
  expect(issue.message.startsWith('node "a1": ')).toBe(true);
};

describe('condition nodes: operators and values', () => {
  it('accepts every operator with a suitable value', () => {
    const good: Json[] = [
      leaf('ticket.status', 'equals', 'open'),
      leaf('ticket.assignedTo', 'equals', null),
      leaf('data.n', 'not_equals', 3),
      leaf('ticket.subject', 'contains', 'refund'),
      leaf('ticket.tags', 'not_contains', 'spam'),
      leaf('ticket.subject', 'starts_with', 're:'),
      leaf('ticket.subject', 'ends_with', '?'),
      leaf('ticket.priority', 'in', ['high', 'urgent']),
      leaf('ticket.priority', 'not_in', ['low']),
      leaf('data.n', 'greater_than', 5),
      leaf('ticket.createdAt', 'greater_or_equal', '2025-01-01'),
      leaf('ticket.createdAt', 'less_than', '2025-01-01T10:00:00Z'),
      leaf('data.n', 'less_or_equal', -1.5),
      leaf('ticket.customerName', 'is_empty'),
      leaf('message.body', 'is_not_empty'),
      leaf('ticket.subject', 'matches', '^(re|fwd):', { caseSensitive: true }),
      leaf('status', 'changed'),
      leaf('ticket.priority', 'changed_to', 'urgent'),
      leaf('assignedTo', 'changed_from', null),
      leaf('tag', 'equals', 'vip'),
      leaf('changes.status.to', 'equals', 'open'),
    ];
    for (const data of good) okCond(data);
  });
  it('rejects an unknown operator', () => {
    badCond(leaf('ticket.status', 'foo', 'x'), `${D}.operator`, /unknown operator "foo"/);
  });
  it('rejects a missing operator', () => {
    badCond({ field: 'ticket.status', value: 'x' }, `${D}.operator`, /operator is missing/);
  });
  it('rejects a missing or ill-typed field', () => {
    badCond({ operator: 'is_empty' }, `${D}.field`, /field is missing/);
    badCond(leaf('', 'is_empty'), `${D}.field`, /field is empty/);
    badCond({ field: 3, operator: 'is_empty' }, `${D}.field`, /field must be a dotted path string/);
  });
  it('rejects a field with an unknown root', () => {
    badCond(leaf('customer.email', 'is_empty'), `${D}.field`, /field "customer.email" must start with one of ticket, message, changes, tag, sla, data/);
  });
  it('changed operators need a ticket field name', () => {
    badCond(leaf('data.x', 'changed'), `${D}.field`, /changed needs a ticket field name/);
    badCond(leaf('ticket.source', 'changed_to', 'api'), `${D}.field`, /changed_to needs a ticket field name/);
  });
  it('equals-like operators need a scalar value', () => {
    badCond(leaf('ticket.status', 'equals'), `${D}.value`, /operator equals needs a string, number, boolean or null value, got no value/);
    badCond(leaf('ticket.status', 'equals', ['open']), `${D}.value`, /got \["open"\]/);
    badCond(leaf('status', 'changed_from', { a: 1 }), `${D}.value`, /operator changed_from needs/);
  });
  it('in / not_in need a non-empty list of scalars', () => {
    badCond(leaf('ticket.priority', 'in', 'high'), `${D}.value`, /operator in needs a list/);
    badCond(leaf('ticket.priority', 'not_in', []), `${D}.value`, /operator not_in needs a list/);
    badCond(leaf('ticket.priority', 'in', [['x']]), `${D}.value`, /operator in needs a list/);
  });
  it('contains needs a non-empty scalar; starts_with/ends_with a non-empty string', () => {
    badCond(leaf('ticket.subject', 'contains', ''), `${D}.value`, /operator contains needs a non-empty string/);
    badCond(leaf('ticket.subject', 'contains', null), `${D}.value`, /operator contains needs/);
    badCond(leaf('ticket.subject', 'starts_with', 5), `${D}.value`, /operator starts_with needs a non-empty string, got 5/);
    badCond(leaf('ticket.subject', 'ends_with'), `${D}.value`, /operator ends_with needs a non-empty string, got no value/);
  });
  it('ordering operators need a number or an ISO date', () => {
    badCond(leaf('data.n', 'greater_than', '5'), `${D}.value`, /operator greater_than needs a number or an ISO 8601 date/);
    badCond(leaf('ticket.createdAt', 'less_than', '2025-02-30'), `${D}.value`, /less_than needs a number or an ISO 8601 date/);
    badCond(leaf('data.n', 'less_or_equal'), `${D}.value`, /got no value/);
  });
  it('is_empty, is_not_empty and changed take no value', () => {
    badCond(leaf('ticket.subject', 'is_empty', ''), `${D}.value`, /operator is_empty takes no value/);
    badCond(leaf('ticket.subject', 'is_not_empty', 'x'), `${D}.value`, /is_not_empty takes no value/);
    badCond(leaf('status', 'changed', 'open'), `${D}.value`, /changed takes no value/);
  });
  it('matches needs a pattern RE2 can run', () => {
    okCond(leaf('ticket.subject', 'matches', '(a+)+$'));
    badCond(leaf('ticket.subject', 'matches', '(?=.*\\d)order'), `${D}.value`, /pattern "\(\?=\.\*\\\\d\)order" is not a valid RE2 regular expression: .*lookahead is not supported/);
    badCond(leaf('ticket.subject', 'matches', '(unclosed'), `${D}.value`, /not a valid RE2 regular expression: missing closing \)/);
    badCond(leaf('ticket.subject', 'matches', '\\w{300}'), `${D}.value`, /is too complex/);
    badCond(leaf('ticket.subject', 'matches', 3), `${D}.value`, /operator matches needs a regular expression string/);
  });
  it('caseSensitive must be boolean', () => {
    badCond(leaf('ticket.status', 'equals', 'x', { caseSensitive: 'yes' }), `${D}.caseSensitive`, /caseSensitive must be true or false/);
  });
  it('rejects unknown keys in a condition', () => {
    badCond(leaf('ticket.status', 'equals', 'x', { vaule: 'y' }), `${D}.vaule`, /unknown parameter "vaule"/);
  });
  it('allows a label of up to 200 code points on the node', () => {
    okCond(leaf('ticket.status', 'equals', 'x', { label: emoji.repeat(200) }));
    badCond(leaf('ticket.status', 'equals', 'x', { label: emoji.repeat(201) }), `${D}.label`, /label must be 0-200 characters/);
    badCond(leaf('ticket.status', 'equals', 'x', { label: 5 }), `${D}.label`, /label must be a string/);
  });
});

describe('condition nodes: groups', () => {
  const yes = leaf('ticket.status', 'equals', 'open');
  function nest(depth: number): Json {
    let c: Json = yes;
    for (let k = 0; k < depth; k += 1) c = { match: 'all', conditions: [c] };
    return c;
  }
  it('accepts nested groups up to depth 5', () => {
    okCond({ match: 'any', conditions: [yes, { match: 'all', conditions: [yes, yes] }] });
    okCond(nest(5));
  });
  it('rejects depth 6', () => {
    const path = `${D}${'.conditions[0]'.repeat(5)}`;
    badCond(nest(6), path, /condition groups nest more than 5 deep/);
  });
  it('rejects a bad match and an empty or missing condition list', () => {
    badCond({ match: 'most', conditions: [yes] }, `${D}.match`, /match must be "all" or "any", got "most"/);
    badCond({ match: 'all', conditions: [] }, `${D}.conditions`, /conditions must be a non-empty list/);
    badCond({ match: 'all' }, `${D}.conditions`, /conditions must be a non-empty list/);
  });
  it('reports problems inside a group at their nested path', () => {
    badCond({ match: 'all', conditions: [yes, { match: 'any', conditions: [leaf('ticket.status', 'nope', 'x')] }] }, `${D}.conditions[1].conditions[0].operator`, /unknown operator "nope"/);
    badCond({ match: 'all', conditions: [yes, 'x'] }, `${D}.conditions[1]`, /a condition must be an object/);
  });
  it('allows a label only at the top of the node', () => {
    okCond({ match: 'all', conditions: [yes], label: 'Both' });
    badCond({ match: 'all', conditions: [{ ...yes, label: 'inner' }] }, `${D}.conditions[0].label`, /unknown parameter "label"/);
  });
  it('accepts 50 leaves and refuses 51', () => {
    okCond({ match: 'all', conditions: Array.from({ length: 50 }, () => yes) });
    badCond({ match: 'all', conditions: Array.from({ length: 51 }, () => yes) }, D, /more than 50 conditions/);
  });
});

describe('action nodes', () => {
  it('accepts every action type', () => {
    const good: Json[] = [
      { actionType: 'assign_ticket', assignTo: 'user-123' },
      { actionType: 'assign_ticket', assignTo: '{{ data.agent }}' },
      { actionType: 'set_status', status: 'escalated' },
      { actionType: 'set_priority', priority: 'urgent' },
      { actionType: 'set_resolution_type', resolutionType: 'spam' },
      { actionType: 'add_tag', tag: 'vip' },
      { actionType: 'remove_tag', tag: '{{tag}}' },
      { actionType: 'send_reply', body: 'Thanks!' },
      { actionType: 'http_request', method: 'GET', url: 'http://example.com' },
      { actionType: 'http_request', method: 'DELETE', url: '{{ data.callbackUrl }}', body: 'raw {{ticket.id}}' },
      { actionType: 'http_request', method: 'PUT', url: 'HTTPS://example.com', body: [1, 2] },
      { actionType: 'delay', seconds: 0.5 },
      { actionType: 'delay', seconds: 31_536_000 },
      { actionType: 'delay', until: '2030-01-01T09:00:00+01:00' },
      { actionType: 'wait_for_reply', timeoutSeconds: 3600, label: 'Wait a bit' },
    ];
    for (const data of good) okAction(data);
  });
  it('rejects an unknown or missing action type', () => {
    badAction({ actionType: 'close_ticket' }, `${D}.actionType`, /unknown action type "close_ticket"/);
    badAction({ tag: 'x' }, `${D}.actionType`, /actionType is missing/);
  });
  it('rejects unknown parameters', () => {
    badAction({ actionType: 'add_tag', tag: 'x', tags: ['y'] }, `${D}.tags`, /unknown parameter "tags" \(allowed: actionType, label, tag\)/);
  });
  it('assign_ticket: assignTo is 1-200 code points and not blank', () => {
    okAction({ actionType: 'assign_ticket', assignTo: emoji.repeat(200) });
    badAction({ actionType: 'assign_ticket', assignTo: emoji.repeat(201) }, `${D}.assignTo`, /assignTo must be 1-200 characters, got more than 200/);
    badAction({ actionType: 'assign_ticket', assignTo: '   ' }, `${D}.assignTo`, /assignTo must not be blank/);
    badAction({ actionType: 'assign_ticket', assignTo: '' }, `${D}.assignTo`, /got 0/);
    badAction({ actionType: 'assign_ticket', assignTo: null }, `${D}.assignTo`, /assignTo must be a string, got null/);
    badAction({ actionType: 'assign_ticket' }, `${D}.assignTo`, /assignTo is missing/);
  });
  it('checks placeholder paths in text parameters', () => {
    badAction({ actionType: 'assign_ticket', assignTo: '{{ agent.id }}' }, `${D}.assignTo`, /placeholder \{\{agent.id\}\} in assignTo: path "agent.id" must start with one of/);
    badAction({ actionType: 'send_reply', body: 'Hi {{ }}' }, `${D}.body`, /placeholder \{\{\}\} in body: path is empty/);
  });
  it('set_status / set_priority / set_resolution_type take one of their values', () => {
    badAction({ actionType: 'set_status', status: 'archived' }, `${D}.status`, /status must be one of open, pending, escalated, solved, closed, got "archived"/);
    badAction({ actionType: 'set_priority', priority: 'HIGH' }, `${D}.priority`, /priority must be one of low, medium, high, urgent/);
    badAction({ actionType: 'set_resolution_type', resolutionType: 'fixed' }, `${D}.resolutionType`, /resolutionType must be one of resolved_by_agent/);
    badAction({ actionType: 'set_status' }, `${D}.status`, /status is missing/);
  });
  it('add_tag / remove_tag: tag is 1-100 code points and not blank', () => {
    okAction({ actionType: 'add_tag', tag: emoji.repeat(100) });
    badAction({ actionType: 'add_tag', tag: emoji.repeat(101) }, `${D}.tag`, /tag must be 1-100 characters/);
    badAction({ actionType: 'remove_tag', tag: '\t' }, `${D}.tag`, /tag must not be blank/);
  });
  it('send_reply: body 1-100,000, bodyHtml ≤ 200,000', () => {
    okAction({ actionType: 'send_reply', body: emoji.repeat(100_000), bodyHtml: emoji.repeat(200_000) });
    badAction({ actionType: 'send_reply', body: 'x'.repeat(100_001) }, `${D}.body`, /body must be 1-100000 characters/);
    badAction({ actionType: 'send_reply', body: ' \n ' }, `${D}.body`, /body must not be blank/);
    badAction({ actionType: 'send_reply', body: 'x', bodyHtml: 'x'.repeat(200_001) }, `${D}.bodyHtml`, /bodyHtml must be 0-200000 characters/);
    badAction({ actionType: 'send_reply', body: 'x', bodyHtml: null }, `${D}.bodyHtml`, /bodyHtml must be a string/);
  });
  it('http_request: method must be an uppercase verb', () => {
    badAction({ actionType: 'http_request', method: 'post', url: 'https://x.io' }, `${D}.method`, /in uppercase, got "post" \(write it in uppercase: "POST"\)/);
    badAction({ actionType: 'http_request', method: 'FETCH', url: 'https://x.io' }, `${D}.method`, /method must be one of GET, POST, PUT, PATCH, DELETE, HEAD/);
    badAction({ actionType: 'http_request', url: 'https://x.io' }, `${D}.method`, /method is missing/);
  });
  it('http_request: url is http(s) unless it starts with a placeholder, ≤ 2048', () => {
    badAction({ actionType: 'http_request', method: 'GET', url: 'ftp://x.io' }, `${D}.url`, /url must start with http:\/\/ or https:\/\//);
    badAction({ actionType: 'http_request', method: 'GET', url: 'x.io/{{ticket.id}}' }, `${D}.url`, /url must start with http/);
    okAction({ actionType: 'http_request', method: 'GET', url: `https://x.io/${'a'.repeat(2048 - 13)}` });
    badAction({ actionType: 'http_request', method: 'GET', url: `https://x.io/${'a'.repeat(2048 - 12)}` }, `${D}.url`, /url must be 1-2048 characters/);
    badAction({ actionType: 'http_request', method: 'GET', url: 'https://x.io/{{secret}}' }, `${D}.url`, /placeholder \{\{secret\}\} in url/);
  });
  it('http_request: headers are valid names with string values', () => {
    okAction({ actionType: 'http_request', method: 'GET', url: 'https://x.io', headers: { Authorization: 'Bearer {{data.token}}', 'X-Empty': '' } });
    badAction({ actionType: 'http_request', method: 'GET', url: 'https://x.io', headers: ['x'] }, `${D}.headers`, /headers must be an object/);
    badAction({ actionType: 'http_request', method: 'GET', url: 'https://x.io', headers: { 'X-N': 5 } }, `${D}.headers["X-N"]`, /header X-N must be a string, got 5/);
    badAction({ actionType: 'http_request', method: 'GET', url: 'https://x.io', headers: { 'Bad Name': 'x' } }, `${D}.headers["Bad Name"]`, /"Bad Name" is not a valid header name/);
    badAction({ actionType: 'http_request', method: 'GET', url: 'https://x.io', headers: { 'idempotency-key': 'x' } }, `${D}.headers["idempotency-key"]`, /set by Deskflow/);
    badAction({ actionType: 'http_request', method: 'GET', url: 'https://x.io', headers: { 'X-A': 'a\r\nX-B: b' } }, `${D}.headers["X-A"]`, /must not contain line breaks/);
  });
  it('http_request: body is a string or JSON object/array, never on GET/HEAD', () => {
    badAction({ actionType: 'http_request', method: 'GET', url: 'https://x.io', body: 'x' }, `${D}.body`, /a GET request cannot have a body/);
    badAction({ actionType: 'http_request', method: 'POST', url: 'https://x.io', body: 5 }, `${D}.body`, /body must be a string or a JSON object or array, got 5/);
    badAction({ actionType: 'http_request', method: 'POST', url: 'https://x.io', body: { a: ['{{nope}}'] } }, `${D}.body.a[0]`, /placeholder \{\{nope\}\} in body/);
  });
  it('delay: exactly one of seconds, until and businessSeconds', () => {
    badAction({ actionType: 'delay' }, D, /delay needs seconds, until or businessSeconds/);
    badAction({ actionType: 'delay', seconds: 5, until: '2030-01-01T00:00:00Z' }, D, /one of seconds, until and businessSeconds, not seconds and until/);
  });
  it('delay: seconds in (0, 31,536,000]', () => {
    badAction({ actionType: 'delay', seconds: 0 }, `${D}.seconds`, /seconds must be a number greater than 0 and at most 31536000, got 0/);
    badAction({ actionType: 'delay', seconds: 31_536_001 }, `${D}.seconds`, /got 31536001/);
    badAction({ actionType: 'delay', seconds: '60' }, `${D}.seconds`, /got "60"/);
  });
  it('delay: until is an ISO 8601 date-time with an offset', () => {
    badAction({ actionType: 'delay', until: '2030-01-01' }, `${D}.until`, /until must be an ISO 8601 date-time with an offset/);
    badAction({ actionType: 'delay', until: '2030-01-01T09:00:00' }, `${D}.until`, /until must be an ISO 8601/);
    badAction({ actionType: 'delay', until: 'tomorrow' }, `${D}.until`, /until must be an ISO 8601/);
  });
  it('wait_for_reply: timeoutSeconds in (0, 31,536,000]', () => {
    badAction({ actionType: 'wait_for_reply' }, `${D}.timeoutSeconds`, /timeoutSeconds is missing/);
    badAction({ actionType: 'wait_for_reply', timeoutSeconds: -1 }, `${D}.timeoutSeconds`, /timeoutSeconds must be a number greater than 0/);
  });
});

describe('trigger nodes', () => {
  const T = 'workflowJson.nodes[0].data';
  const sched = (extra: Json): Json => ({ nodes: [trigger('trigger', 'scheduled', extra)], edges: [] });
  const badTrigger = (input: Json, path: string, message: RegExp, type: TriggerType = 'scheduled'): void => {
    const issue = expectOnlyIssue(input, path, message, type);
    expect(issue.message.startsWith('node "trigger": ')).toBe(true);
  };

  it('event triggers accept only triggerType and label', () => {
    expectValid({ nodes: [trigger('trigger', 'tag_added', { label: 'On tag' })], edges: [] }, 'tag_added');
    badTrigger({ nodes: [trigger('trigger', 'manual', { cron: '* * * * *' })], edges: [] }, `${T}.cron`, /unknown parameter "cron" \(allowed: triggerType, label\)/, 'manual');
  });
  it('rejects an unknown or missing trigger type', () => {
    badTrigger({ nodes: [trigger('trigger', 'ticket_deleted')], edges: [] }, `${T}.triggerType`, /unknown trigger type "ticket_deleted"/, 'ticket_created');
    badTrigger({ nodes: [{ id: 'trigger', type: 'trigger', data: {} }], edges: [] }, `${T}.triggerType`, /triggerType is missing/, 'ticket_created');
  });
  it('scheduled: cron or intervalSeconds, with optional timezone and ticket filter', () => {
    expectValid(sched({ cron: '0 9 * * MON-FRI', timezone: 'Europe/Paris' }), 'scheduled');
    expectValid(sched({ intervalSeconds: 300, ticketFilter: { status: ['open', 'pending'], priority: ['high'], tagsAny: ['vip'], idleForSeconds: 86400 } }), 'scheduled');
    expectValid(sched({}), 'scheduled'); // no schedule yet: the default graph
  });
  it('scheduled: not both cron and intervalSeconds', () => {
    badTrigger(sched({ cron: '@hourly', intervalSeconds: 60 }), T, /either cron or intervalSeconds, not both/);
  });
  it('scheduled: cron must be valid and names the bad field', () => {
    badTrigger(sched({ cron: '0 25 * * *' }), `${T}.cron`, /cron "0 25 \* \* \*" field 2 \(hour\) "25": 25 is out of range 0-23/);
    badTrigger(sched({ cron: 5 }), `${T}.cron`, /cron must be a string/);
  });
  it('scheduled: intervalSeconds is an integer ≥ 1', () => {
    badTrigger(sched({ intervalSeconds: 0 }), `${T}.intervalSeconds`, /intervalSeconds must be an integer from 1/);
    badTrigger(sched({ intervalSeconds: 1.5 }), `${T}.intervalSeconds`, /must be an integer/);
  });
  it('scheduled: timezone must be an IANA name', () => {
    badTrigger(sched({ cron: '@daily', timezone: 'Mars/Olympus' }), `${T}.timezone`, /timezone must be an IANA time zone name/);
    badTrigger(sched({ cron: '@daily', timezone: '+02:00' }), `${T}.timezone`, /IANA/);
  });
  it('scheduled: ticketFilter fields are checked', () => {
    badTrigger(sched({ intervalSeconds: 60, ticketFilter: { status: ['open', 'done'] } }), `${T}.ticketFilter.status`, /ticketFilter.status must be a non-empty list of open, pending/);
    badTrigger(sched({ intervalSeconds: 60, ticketFilter: { priority: [] } }), `${T}.ticketFilter.priority`, /non-empty list/);
    badTrigger(sched({ intervalSeconds: 60, ticketFilter: { tagsAny: ['ok', ' '] } }), `${T}.ticketFilter.tagsAny[1]`, /must not be blank/);
    badTrigger(sched({ intervalSeconds: 60, ticketFilter: { idleForSeconds: 0 } }), `${T}.ticketFilter.idleForSeconds`, /idleForSeconds must be an integer from 1/);
    badTrigger(sched({ intervalSeconds: 60, ticketFilter: { owner: 'x' } }), `${T}.ticketFilter.owner`, /unknown parameter "owner"/);
    badTrigger(sched({ intervalSeconds: 60, ticketFilter: 'open' }), `${T}.ticketFilter`, /ticketFilter must be an object/);
  });
  it('scheduled: unknown keys rejected', () => {
    badTrigger(sched({ intervalSeconds: 60, every: '5m' }), `${T}.every`, /unknown parameter "every"/);
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA names and refuses the rest', () => {
    for (const tz of ['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) expect(isValidTimeZone(tz), tz).toBe(true);
    for (const tz of ['', 'Mars/Base', '+01:00', 'Europe/ Paris', 'x'.repeat(101)]) expect(isValidTimeZone(tz), tz).toBe(false);
    // Temporal looks zones up as spelled: a zone's own name in other capitals is refused.
    for (const tz of ['europe/paris', 'EUROPE/PARIS', 'utc', 'etc/gmt+5']) expect(isValidTimeZone(tz), tz).toBe(false);
    for (const tz of ['US/Pacific', 'Etc/UTC', 'Asia/Calcutta']) expect(isValidTimeZone(tz), tz).toBe(true);
  });
});

describe('multiple problems in one node', () => {
  it('are all reported', () => {
    const issues = issuesOf(withNode(action('a1', { actionType: 'http_request', method: 'get', url: 'nope', extra: 1 })));
    expect(issues.map((i) => i.path)).toEqual([`${D}.extra`, `${D}.method`, `${D}.url`]);
  });
});
