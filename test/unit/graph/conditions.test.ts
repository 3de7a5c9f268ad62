import { describe, expect, it } from 'vitest';
import { evaluateCondition, PatternError } from '../../../src/graph/index.ts';
import type { ConditionData, Operator, RunContext } from '../../../src/graph/index.ts';

const ctx: RunContext = {
  ticket: {
    subject: 'Refund for Order #42',
    status: 'open',
    priority: 'high',
    customerEmail: 'Ann@Example.com',
    customerName: null,
    tags: ['VIP', 'billing'],
    createdAt: '2025-01-15T10:00:00Z',
    language: 'en',
  },
  message: { body: '   ' },
  changes: { status: { from: 'pending', to: 'open' }, tags: { from: [], to: ['vip'] } },
  tag: 'Urgent',
  data: { count: 5, countText: '5', flag: true, empty: {}, list: [], nested: { items: [{ name: 'x' }] } },
};

function holds(field: string, operator: Operator, value?: unknown, caseSensitive?: boolean): boolean {
  const leaf: ConditionData = { field, operator };
  if (value !== undefined) leaf.value = value;
  if (caseSensitive !== undefined) leaf.caseSensitive = caseSensitive;
  return evaluateCondition(leaf, ctx);
}

describe('equals / not_equals', () => {
  it('compares strings case-insensitively by default', () => {
    expect(holds('ticket.status', 'equals', 'OPEN')).toBe(true);
    expect(holds('ticket.customerEmail', 'equals', 'ann@example.com')).toBe(true);
    expect(holds('ticket.status', 'not_equals', 'OPEN')).toBe(false);
  });
  it('respects caseSensitive: true', () => {
    expect(holds('ticket.status', 'equals', 'OPEN', true)).toBe(false);
    expect(holds('ticket.status', 'equals', 'open', true)).toBe(true);
    expect(holds('ticket.status', 'not_equals', 'OPEN', true)).toBe(true);
  });
  it('does not coerce between numbers, numeric strings and booleans', () => {
    expect(holds('data.count', 'equals', 5)).toBe(true);
    expect(holds('data.count', 'equals', '5')).toBe(false);
    expect(holds('data.countText', 'equals', 5)).toBe(false);
    expect(holds('data.flag', 'equals', 'true')).toBe(false);
    expect(holds('data.count', 'not_equals', '5')).toBe(true);
  });
  it('treats a missing path and null as null', () => {
    expect(holds('ticket.assignedTo', 'equals', null)).toBe(true);
    expect(holds('ticket.customerName', 'equals', null)).toBe(true);
    expect(holds('ticket.assignedTo', 'equals', 'ai')).toBe(false);
    expect(holds('ticket.assignedTo', 'not_equals', 'ai')).toBe(true);
  });
  it('is false for an array compared with a scalar', () => {
    expect(holds('ticket.tags', 'equals', 'vip')).toBe(false);
  });
});

describe('contains / not_contains', () => {
  it('finds substrings case-insensitively', () => {
    expect(holds('ticket.subject', 'contains', 'refund')).toBe(true);
    expect(holds('ticket.subject', 'contains', 'refund', true)).toBe(false);
    expect(holds('ticket.subject', 'not_contains', 'invoice')).toBe(true);
  });
  it('finds array elements with equals semantics', () => {
    expect(holds('ticket.tags', 'contains', 'vip')).toBe(true);
    expect(holds('ticket.tags', 'contains', 'vip', true)).toBe(false);
    expect(holds('ticket.tags', 'contains', 'bill')).toBe(false);
    expect(holds('ticket.tags', 'not_contains', 'spam')).toBe(true);
  });
  it('is false on other types and missing paths (not_contains true)', () => {
    expect(holds('data.count', 'contains', '5')).toBe(false);
    expect(holds('ticket.subject', 'contains', 42)).toBe(false);
    expect(holds('data.missing', 'contains', 'x')).toBe(false);
    expect(holds('data.missing', 'not_contains', 'x')).toBe(true);
  });
});

