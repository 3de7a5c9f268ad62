// `{{ path }}` placeholders in action parameters (reply body, tag, assignee, http url,
// header values and body), filled from the run context when the action runs.
//
// Rendering: a string as is; a number or boolean via String(); null or missing as ''; an array
// of scalars joined with ', '; any other array or object as JSON; in a reply's bodyHtml, each
// inserted value HTML-escaped. Spaces inside the braces are allowed. An unterminated `{{` is left literally, as is any text between braces that
// contains a brace itself.

import { getPath } from './paths.ts';
import { isRecord } from './text.ts';
import type { ActionData, RunContext } from './types.ts';

// Created per call: a /g regex carries lastIndex, and this module keeps no shared state.
function placeholderPattern(): RegExp {
  return /\{\{([^{}]*)\}\}/g;
}

/** `as: 'html'` escapes what the placeholders insert (the text around them is the author's HTML). */
export function renderTemplate(text: string, context: RunContext | unknown, opts: { as?: 'text' | 'html' } = {}): string {
  return text.replace(placeholderPattern(), (_whole, inner: string) => {
    const value = renderValue(getPath(context, inner.trim()));
    return opts.as === 'html' ? escapeHtml(value) : value;
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The paths named by the placeholders of `text`, trimmed, in order ('' for `{{ }}`). */
export function templatePaths(text: string): string[] {
  return Array.from(text.matchAll(placeholderPattern()), (m) => (m[1] ?? '').trim());
}

/** True when `text` contains at least one placeholder. */
export function hasPlaceholder(text: string): boolean {
  return placeholderPattern().test(text);
}

// Validation caps http_request bodies far below this; the cap only keeps an unvalidated
// value from overflowing the stack.
const MAX_DEEP = 64;

/**
 * Renders every string inside a JSON value (object keys are kept as written). Returns a new
 * value; the input is not modified.
 */
export function renderTemplateDeep(value: unknown, context: RunContext | unknown): unknown {
  return renderDeepAt(value, context, 0);
}

function renderDeepAt(value: unknown, context: unknown, depth: number): unknown {
  if (typeof value === 'string') return renderTemplate(value, context);
  if (depth >= MAX_DEEP) return value;
  if (Array.isArray(value)) return value.map((v) => renderDeepAt(v, context, depth + 1));
  if (isRecord(value)) {
    // fromEntries defines own properties, so a key named "__proto__" stays a plain key.
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, renderDeepAt(v, context, depth + 1)]),
    );
  }
  return value;
}

function isScalar(v: unknown): boolean {
  return v === null || v === undefined || ['string', 'number', 'boolean'].includes(typeof v);
}

function renderValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every(isScalar)) return v.map(renderValue).join(', ');
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

/** An action with the `{{path}}` placeholders of its text parameters filled from the run's context. */
export function renderAction(action: ActionData, context: RunContext): ActionData {
  switch (action.actionType) {
    case 'assign_ticket':
      return { ...action, assignTo: renderTemplate(action.assignTo, context) };
    case 'add_tag':
    case 'remove_tag':
      return { ...action, tag: renderTemplate(action.tag, context) };
    case 'send_reply':
      return {
        ...action,
        body: renderTemplate(action.body, context),
        ...(action.bodyHtml !== undefined ? { bodyHtml: renderTemplate(action.bodyHtml, context, { as: 'html' }) } : {}),
      };
    case 'http_request':
      return {
        ...action,
        url: renderTemplate(action.url, context),
        ...(action.headers ? { headers: renderTemplateDeep(action.headers, context) as Record<string, string> } : {}),
        ...(action.body !== undefined ? { body: renderTemplateDeep(action.body, context) as typeof action.body } : {}),
      };
    case 'request_approval':
      return { ...action, question: renderTemplate(action.question, context) };
    default:
      return action;
  }
}
