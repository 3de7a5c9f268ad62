import { describe, expect, it } from 'vitest';
import { getPath } from '../../../src/graph/index.ts';
import { changedFieldName, contextPathProblem } from '../../../src/graph/paths.ts';

const ctx = {
  ticket: { customerEmail: 'a@b.c', tags: ['x', 'y'], customerName: null },
  data: { items: [{ name: 'first' }, { name: 'second' }], 'odd-key': 1, zero: 0 },
};

describe('getPath', () => {
  it('follows dotted paths and array indexes', () => {
    expect(getPath(ctx, 'ticket.customerEmail')).toBe('a@b.c');
    expect(getPath(ctx, 'data.items.1.name')).toBe('second');
    expect(getPath(ctx, 'ticket.tags.0')).toBe('x');
    expect(getPath(ctx, 'data.odd-key')).toBe(1);
    expect(getPath(ctx, 'data.zero')).toBe(0);
    expect(getPath(ctx, 'ticket.customerName')).toBe(null);
  });
  it.each<[string, unknown]>([
    ['ticket.missing', ctx],
    ['ticket.customerEmail.length', ctx],
    ['data.items.5.name', ctx],
    ['data.items.01', ctx],
    ['data.items.-1', ctx],
    ['data.items.length', ctx],
    ['ticket.customerName.x', ctx],
    ['', ctx],
    ['ticket..tags', ctx],
    ['ticket', null],
    ['length', 'text'],
  ])('answers undefined for the missing step %j without throwing', (path, value) => {
    expect(getPath(value, path)).toBeUndefined();
  });
  it('never walks into prototype properties', () => {
    expect(getPath(ctx, 'ticket.__proto__')).toBeUndefined();
    expect(getPath(ctx, 'ticket.constructor')).toBeUndefined();
    expect(getPath(ctx, 'ticket.constructor.name')).toBeUndefined();
    expect(getPath(ctx, 'ticket.toString')).toBeUndefined();
    expect(getPath(ctx, 'ticket.hasOwnProperty')).toBeUndefined();
    const parsed: unknown = JSON.parse('{"data":{"__proto__":{"x":1}}}');
    expect(getPath(parsed, 'data.__proto__.x')).toBeUndefined();
  });
});

describe('contextPathProblem', () => {
  it('accepts paths under the known roots', () => {
    for (const p of ['ticket', 'ticket.status', 'ticket.tags.0', 'message.body', 'changes.status.to', 'changes.tags', 'tag', 'data.x.y.0', 'ticket.language', 'sla', 'sla.dueAt', 'sla.policyName']) {
      expect(contextPathProblem(p)).toBeUndefined();
    }
  });
  it('rejects unknown roots, unknown ticket/message fields and malformed paths', () => {
    expect(contextPathProblem('user.name')).toMatch(/must start with one of ticket, message, changes, tag, sla, data/);
    expect(contextPathProblem('ticket.priorty')).toMatch(/no field "priorty"/);
    expect(contextPathProblem('message.text')).toMatch(/no field "text"/);
    expect(contextPathProblem('changes.source')).toMatch(/changes only reports/);
    expect(contextPathProblem('changes.status.before')).toMatch(/"from" and "to"/);
    expect(contextPathProblem('tag.name')).toMatch(/no sub-fields/);
    expect(contextPathProblem('sla.deadline')).toMatch(/sla has no field "deadline" \(fields: policyId, policyName, metric, dueAt\)/);
    expect(contextPathProblem('sla.dueAt.x')).toMatch(/no sub-fields/);
    expect(contextPathProblem('data..x')).toMatch(/empty segment/);
    expect(contextPathProblem('data.a b')).toMatch(/whitespace or braces/);
    expect(contextPathProblem('data.__proto__')).toMatch(/reserved segment/);
    expect(contextPathProblem('')).toBe('is empty');
    expect(contextPathProblem(`data.${'x'.repeat(200)}`)).toMatch(/longer than 200/);
  });
});

describe('changedFieldName', () => {
  it('accepts bare and ticket-prefixed changeable fields', () => {
    expect(changedFieldName('status')).toBe('status');
    expect(changedFieldName('ticket.assignedTo')).toBe('assignedTo');
    expect(changedFieldName('ticket.source')).toBeUndefined();
    expect(changedFieldName('changes.status')).toBeUndefined();
  });
});