describe('starts_with / ends_with', () => {
  it('works on strings with the case rule', () => {
    expect(holds('ticket.subject', 'starts_with', 'refund')).toBe(true);
    expect(holds('ticket.subject', 'starts_with', 'refund', true)).toBe(false);
    expect(holds('ticket.subject', 'ends_with', '#42')).toBe(true);
    expect(holds('ticket.subject', 'ends_with', 'order')).toBe(false);
  });
  it('is false on non-strings and missing paths', () => {
    expect(holds('ticket.tags', 'starts_with', 'VIP')).toBe(false);
    expect(holds('data.count', 'starts_with', '5')).toBe(false);
    expect(holds('data.missing', 'ends_with', 'x')).toBe(false);
  });
});

describe('in / not_in', () => {
  it('matches a member of the list', () => {
    expect(holds('ticket.priority', 'in', ['HIGH', 'urgent'])).toBe(true);
    expect(holds('ticket.priority', 'in', ['HIGH', 'urgent'], true)).toBe(false);
    expect(holds('ticket.priority', 'not_in', ['low', 'medium'])).toBe(true);
    expect(holds('data.count', 'in', [1, 5])).toBe(true);
    expect(holds('data.count', 'in', ['5'])).toBe(false);
  });
  it('handles missing paths and non-list values', () => {
    expect(holds('data.missing', 'in', ['a'])).toBe(false);
    expect(holds('data.missing', 'in', [null])).toBe(true);
    expect(holds('data.missing', 'not_in', ['a'])).toBe(true);
    expect(holds('ticket.priority', 'in', 'high')).toBe(false);
  });
});

describe('ordering operators', () => {
  it('compares numbers', () => {
    expect(holds('data.count', 'greater_than', 4)).toBe(true);
    expect(holds('data.count', 'greater_than', 5)).toBe(false);
    expect(holds('data.count', 'greater_or_equal', 5)).toBe(true);
    expect(holds('data.count', 'less_than', 6)).toBe(true);
    expect(holds('data.count', 'less_or_equal', 4)).toBe(false);
  });
  it('compares ISO dates as instants, across offsets and date-only forms', () => {
    expect(holds('ticket.createdAt', 'greater_than', '2025-01-15')).toBe(true);
    expect(holds('ticket.createdAt', 'less_than', '2025-01-15T11:00:00+01:30')).toBe(false);
    expect(holds('ticket.createdAt', 'less_than', '2025-01-15T11:00:00+00:30')).toBe(true);
    expect(holds('ticket.createdAt', 'less_or_equal', '2025-01-15T12:00:00+02:00')).toBe(true);
    expect(holds('ticket.createdAt', 'greater_or_equal', '2025-01-15T10:00:00.000Z')).toBe(true);
  });
  it('is false for mismatched or non-comparable types', () => {
    expect(holds('data.countText', 'greater_than', 1)).toBe(false);
    expect(holds('data.count', 'greater_than', '1')).toBe(false);
    expect(holds('ticket.createdAt', 'greater_than', 0)).toBe(false);
    expect(holds('ticket.subject', 'less_than', 'zzz')).toBe(false);
    expect(holds('data.missing', 'less_than', 10)).toBe(false);
    expect(holds('data.missing', 'greater_or_equal', 10)).toBe(false);
  });
});

describe('is_empty / is_not_empty', () => {
  it('treats null, missing, blank, [] and {} as empty', () => {
    for (const field of ['ticket.customerName', 'data.missing', 'message.body', 'data.empty', 'data.list']) {
      expect(holds(field, 'is_empty')).toBe(true);
      expect(holds(field, 'is_not_empty')).toBe(false);
    }
  });
  it('treats numbers, booleans and content as not empty', () => {
    for (const field of ['ticket.subject', 'data.count', 'data.flag', 'ticket.tags', 'data.nested']) {
      expect(holds(field, 'is_empty')).toBe(false);
      expect(holds(field, 'is_not_empty')).toBe(true);
    }
  });
});

describe('matches', () => {
  it('tests a regex case-insensitively unless caseSensitive', () => {
    expect(holds('ticket.subject', 'matches', '^refund.*#\\d+$')).toBe(true);
    expect(holds('ticket.subject', 'matches', '^refund', true)).toBe(false);
    expect(holds('ticket.subject', 'matches', '^Refund', true)).toBe(true);
  });
  it('is false for non-strings and missing paths', () => {
    expect(holds('data.count', 'matches', '5')).toBe(false);
    expect(holds('data.missing', 'matches', '.*')).toBe(false);
  });
  it('throws a PatternError for a pattern that cannot run', () => {
    expect(() => holds('ticket.subject', 'matches', '(')).toThrow(/pattern "\(" is not a valid RE2 regular expression: missing closing \)/);
  });
});

