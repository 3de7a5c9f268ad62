// Validation of an action node's data, discriminated by actionType. Parameter limits mirror
// the ticket and message fields the action writes (assignTo ≤ 200, reply body ≤ 100,000,
// bodyHtml ≤ 200,000) so an action never fails at run time on a rule known at save time.

import { isCalendarId } from './calendar-refs.ts';
import { parseIsoInstant } from './dates.ts';
import { childPath } from './issues.ts';
import type { Scope } from './issues.ts';
import { isRecord, quote } from './text.ts';
import {
  ACTION_TYPES,
  APPROVAL_QUORUMS,
  APPROVAL_TIMEOUT_OUTCOMES,
  HTTP_METHODS,
  MAX_APPROVERS,
  MAX_QUESTION_LENGTH,
  MAX_WAIT_SECONDS,
  RESOLUTION_TYPES,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
} from './types.ts';
import type { ActionType } from './types.ts';
import {
  checkEnum,
  checkKeys,
  checkLabel,
  checkNodeType,
  checkNumber,
  checkString,
  checkStringValue,
  checkTemplate,
  jsonDepth,
  requiredPath,
} from './validate-fields.ts';

/** The parameters each action takes (besides actionType and label); editors build their forms from this list. */
export const ACTION_PARAMETERS: Record<ActionType, readonly string[]> = {
  assign_ticket: ['assignTo'],
  set_status: ['status'],
  set_priority: ['priority'],
  set_resolution_type: ['resolutionType'],
  add_tag: ['tag'],
  remove_tag: ['tag'],
  send_reply: ['body', 'bodyHtml'],
  http_request: ['method', 'url', 'headers', 'body'],
  delay: ['seconds', 'until', 'businessSeconds', 'calendarId'],
  wait_for_reply: ['timeoutSeconds', 'calendarId'],
  request_approval: ['approvers', 'question', 'quorum', 'timeoutSeconds', 'calendarId', 'onTimeout'],
};

export const MAX_URL_LENGTH = 2048;
export const MAX_HEADERS = 50;
const MAX_HEADER_VALUE = 8192;
const MAX_BODY_DEPTH = 20;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
// Set by the http activity itself (Idempotency-Key) or by the HTTP client from the request;
// letting a workflow override them would break idempotency or the request framing.
const RESERVED_HEADERS = ['idempotency-key', 'host', 'content-length', 'transfer-encoding', 'connection'];

export function checkActionData(scope: Scope, data: Record<string, unknown>): void {
  checkLabel(scope, data);
  const typePath = requiredPath(scope, data, 'actionType');
  if (typePath === undefined) return;
  const actionType = checkNodeType(scope, typePath, data.actionType, ACTION_TYPES, 'action type');
  if (actionType === undefined) return;
  checkKeys(scope, data, ['actionType', 'label', ...ACTION_PARAMETERS[actionType]]);
  switch (actionType) {
    case 'assign_ticket':
      checkString(scope, data, 'assignTo', { min: 1, max: 200, notBlank: true, template: true });
      return;
    case 'set_status':
      checkEnum(scope, data, 'status', TICKET_STATUSES);
      return;
    case 'set_priority':
      checkEnum(scope, data, 'priority', TICKET_PRIORITIES);
      return;
    case 'set_resolution_type':
      checkEnum(scope, data, 'resolutionType', RESOLUTION_TYPES);
      return;
    case 'add_tag':
    case 'remove_tag':
      checkString(scope, data, 'tag', { min: 1, max: 100, notBlank: true, template: true });
      return;
    case 'send_reply':
      checkString(scope, data, 'body', { min: 1, max: 100_000, notBlank: true, template: true });
      if (Object.hasOwn(data, 'bodyHtml')) {
        checkString(scope, data, 'bodyHtml', { min: 0, max: 200_000, template: true });
      }
      return;
    case 'http_request':
      checkHttpRequest(scope, data);
      return;
    case 'delay':
      checkDelay(scope, data);
      return;
    case 'wait_for_reply':
      checkNumber(scope, data, 'timeoutSeconds', { greaterThan: 0, atMost: MAX_WAIT_SECONDS });
      if (Object.hasOwn(data, 'calendarId')) checkCalendarId(scope, data);
      return;
    case 'request_approval':
      checkApproval(scope, data);
      return;
  }
}

