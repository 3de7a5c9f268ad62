// Tickets named as people know them, by subject, wherever a page only has their ids (runs,
// backtest samples). Each id is read once per component.
import { useEffect, useMemo, useState } from 'react';
import { api } from '../api.ts';
import { href } from '../router.ts';

/** The subjects of the tickets `ids` (nulls skipped), by id, as they are read; a ticket that cannot be read is left out. */
export function useTicketSubjects(ids: Array<string | null | undefined>): ReadonlyMap<string, string> {
  const [subjects, setSubjects] = useState<ReadonlyMap<string, string>>(new Map());
  const wanted = useMemo(() => [...new Set(ids.filter((id): id is string => !!id))].sort().join(','), [ids]);
  useEffect(() => {
    let stop = false;
    const missing = wanted ? wanted.split(',').filter((id) => !subjects.has(id)) : [];
    if (missing.length === 0) return;
    void Promise.all(missing.map((id) => api.getTicket(id).then((t) => [id, t.subject] as const, () => null))).then((found) => {
      if (stop) return;
      setSubjects((known) => new Map([...known, ...found.filter((f): f is readonly [string, string] => f !== null)]));
    });
    return () => {
      stop = true;
    };
    // Only a new set of ids reads anything: `subjects` grows from what this effect read.
  }, [wanted]);
  return subjects;
}

/** A link to a ticket, named by its subject (its short id until that is read, or if it cannot be). */
export function TicketName({ id, subjects }: { id: string; subjects: ReadonlyMap<string, string> }) {
  const subject = subjects.get(id);
  return (
    <a href={href.ticket(id)} className="user-text" data-ticket-id={id} title={subject ? undefined : id}>
      {subject ?? `ticket ${id.slice(0, 8)}`}
    </a>
  );
}

/** A ticket's subject as text (inside a button, where a link may not go). */
export function TicketSubject({ id, subjects }: { id: string; subjects: ReadonlyMap<string, string> }) {
  return <span className="user-text" data-ticket-id={id}>{subjects.get(id) ?? `ticket ${id.slice(0, 8)}`}</span>;
}
