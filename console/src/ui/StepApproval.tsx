import { useEffect, useState } from 'react';
import { api, type Approval } from '../api.ts';
import { href } from '../router.ts';
import { Decisions } from './Decisions.tsx';
import { StatusBadge } from './common.tsx';

/**
 * The approval a request_approval step asked for: the question, who was asked, and who decided
 * what. Read again when the step's status changes (a waiting step that completes).
 */
export function StepApproval({ approvalId, stepStatus }: { approvalId: string; stepStatus: string }) {
  const [approval, setApproval] = useState<Approval | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.getApproval(approvalId).then(setApproval, setError);
  }, [approvalId, stepStatus]);
  if (error) return <div className="error-text small">The approval could not be read: {error instanceof Error ? error.message : String(error)}</div>;
  if (!approval) return null;
  return (
    <div className="step-approval" data-approval-id={approval.id} data-approval-status={approval.status}>
      <div className="user-text">{approval.question}</div>
      <div className="small">
        Asked {approval.quorum === 'all' ? 'all of' : 'one of'} {approval.approvers.join(', ')} · <StatusBadge status={approval.status} />
        {approval.status === 'pending' && <> · <a href={href.approvals()}>decide on the Approvals page</a></>}
      </div>
      <Decisions approval={approval} />
    </div>
  );
}
