// Placeholders offered in the console (console/src/model/context.ts) and the layout of a graph.
import { describe, expect, it } from 'vitest';
import { TRIGGER_TYPES, validateGraph } from '../../../src/graph/index.ts';
import { contextPaths, insertPlaceholder } from '../../../console/src/model/context.ts';
import { tidyLayout } from '../../../console/src/model/layout.ts';

describe('contextPaths', () => {
  it('offers only placeholders the validator accepts, for every trigger', () => {
    for (const triggerType of TRIGGER_TYPES) {
      const paths = contextPaths(triggerType).map((p) => (p.endsWith('.') ? `${p}field` : p));
      expect(paths.length).toBeGreaterThan(5);
      const body = paths.map((p) => `{{${p}}}`).join(' ');
      // A scheduled workflow that replies needs tickets to reply on: a ticket filter.
      const trigger = triggerType === 'scheduled' ? { triggerType, cron: '@daily', ticketFilter: { status: ['open'] } } : { triggerType };
      const result = validateGraph(
        { nodes: [{ id: 't', type: 'trigger', data: trigger }, { id: 'r', type: 'action', data: { actionType: 'send_reply', body } }], edges: [{ source: 't', target: 'r' }] },
        triggerType,
      );
      expect(result.ok ? [] : result.issues, triggerType).toEqual([]);
    }
  });

  it('offers what each trigger\'s runs have', () => {
    expect(contextPaths('message_received')).toContain('message.body');
    expect(contextPaths('ticket_created')).not.toContain('message.body');
    expect(contextPaths('ticket_updated')).toContain('changes.status.to');
    expect(contextPaths('tag_added')).toContain('tag');
    expect(contextPaths('webhook')).toContain('data.');
    expect(contextPaths('sla_breached')).toEqual(expect.arrayContaining(['ticket.priority', 'sla.policyName', 'sla.metric', 'sla.dueAt']));
    expect(contextPaths('sla_warning')).not.toContain('data.');
  });

  it('inserts at the caret', () => {
    expect(insertPlaceholder('Hi , thanks', 3, 'ticket.customerName')).toEqual({ text: 'Hi {{ticket.customerName}}, thanks', caret: 26 });
    expect(insertPlaceholder('', 99, 'tag')).toEqual({ text: '{{tag}}', caret: 7 });
  });
});

describe('tidyLayout', () => {
  it('puts every node below the ones it follows, and none on top of another', () => {
    const nodes = ['a', 'b', 'c', 'd'].map((id) => ({ id }));
    const positions = tidyLayout(nodes, [
      { source: 'a', target: 'b' },
      { source: 'a', target: 'c' },
      { source: 'b', target: 'd' },
      { source: 'c', target: 'd' },
    ]);
    const y = (id: string) => positions.get(id)!.y;
    expect(y('a')).toBeLessThan(y('b'));
    expect(y('b')).toBeLessThan(y('d'));
    expect(y('b')).toBe(y('c'));
    expect(Math.abs(positions.get('b')!.x - positions.get('c')!.x)).toBeGreaterThanOrEqual(240);
  });
});
