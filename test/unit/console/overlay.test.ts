// A run painted on the canvas (console/src/model/overlay.ts).
import { describe, expect, it } from 'vitest';
import { graphToCanvas } from '../../../console/src/model/canvas.ts';
import { duration, runOverlay } from '../../../console/src/model/overlay.ts';
import { actionNode, paths, raiseToUrgent, subjectIsUrgent, triggerNode } from '../../helpers/graphs.ts';

const canvas = graphToCanvas({
  nodes: [triggerNode('ticket_created', 'start'), subjectIsUrgent('urgent'), raiseToUrgent(), actionNode('thanks', { actionType: 'add_tag', tag: 'calm' })],
  edges: paths('start > urgent, urgent >true raise, urgent >false thanks'),
} as never);
const t = '2026-01-31T09:00:00.000Z';

describe('runOverlay', () => {
  it('gives every node a status: its step\'s, or not reached once the run is over', () => {
    const steps = [
      { nodeId: 'start', status: 'passed', startedAt: t, completedAt: t },
      { nodeId: 'urgent', status: 'passed', result: true, startedAt: t, completedAt: t },
      { nodeId: 'raise', status: 'completed', startedAt: t, completedAt: t },
    ];
    const overlay = runOverlay(canvas, steps, true);
    expect([...overlay.nodes].map(([id, n]) => [id, n.status, n.reached])).toEqual([
      ['start', 'passed', true],
      ['urgent', 'passed', true],
      ['raise', 'completed', true],
      ['thanks', 'not_reached', false],
    ]);
    expect([...overlay.followed]).toEqual([canvas.edges[0].id, canvas.edges[1].id]);
    expect(overlay.missing).toEqual([]);
  });

  it('follows the false branch of a condition that did not hold, and not from a failed or waiting node', () => {
    const overlay = runOverlay(canvas, [
      { nodeId: 'start', status: 'passed' },
      { nodeId: 'urgent', status: 'passed', result: false },
      { nodeId: 'thanks', status: 'failed', error: 'the ticket is gone' },
    ], true);
    expect([...overlay.followed]).toEqual([canvas.edges[0].id, canvas.edges[2].id]);
    expect(overlay.nodes.get('thanks')).toMatchObject({ status: 'failed', error: 'the ticket is gone' });
  });

  it('says pending, not "not reached", while the run goes on, and names steps of nodes the graph no longer has', () => {
    const overlay = runOverlay(canvas, [{ nodeId: 'start', status: 'passed' }, { nodeId: 'gone', status: 'completed' }], false);
    expect(overlay.nodes.get('raise')!.status).toBe('pending');
    expect(overlay.missing).toEqual(['gone']);
  });

  it('marks the steps of a dry run or a backtest as simulated, so their actions read "would …"', () => {
    const steps = [{ nodeId: 'start', status: 'passed' }, { nodeId: 'urgent', status: 'passed', result: true }, { nodeId: 'raise', status: 'completed' }];
    expect(runOverlay(canvas, steps, true, true).nodes.get('raise')).toMatchObject({ status: 'completed', simulated: true });
    expect(runOverlay(canvas, steps, true).nodes.get('raise')!.simulated).toBeUndefined();
  });

  it('keeps a status it does not know (a newer server\'s) as it is', () => {
    expect(runOverlay(canvas, [{ nodeId: 'raise', status: 'skipped_by_policy' }], true).nodes.get('raise')!.status).toBe('skipped_by_policy');
  });
});

describe('duration', () => {
  it('reads for people, and is undefined while running', () => {
    expect(duration(t, '2026-01-31T09:00:00.120Z')).toBe('120 ms');
    expect(duration(t, '2026-01-31T09:00:04.200Z')).toBe('4.2 s');
    expect(duration(t, '2026-01-31T09:03:05.000Z')).toBe('3 min 5 s');
    expect(duration(t, null)).toBeUndefined();
  });
});
