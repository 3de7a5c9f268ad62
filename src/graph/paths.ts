// Dotted paths into the run context: `ticket.customerEmail`, `changes.status.to`,
// `data.items.0.name`. Used by conditions (field) and templates ({{ path }}).

import {
  CHANGEABLE_TICKET_FIELDS,
  CONTEXT_ROOTS,
  MESSAGE_CONTEXT_FIELDS,
  SLA_CONTEXT_FIELDS,
  TICKET_CONTEXT_FIELDS,
} from './types.ts';
import type { ChangeableTicketField } from './types.ts';
import { codePointLength, isRecord, quote } from './text.ts';

/** Segments that would reach into JavaScript internals rather than the JSON data. */
const FORBIDDEN_SEGMENTS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

// A segment is any run of characters without dots, whitespace or braces; braces are excluded
// so a path can always be written inside a {{placeholder}}.
const SEGMENT = /^[^\s.{}]+$/;

export const MAX_PATH_LENGTH = 200;

/**
 * Value at a dotted path, or undefined when any step is missing. Never throws and only
 * follows own properties, so `__proto__`, `constructor` or `toString` never resolve to
 * something the JSON did not contain. Array elements are addressed by decimal index.
 */
export function getPath(root: unknown, path: string): unknown {
  if (typeof path !== 'string' || path === '') return undefined;
  let current: unknown = root;
  for (const segment of path.split('.')) {
    if (segment === '' || FORBIDDEN_SEGMENTS.includes(segment)) return undefined;
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(segment)) return undefined;
      const index = Number(segment);
      if (index >= current.length) return undefined;
      current = current[index];
    } else if (isRecord(current)) {
      if (!Object.hasOwn(current, segment)) return undefined;
      current = current[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/**
 * Why `path` is not a usable context path, or undefined when it is. The root must be one of
 * the context keys; known roots are checked one level further (a ticket field that does not
 * exist is a typo the author wants to hear about at save time, not a silent null at run time).
 */
export function contextPathProblem(path: string): string | undefined {
  if (path === '') return 'is empty';
  if (codePointLength(path, MAX_PATH_LENGTH) > MAX_PATH_LENGTH) {
    return `is longer than ${MAX_PATH_LENGTH} characters`;
  }
  const segments = path.split('.');
  for (const segment of segments) {
    if (segment === '') return `${quote(path)} has an empty segment`;
    if (!SEGMENT.test(segment)) {
      return `${quote(path)} has a segment with whitespace or braces (${quote(segment)})`;
    }
    if (FORBIDDEN_SEGMENTS.includes(segment)) {
      return `${quote(path)} uses the reserved segment ${quote(segment)}`;
    }
  }
  const [root, second, third] = segments;
  if (!(CONTEXT_ROOTS as readonly string[]).includes(root)) {
    return `${quote(path)} must start with one of ${CONTEXT_ROOTS.join(', ')}`;
  }
  if (second === undefined) return undefined;
  switch (root) {
    case 'ticket':
      if (!(TICKET_CONTEXT_FIELDS as readonly string[]).includes(second)) {
        return `${quote(path)}: the ticket has no field ${quote(second)} (fields: ${TICKET_CONTEXT_FIELDS.join(', ')})`;
      }
      return undefined;
    case 'message':
      if (!(MESSAGE_CONTEXT_FIELDS as readonly string[]).includes(second)) {
        return `${quote(path)}: the message has no field ${quote(second)} (fields: ${MESSAGE_CONTEXT_FIELDS.join(', ')})`;
      }
      return undefined;
    case 'changes':
      if (!(CHANGEABLE_TICKET_FIELDS as readonly string[]).includes(second)) {
        return `${quote(path)}: changes only reports ${CHANGEABLE_TICKET_FIELDS.join(', ')}`;
      }
      if (third !== undefined && third !== 'from' && third !== 'to') {
        return `${quote(path)}: a change has only "from" and "to"`;
      }
      return undefined; // deeper segments (changes.tags.to.0) index into the value
    case 'tag':
      return `${quote(path)}: tag is a string and has no sub-fields`;
    case 'sla':
      if (!(SLA_CONTEXT_FIELDS as readonly string[]).includes(second)) {
        return `${quote(path)}: sla has no field ${quote(second)} (fields: ${SLA_CONTEXT_FIELDS.join(', ')})`;
      }
      return third === undefined ? undefined : `${quote(path)}: sla.${second} has no sub-fields`;
    default:
      return undefined; // data.* is a free-form payload
  }
}

/**
 * The ticket field named by a changed/changed_to/changed_from condition, which accepts both
 * `status` and `ticket.status`; undefined when it names no changeable field.
 */
export function changedFieldName(field: string): ChangeableTicketField | undefined {
  const name = field.startsWith('ticket.') ? field.slice('ticket.'.length) : field;
  return (CHANGEABLE_TICKET_FIELDS as readonly string[]).includes(name)
    ? (name as ChangeableTicketField)
    : undefined;
}
