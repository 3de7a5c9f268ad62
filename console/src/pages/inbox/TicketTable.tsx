import { useEffect, useState } from 'react';
import type { Ticket } from '../../api.ts';
import { age, assigneeLabel } from '../../model/inbox.ts';
import { href } from '../../router.ts';
import { StatusBadge, Time } from '../../ui/common.tsx';

/** The clock the ages are read on, a minute at a time. */
function useMinute(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** The inbox's rows: subject, customer, status, priority, assignee, tags and age; the cursor row (j/k) marked. */
export function TicketTable({ rows, cursor, me }: { rows: Ticket[]; cursor: number | null; me: string | null }) {
  const now = useMinute();
  return (
    <table className="list inbox-list" data-testid="tickets">
      <thead>
        <tr>
          <th scope="col">Subject</th>
          <th scope="col">Customer</th>
          <th scope="col">Status</th>
          <th scope="col">Priority</th>
          <th scope="col">Assignee</th>
          <th scope="col">Tags</th>
          <th scope="col">Age</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((t, i) => (
          <tr key={t.id} data-ticket-id={t.id} className={i === cursor ? 'cursor' : undefined} aria-current={i === cursor ? 'true' : undefined}>
            <td>
              <a href={href.ticket(t.id)} className="user-text subject" data-row={i}>{t.subject}</a>
            </td>
            <td className="user-text" title={t.customerEmail}>{t.customerName ?? t.customerEmail}</td>
            <td><StatusBadge status={t.status} /></td>
            <td className={`priority priority-${t.priority}`}>{t.priority}</td>
            <td className="user-text assignee">{assigneeLabel(t.assignedTo, me)}</td>
            <td>
              {t.tags.map((tag) => (
                <span key={tag} className="tag user-text">{tag}</span>
              ))}
            </td>
            <td>
              <Time at={t.createdAt} label={age(t.createdAt, now)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
