// The Approvals page's state (console/src/model/approvals-page.ts), the branch a run's approval
// took on the canvas (overlay.ts) and how a node card says who is asked (summary.ts).
import { describe, expect, it } from 'vitest';
import { ApiError, type Approval } from '../../../console/src/api-types.ts';
import { approvalsPageReducer, cannotDecide, initialApprovalsPage, pendingFirst, timeLeft } from '../../../console/src/model/approvals-page.ts';
import { graphToCanvas } from '../../../console/src/model/canvas.ts';
import { branchOf, runOverlay } from '../../../console/src/model/overlay.ts';
import { summarize } from '../../../console/src/model/summary.ts';
import { refundApproval } from '../../helpers/graphs.ts';

const approval = (over: Partial<Approval> = {}): Approval => ({
  id: 'a1',
  source: 'run',
  workflowId: 'w1',
  executionId: 'e1',
  ticketId: 't1',
  nodeId: 'ask',
  draftId: null,
  question: 'Refund 120 EUR?',
  approvers: ['dana', 'lee'],
  quorum: 'any',
  status: 'pending',
  decisions: [],
  requestedAt: '2026-11-28T10:00:00.000Z',
  dueAt: null,
  decidedAt: null,
  ...over,
});

describe('the Approvals page', () => {
  it('moves an approval to the decided ones once a decision decided it, and says what the run does next', () => {
    let state = approvalsPageReducer(initialApprovalsPage('lee'), { type: 'loaded', pending: [approval(), approval({ id: 'a2' })], recent: [approval(), approval({ id: 'a3', status: 'expired' })] });
    expect(state.pending!.map((a) => a.id)).toEqual(['a1', 'a2']);
    expect(state.decided.map((a) => a.id)).toEqual(['a3']);
    state = approvalsPageReducer(state, { type: 'comment', approvalId: 'a1', text: 'Fine.' });
    state = approvalsPageReducer(state, { type: 'decideStarted', approvalId: 'a1', decision: 'approve' });
    expect(state.sending).toEqual({ a1: 'approve' });
    const decided = approval({ status: 'approved', decidedAt: '2026-11-28T10:05:00.000Z', decisions: [{ userId: 'lee', decision: 'approve', comment: 'Fine.', at: '2026-11-28T10:05:00.000Z' }] });
    state = approvalsPageReducer(state, { type: 'decided', approval: decided });
    expect(state.pending!.map((a) => a.id)).toEqual(['a2']);
    expect(state.decided.map((a) => a.id)).toEqual(['a1', 'a3']);
    expect(state).toMatchObject({ sending: {}, comments: {}, notice: 'Approved as lee: the run goes on down its true branch.' });
  });

  it('keeps an approval with quorum all pending after one yes, naming who is still to decide', () => {
    let state = approvalsPageReducer(initialApprovalsPage('dana'), { type: 'loaded', pending: [approval({ quorum: 'all' })], recent: [] });
    const half = approval({ quorum: 'all', decisions: [{ userId: 'dana', decision: 'approve', comment: null, at: '2026-11-28T10:05:00.000Z' }] });
    state = approvalsPageReducer(state, { type: 'decided', approval: half });
    expect(state.pending).toEqual([half]);
    expect(state.notice).toBe('Approved as dana. Every approver must approve: still waiting for lee.');
  });

  it('shows the server\'s refusal beside the approval, and any other failure in the banner', () => {
    let state = approvalsPageReducer(initialApprovalsPage('lee'), { type: 'decideStarted', approvalId: 'a1', decision: 'reject' });
    state = approvalsPageReducer(state, { type: 'decideFailed', approvalId: 'a1', error: new ApiError(409, 'approval_not_pending', 'The approval is no longer pending: it is expired.', [], null) });
    expect(state).toMatchObject({ sending: {}, refusals: { a1: 'The approval is no longer pending: it is expired.' }, error: null });
    const down = new ApiError(503, 'unavailable', 'Retry later.', [], null);
    expect(approvalsPageReducer(state, { type: 'decideFailed', approvalId: 'a2', error: down }).error).toBe(down);
    expect(approvalsPageReducer(state, { type: 'actAs', userId: 'dana' }).refusals).toEqual({});
  });

  it('says why the chosen member cannot decide, and lists first what they owe', () => {
    const a = approval({ decisions: [{ userId: 'dana', decision: 'approve', comment: null, at: '2026-11-28T10:05:00.000Z' }], quorum: 'all' });
    expect(cannotDecide(a, '')).toBe('Choose who you decide as.');
    expect(cannotDecide(a, 'kim')).toBe('kim is not among its approvers.');
    expect(cannotDecide(a, 'dana')).toBe('dana has decided already (approve).');
    expect(cannotDecide(a, 'lee')).toBeNull();
    expect(cannotDecide(approval({ status: 'cancelled' }), 'lee')).toBe('It is cancelled.');
    const others = approval({ id: 'a2', approvers: ['kim'] });
    expect(pendingFirst([others, a], 'lee').map((x) => x.id)).toEqual(['a1', 'a2']);
  });

  it('says how much time is left, or that none is set, or how long ago it was due', () => {
    const now = Date.parse('2026-11-28T10:00:00.000Z');
    expect(timeLeft({ dueAt: null }, now)).toBe('no time-out');
    expect(timeLeft({ dueAt: '2026-11-28T12:05:30.000Z' }, now)).toBe('2 h 5 min left');
    expect(timeLeft({ dueAt: '2026-11-28T10:00:20.000Z' }, now)).toBe('less than a minute left');
    expect(timeLeft({ dueAt: '2026-11-28T09:57:00.000Z' }, now)).toBe('due 3 min ago');
  });
});

describe('a run\'s approval on the canvas', () => {
  const canvas = graphToCanvas(refundApproval(['dana'], { timeoutSeconds: 60, onTimeout: 'approve' }).workflowJson as never);
  const t = '2026-11-28T10:00:00.000Z';

  it('follows the branch its decision took: approved true, rejected false, expired as onTimeout says', () => {
    expect(branchOf({ approvalId: 'a', decision: 'approved', decidedBy: ['dana'] }, {})).toBe(true);
    expect(branchOf({ approvalId: 'a', decision: 'rejected', decidedBy: ['dana'] }, {})).toBe(false);
    expect(branchOf({ approvalId: 'a', decision: 'expired', decidedBy: [] }, { onTimeout: 'approve' })).toBe(true);
    expect(branchOf({ approvalId: 'a', decision: 'expired', decidedBy: [] }, {})).toBe(false);
    expect(branchOf({ approvalId: 'a' }, {})).toBeUndefined();
    expect(branchOf(true, {})).toBe(true);
    const overlay = runOverlay(canvas, [
      { nodeId: 'start', status: 'passed', startedAt: t, completedAt: t },
      { nodeId: 'ask', status: 'completed', result: { approvalId: 'a', decision: 'expired', decidedBy: [] }, startedAt: t, completedAt: t },
      { nodeId: 'approved', status: 'completed', startedAt: t, completedAt: t },
    ], true);
    const followed = canvas.edges.filter((e) => overlay.followed.has(e.id)).map((e) => `${e.source}>${e.target}`);
    expect(followed).toEqual(['start>ask', 'ask>approved']);
  });

  it('names who is asked on the node\'s card', () => {
    expect(summarize('action', { actionType: 'request_approval', approvers: ['dana', 'lee'], question: 'Refund?', quorum: 'all' })).toBe('request_approval · approvers: dana, lee, question: "Refund?", quorum: "all"');
  });
});