function checkCalendarId(scope: Scope, data: Record<string, unknown>): void {
  if (!isCalendarId(data.calendarId)) {
    scope.issues.add(childPath(scope.path, 'calendarId'), `${scope.who}: calendarId must be the id of a calendar (a UUID), got ${quote(data.calendarId)}`);
  }
}

/**
 * request_approval: who is asked (1-20 distinct user ids, written as the admin CLI takes them;
 * whether they are members is the workspace's to say when the graph is saved), the question,
 * the quorum, and a time-out with what it means.
 */
function checkApproval(scope: Scope, data: Record<string, unknown>): void {
  checkApprovers(scope, data);
  checkString(scope, data, 'question', { min: 1, max: MAX_QUESTION_LENGTH, notBlank: true, template: true });
  if (Object.hasOwn(data, 'quorum')) checkEnum(scope, data, 'quorum', APPROVAL_QUORUMS);
  const timed = Object.hasOwn(data, 'timeoutSeconds');
  if (timed) checkNumber(scope, data, 'timeoutSeconds', { greaterThan: 0, atMost: MAX_WAIT_SECONDS });
  if (Object.hasOwn(data, 'calendarId')) {
    if (!timed) scope.issues.add(childPath(scope.path, 'calendarId'), `${scope.who}: calendarId counts timeoutSeconds in open time; without a time-out the approval waits until someone decides`);
    else checkCalendarId(scope, data);
  }
  // Without a time-out it never applies; kept, so that a time-out switched off and on keeps it.
  if (Object.hasOwn(data, 'onTimeout')) checkEnum(scope, data, 'onTimeout', APPROVAL_TIMEOUT_OUTCOMES);
}

function checkApprovers(scope: Scope, data: Record<string, unknown>): void {
  const path = requiredPath(scope, data, 'approvers');
  if (path === undefined) return;
  const approvers = data.approvers;
  if (!Array.isArray(approvers) || approvers.length < 1 || approvers.length > MAX_APPROVERS) {
    scope.issues.add(path, `${scope.who}: approvers must be a list of 1-${MAX_APPROVERS} user ids of the workspace's members or admins, got ${quote(approvers)}`);
    return;
  }
  const seen = new Map<string, number>();
  approvers.forEach((userId: unknown, k) => {
    const at = childPath(path, k);
    const value = checkStringValue(scope, at, `approvers[${k}]`, userId, { min: 1, max: 200, notBlank: true });
    if (value === undefined) return;
    // eslint-disable-next-line no-control-regex
    if (value !== value.trim() || /[\u0000-\u001f\u007f]/.test(value)) {
      scope.issues.add(at, `${scope.who}: approvers[${k}] must be a user id without surrounding whitespace or control characters, got ${quote(value)}`);
    } else if (seen.has(value)) {
      scope.issues.add(at, `${scope.who}: ${quote(value)} is listed twice (also approvers[${seen.get(value)}])`);
    } else {
      seen.set(value, k);
    }
  });
}

