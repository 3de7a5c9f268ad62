import type { Approval } from '../api.ts';
import { cannotDecide, pendingFirst, timeLeft } from '../model/approvals-page.ts';
import { href } from '../router.ts';
import { ErrorBanner, Loading, NoticeBanner, StatusBadge, Time } from '../ui/common.tsx';
import { Decisions } from '../ui/Decisions.tsx';
import { useMembers } from '../ui/members.tsx';
import { useApprovalsPage, type ApprovalsPageModel } from './approvals/useApprovalsPage.ts';

/** The decisions runs wait for (request_approval), pending first, and those made lately. */
export function ApprovalsPage() {
  const page = useApprovalsPage();
  const { state, dispatch, actAs } = page;
  const members = useMembers();
  return (
    <section className="page approvals-page">
      <div className="page-head">
        <h1>Approvals</h1>
        <div className="toolbar">
          <label className="inline">
            Deciding as
            <select name="actingAs" value={state.actingAs} onChange={(e) => actAs(e.target.value)}>
              <option value="">Choose a member…</option>
              {(members.list ?? []).map((m) => (
                <option key={m.userId} value={m.userId}>{m.userId}{m.role === 'admin' ? ' (admin)' : ''}</option>
              ))}
              {state.actingAs !== '' && members.list !== null && !members.list.some((m) => m.userId === state.actingAs) && (
                <option value={state.actingAs}>{`${state.actingAs}: not a member`}</option>
              )}
            </select>
          </label>
          <button type="button" onClick={() => void page.reload()}>Reload</button>
        </div>
      </div>
      <p className="muted">
        What automations ask people before they go on: a refund over the limit, a downgrade, a reply to an angry customer. The run waits for the decision (or its
        time-out) and goes on down the branch it chooses within a second. The AI owner's draft replies wait here too: approved, the reply is sent; rejected, it is
        discarded and the ticket goes to a person.
      </p>
      <ErrorBanner error={state.error} onClose={() => dispatch({ type: 'dismiss', what: 'error' })} />
      <NoticeBanner notice={state.notice} onClose={() => dispatch({ type: 'dismiss', what: 'notice' })} />
      <h2>Pending</h2>
      {state.pending === null ? (
        state.error ? null : <Loading />
      ) : state.pending.length === 0 ? (
        <p className="muted" data-testid="no-pending">Nothing is waiting for a decision.</p>
      ) : (
        <ul className="approvals" data-testid="pending-approvals">
          {pendingFirst(state.pending, state.actingAs).map((a) => (
            <PendingApproval key={a.id} approval={a} page={page} />
          ))}
        </ul>
      )}
      <h2>Decided lately</h2>
      {state.decided.length === 0 ? (
        <p className="muted">No approval was decided, expired or cancelled lately.</p>
      ) : (
        <table className="list" data-testid="decided-approvals">
          <thead>
            <tr>
              <th>Question</th>
              <th>Outcome</th>
              <th>Who decided what</th>
              <th>Asked by</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {state.decided.map((a) => (
              <tr key={a.id} data-approval-id={a.id} data-status={a.status}>
                <td className="user-text">{a.question}</td>
                <td><StatusBadge status={a.status} /></td>
                <td><Decisions approval={a} /></td>
                <td><AskedBy approval={a} names={state.workflowNames} /></td>
                <td><Time at={a.decidedAt} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function PendingApproval({ approval: a, page }: { approval: Approval; page: ApprovalsPageModel }) {
  const { state, dispatch, decide, now } = page;
  const why = cannotDecide(a, state.actingAs);
  const sending = state.sending[a.id];
  const refusal = state.refusals[a.id];
  const overdue = a.dueAt !== null && Date.parse(a.dueAt) <= now;
  return (
    <li className="approval" data-approval-id={a.id}>
      <p className="question user-text">{a.question}</p>
      <div className="muted small">
        {a.ticketId && (
          <>
            Ticket <a href={href.ticket(a.ticketId)} className="user-text">{state.ticketSubjects[a.ticketId] ?? a.ticketId}</a> ·{' '}
          </>
        )}
        asked by <AskedBy approval={a} names={state.workflowNames} /> <Time at={a.requestedAt} /> ·{' '}
        <span className={overdue ? 'error-text' : ''} data-testid="time-left">{timeLeft(a, now)}</span>
      </div>
      <div className="small">
        {a.quorum === 'all' ? 'Every one of' : 'One of'} <strong>{a.approvers.join(', ')}</strong> {a.quorum === 'all' ? 'must approve' : 'decides'}; one rejection rejects.
      </div>
      {a.decisions.length > 0 && <Decisions approval={a} />}
      <label className="comment">
        Comment (optional)
        <textarea name="comment" rows={2} maxLength={2000} value={state.comments[a.id] ?? ''} onChange={(e) => dispatch({ type: 'comment', approvalId: a.id, text: e.target.value })} />
      </label>
      <div className="buttons start">
        <button type="button" className="primary" data-action="approve" disabled={why !== null || sending !== undefined} onClick={() => void decide(a.id, 'approve')}>
          {sending === 'approve' ? 'Approving…' : 'Approve'}
        </button>
        <button type="button" className="danger" data-action="reject" disabled={why !== null || sending !== undefined} onClick={() => void decide(a.id, 'reject')}>
          {sending === 'reject' ? 'Rejecting…' : 'Reject'}
        </button>
        {why && <span className="muted small" data-testid="cannot-decide">{why}</span>}
      </div>
      {refusal && <p className="error-text" role="alert" data-testid="refusal">{refusal}</p>}
    </li>
  );
}

/** The workflow whose run asked, linked to that run; or the AI owner, about its draft. */
function AskedBy({ approval: a, names }: { approval: Approval; names: Record<string, string> }) {
  if (a.workflowId === null || a.executionId === null) {
    return (
      <span data-testid="asked-by">
        {a.source === 'ai_owner' ? 'the AI owner (a draft reply)' : 'nobody known'}
      </span>
    );
  }
  return (
    <a href={href.run(a.workflowId, a.executionId)} className="user-text" data-testid="asked-by">
      {names[a.workflowId] ?? 'a deleted workflow'}
    </a>
  );
}
