// How runs read (console/src/model/run-words.ts) and what "Try it" checks first
// (console/src/model/try.ts).
import { describe, expect, it } from 'vitest';
import type { Ticket } from '../../../console/src/api-types.ts';
import { runCount, runStatusText, simulatedKind, stepBadge, tookNoAction } from '../../../console/src/model/run-words.ts';
import { missingTicket, pickedTicket } from '../../../console/src/model/try.ts';
import { urgent } from './fixtures.ts';

describe('a step\'s badge', () => {
  it('is a condition\'s true or false, not "passed"', () => {
    expect(stepBadge({ status: 'passed', result: true }, 'condition')).toEqual({ text: 'true', tone: 'outcome-true' });
    expect(stepBadge({ status: 'passed', result: false }, 'condition')).toEqual({ text: 'false', tone: 'outcome-false' });
    expect(stepBadge({ status: 'not_reached' }, 'condition').text).toBe('not reached');
    expect(stepBadge({ status: 'passed' }, 'trigger').text).toBe('passed');
  });

  it('says what a dry run\'s action would do; a real run\'s says what it did', () => {
    expect(stepBadge({ status: 'completed' }, 'action', { simulated: true, actionType: 'set_priority' }).text).toBe('would set priority');
    expect(stepBadge({ status: 'completed' }, 'action', { simulated: true }).text).toBe('would run');
    expect(stepBadge({ status: 'failed' }, 'action', { simulated: true, actionType: 'send_reply' }).text).toBe('would fail');
    expect(stepBadge({ status: 'completed' }, 'action', { actionType: 'set_priority' }).text).toBe('completed');
  });

  it('tells a dry run\'s steps apart by what they carry', () => {
    expect(simulatedKind({ action: { actionType: 'add_tag' } })).toBe('action');
    expect(simulatedKind({ result: false })).toBe('condition');
    expect(simulatedKind({})).toBeUndefined();
  });
});

describe('a run that took no action', () => {
  const passed = (nodeId: string, result?: boolean) => ({ nodeId, status: 'passed', ...(result === undefined ? {} : { result }) });
  const idle = { status: 'completed' as const, steps: [passed('start'), passed('is-urgent', false)] };
  const acted = { status: 'completed' as const, steps: [passed('start'), passed('is-urgent', true), { nodeId: 'raise', status: 'completed' }] };

  it('says so, in the list and in the counts', () => {
    expect(tookNoAction(idle)).toBe(true);
    expect(tookNoAction(acted)).toBe(false);
    expect(tookNoAction({ status: 'running', steps: [passed('start')] })).toBe(false);
    expect([runStatusText(idle), runStatusText(acted)]).toEqual(['no action', 'completed']);
    expect(runCount([idle, acted, acted])).toBe('3 runs, 1 of which took no action');
    expect(runCount([idle])).toBe('1 run, which took no action');
    expect(runCount([idle, idle], true)).toBe('2+ runs, all of which took no action');
    expect(runCount([acted])).toBe('1 run');
  });
});

describe('"Try it"', () => {
  it('says a ticket trigger\'s dry run needs a ticket, and asks for none', () => {
    expect(missingTicket('ticket_created', urgent(), {})).toEqual({ blocks: true, message: expect.stringContaining('a ticket created run always has one') });
  });

  it('warns a manual run without a ticket which actions would fail, and runs it all the same', () => {
    const graph = { nodes: [{ id: 'go', type: 'trigger', data: { triggerType: 'manual' } }, { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'x' } }], edges: [{ source: 'go', target: 'tag' }] };
    expect(missingTicket('manual', graph as never, {})).toEqual({ blocks: false, message: expect.stringContaining('node "tag" (add_tag) needs a ticket') });
    const ticketless = { nodes: [graph.nodes[0]], edges: [] };
    expect(missingTicket('manual', ticketless as never, {})).toBeNull();
  });

  it('picks the ticket a search finds first, or the one whose id was pasted', () => {
    const found = [{ id: 'a1' }, { id: 'b2' }] as Ticket[];
    expect(pickedTicket('printer', found)).toBe('a1');
    expect(pickedTicket('printer', [])).toBe('');
    expect(pickedTicket(' 0F8E7D6C-1234-4abc-8def-0123456789AB ', found)).toBe('0f8e7d6c-1234-4abc-8def-0123456789ab');
  });
});