function checkHttpRequest(scope: Scope, data: Record<string, unknown>): void {
  const method = checkMethod(scope, data);
  const url = checkString(scope, data, 'url', { min: 1, max: MAX_URL_LENGTH, notBlank: true, template: true });
  // A url that starts with a placeholder gets its scheme at run time; the activity checks it
  // again after rendering (and refuses private addresses).
  if (url !== undefined && !url.startsWith('{{') && !/^https?:\/\//i.test(url)) {
    scope.issues.add(childPath(scope.path, 'url'), `${scope.who}: url must start with http:// or https://, got ${quote(url)}`);
  }
  if (Object.hasOwn(data, 'headers')) checkHeaders(scope, data.headers);
  if (Object.hasOwn(data, 'body')) {
    const bodyPath = childPath(scope.path, 'body');
    const body = data.body;
    if (method === 'GET' || method === 'HEAD') {
      scope.issues.add(bodyPath, `${scope.who}: a ${method} request cannot have a body`);
    } else if (typeof body === 'string') {
      checkTemplate(scope, bodyPath, 'body', body);
    } else if (typeof body === 'object' && body !== null) {
      if (jsonDepth(body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
        scope.issues.add(bodyPath, `${scope.who}: body nests deeper than ${MAX_BODY_DEPTH} levels`);
      } else {
        checkTemplatesDeep(scope, bodyPath, body);
      }
    } else {
      scope.issues.add(bodyPath, `${scope.who}: body must be a string or a JSON object or array, got ${quote(body)}`);
    }
  }
}

function checkMethod(scope: Scope, data: Record<string, unknown>): string | undefined {
  const path = requiredPath(scope, data, 'method');
  if (path === undefined) return undefined;
  const method = data.method;
  if (typeof method === 'string' && (HTTP_METHODS as readonly string[]).includes(method)) return method;
  const upper = typeof method === 'string' ? method.toUpperCase() : '';
  const hint = (HTTP_METHODS as readonly string[]).includes(upper) ? ` (write it in uppercase: "${upper}")` : '';
  scope.issues.add(path, `${scope.who}: method must be one of ${HTTP_METHODS.join(', ')} in uppercase, got ${quote(method)}${hint}`);
  return undefined;
}

function checkHeaders(scope: Scope, headers: unknown): void {
  const path = childPath(scope.path, 'headers');
  if (!isRecord(headers)) {
    scope.issues.add(path, `${scope.who}: headers must be an object of header names to string values`);
    return;
  }
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) {
    scope.issues.add(path, `${scope.who}: at most ${MAX_HEADERS} headers, got ${names.length}`);
    return;
  }
  for (const name of names) {
    const valuePath = childPath(path, name);
    if (!HEADER_NAME.test(name)) {
      scope.issues.add(valuePath, `${scope.who}: ${quote(name)} is not a valid header name`);
      continue;
    }
    if (RESERVED_HEADERS.includes(name.toLowerCase())) {
      scope.issues.add(valuePath, `${scope.who}: header ${name} is set by Deskflow and cannot be overridden`);
      continue;
    }
    const value = checkStringValue(scope, valuePath, `header ${name}`, headers[name], {
      min: 0,
      max: MAX_HEADER_VALUE,
      template: true,
    });
    if (value !== undefined && /[\r\n\0]/.test(value)) {
      scope.issues.add(valuePath, `${scope.who}: header ${name} must not contain line breaks`);
    }
  }
}

function checkTemplatesDeep(scope: Scope, path: string, value: unknown): void {
  if (typeof value === 'string') {
    checkTemplate(scope, path, 'body', value);
  } else if (Array.isArray(value)) {
    value.forEach((v, k) => checkTemplatesDeep(scope, childPath(path, k), v));
  } else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) checkTemplatesDeep(scope, childPath(path, k), v);
  }
}

function checkDelay(scope: Scope, data: Record<string, unknown>): void {
  const given = (['seconds', 'until', 'businessSeconds'] as const).filter((k) => Object.hasOwn(data, k));
  if (given.length !== 1) {
    const what = given.length === 0 ? 'seconds, until or businessSeconds' : `one of seconds, until and businessSeconds, not ${given.join(' and ')}`;
    scope.issues.add(scope.path, `${scope.who}: delay needs ${what}`);
    return;
  }
  const hasCalendar = Object.hasOwn(data, 'calendarId');
  if (given[0] === 'businessSeconds') {
    checkNumber(scope, data, 'businessSeconds', { greaterThan: 0, atMost: MAX_WAIT_SECONDS });
    if (!hasCalendar) scope.issues.add(childPath(scope.path, 'calendarId'), `${scope.who}: businessSeconds counts the open time of a calendar: give its calendarId`);
    else checkCalendarId(scope, data);
    return;
  }
  if (hasCalendar) {
    scope.issues.add(childPath(scope.path, 'calendarId'), `${scope.who}: calendarId goes with businessSeconds (open time); a delay of ${given[0]} counts calendar time`);
  }
  if (given[0] === 'seconds') {
    checkNumber(scope, data, 'seconds', { greaterThan: 0, atMost: MAX_WAIT_SECONDS });
    return;
  }
  const until = data.until;
  if (typeof until !== 'string' || parseIsoInstant(until, { requireTimeAndOffset: true }) === undefined) {
    scope.issues.add(
      childPath(scope.path, 'until'),
      `${scope.who}: until must be an ISO 8601 date-time with an offset (like 2025-01-31T09:00:00Z), got ${quote(until)}`,
    );
  }
}
