import type { Approval } from '../api.ts';
import { Time } from './common.tsx';

/** Who decided what, in the order they did, with their comments. */
export function Decisions({ approval }: { approval: Pick<Approval, 'decisions' | 'status'> }) {
  if (approval.decisions.length === 0) return <span className="muted">{approval.status === 'expired' ? 'nobody decided in time' : approval.status === 'cancelled' ? 'cancelled with its run' : 'no decision yet'}</span>;
  return (
    <ul className="decisions" data-testid="decisions">
      {approval.decisions.map((d) => (
        <li key={d.userId} data-user={d.userId} data-decision={d.decision}>
          <strong>{d.userId}</strong> <span className={`outcome outcome-${d.decision === 'approve' ? 'true' : 'false'}`}>{d.decision === 'approve' ? 'approved' : 'rejected'}</span>{' '}
          <span className="muted small"><Time at={d.at} /></span>
          {d.comment && <blockquote className="message-body">{d.comment}</blockquote>}
        </li>
      ))}
    </ul>
  );
}
