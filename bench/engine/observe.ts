import type pg from 'pg';

/**
 * What the bench reads of Deskflow's engine tables, to time automations from the database's
 * own records: a ticket's created_at, its execution's status and completed_at, the outbox.
 */

/** Age of the oldest undelivered outbox event in ms (0 when none waits), and how many wait. */
export async function outboxLag(db: pg.Pool): Promise<{ lagMs: number; waiting: number }> {
  const { rows } = await db.query<{ lag_ms: number | null; waiting: string }>(
    `select extract(epoch from clock_timestamp() - min(created_at)) * 1000 as lag_ms, count(*) as waiting
     from outbox_events where delivered_at is null`,
  );
  return { lagMs: Math.max(0, Number(rows[0].lag_ms ?? 0)), waiting: Number(rows[0].waiting) };
}

/** Marks every waiting event delivered: events of workspaces without workflows, left by earlier measures. */
export async function clearOutbox(db: pg.Pool): Promise<number> {
  const { rowCount } = await db.query('update outbox_events set delivered_at = clock_timestamp() where delivered_at is null');
  return rowCount ?? 0;
}

export type TicketRun = {
  ticketId: string;
  createdAt: Date;
  status: string | null;
  completedAt: Date | null;
};

/** Each ticket with its execution (status null while the relay has not created one yet). */
export async function ticketRuns(db: pg.Pool, ticketIds: string[]): Promise<TicketRun[]> {
  const { rows } = await db.query<{ id: string; created_at: Date; status: string | null; completed_at: Date | null }>(
    `select t.id, t.created_at, e.status, e.completed_at
     from tickets t left join executions e on e.ticket_id = t.id
     where t.id = any($1::uuid[])`,
    [ticketIds],
  );
  return rows.map((r) => ({ ticketId: r.id, createdAt: r.created_at, status: r.status, completedAt: r.completed_at }));
}

export const isFinished = (r: TicketRun) => r.status === 'completed' || r.status === 'failed' || r.status === 'cancelled';

/** Executions of the workspace not finished yet: work a measure would inherit from the one before. */
export async function unfinishedExecutions(db: pg.Pool, workspaceId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    "select count(*) as n from executions where workspace_id = $1 and status in ('pending', 'running')",
    [workspaceId],
  );
  return Number(rows[0].n);
}