describe('changed / changed_to / changed_from', () => {
  it('detects a changed field by bare or ticket-prefixed name', () => {
    expect(holds('status', 'changed')).toBe(true);
    expect(holds('ticket.status', 'changed')).toBe(true);
    expect(holds('priority', 'changed')).toBe(false);
  });
  it('compares to / from with equals semantics', () => {
    expect(holds('status', 'changed_to', 'OPEN')).toBe(true);
    expect(holds('status', 'changed_to', 'OPEN', true)).toBe(false);
    expect(holds('status', 'changed_from', 'pending')).toBe(true);
    expect(holds('status', 'changed_from', 'open')).toBe(false);
  });
  it('is false when the field did not change, even for null', () => {
    expect(holds('priority', 'changed_to', null)).toBe(false);
    expect(evaluateCondition({ field: 'status', operator: 'changed' }, { ticket: {} })).toBe(false);
  });
  it('is false for a field that is not a ticket field', () => {
    expect(holds('data.count', 'changed')).toBe(false);
  });
});

describe('groups', () => {
  const yes: ConditionData = { field: 'ticket.status', operator: 'equals', value: 'open' };
  const no: ConditionData = { field: 'ticket.status', operator: 'equals', value: 'closed' };
  it('all = every, any = some', () => {
    expect(evaluateCondition({ match: 'all', conditions: [yes, yes] }, ctx)).toBe(true);
    expect(evaluateCondition({ match: 'all', conditions: [yes, no] }, ctx)).toBe(false);
    expect(evaluateCondition({ match: 'any', conditions: [no, yes] }, ctx)).toBe(true);
    expect(evaluateCondition({ match: 'any', conditions: [no, no] }, ctx)).toBe(false);
  });
  it('empty all is true, empty any is false', () => {
    expect(evaluateCondition({ match: 'all', conditions: [] }, ctx)).toBe(true);
    expect(evaluateCondition({ match: 'any', conditions: [] }, ctx)).toBe(false);
  });
  it('nests', () => {
    const cond: ConditionData = { match: 'all', conditions: [yes, { match: 'any', conditions: [no, yes] }] };
    expect(evaluateCondition(cond, ctx)).toBe(true);
  });
});

describe('totality', () => {
  it('never throws on odd input', () => {
    const odd: unknown[] = [null, 42, 'x', [], { field: 1, operator: 'equals' }, { match: 'most', conditions: [] }];
    for (const cond of odd) {
      expect(evaluateCondition(cond as ConditionData, ctx)).toBe(false);
      expect(evaluateCondition(yesLeaf(), cond)).toBe(false);
    }
    expect(evaluateCondition({ field: 'ticket.status', operator: 'nope' as Operator, value: 'open' }, ctx)).toBe(false);
  });
});

function yesLeaf(): ConditionData {
  return { field: 'ticket.status', operator: 'equals', value: 'open' };
}

describe('matches for runs begun before patterns ran on RE2', () => {
  const leaf = (value: string, caseSensitive = false) => ({ field: 'message.body', operator: 'matches' as const, value, caseSensitive });
  const body = (text: string) => ({ message: { body: text } });

  it('runs on RegExp as those runs did: lookahead and back-references work, an invalid pattern never matches', () => {
    const legacy = { regExpPatterns: true };
    expect(evaluateCondition(leaf('^(?=.*refund).*order'), body('Refund for my order'), legacy)).toBe(true);
    expect(evaluateCondition(leaf('(ab)\\1'), body('xabab'), legacy)).toBe(true);
    expect(evaluateCondition(leaf('(unclosed'), body('anything'), legacy)).toBe(false);
    expect(evaluateCondition(leaf('REFUND', true), body('refund'), legacy)).toBe(false);
    expect(() => evaluateCondition(leaf('^(?=.*refund).*order'), body('Refund for my order'))).toThrow(PatternError);
  });
});
