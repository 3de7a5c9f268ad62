import type pg from 'pg';

/**
 * Fills a workspace with tickets straight in SQL, the only place the bench writes Deskflow's
 * tables itself: when a ticket gains a column, or the schema a table that must stay in step
 * with tickets (a per-workspace counter, say), adapt this function and nothing else.
 *
 * Tickets are numbered; ticket n is n × 10 s after 2024-01-01, so seeding in steps (10k, then
 * up to 100k, …) adds newer tickets in front, as a workspace grows. Statuses, priorities,
 * sources, assignees and tags vary with n. Seeded tickets have no messages (message_seq 0):
 * the benchmarked reads never load messages, and the first added message takes seq 1.
 * The customer of ticket n is `customer<n mod 10,000>@example.com`.
 */
export async function seedTickets(db: pg.Pool, workspaceId: string, from: number, to: number, progress?: (done: number) => void): Promise<void> {
  const chunk = 50_000;
  let nextStart = from;
  let done = from;
  // Two statements at a time: inserting is CPU-bound, and the database has more than one core.
  const stream = async () => {
    while (nextStart < to) {
      const start = nextStart;
      const end = Math.min(to, start + chunk);
      nextStart = end;
      await insertTickets(db, workspaceId, start, end);
      done += end - start;
      progress?.(done);
    }
  };
  await Promise.all([stream(), stream()]);
}

async function insertTickets(db: pg.Pool, workspaceId: string, start: number, end: number): Promise<void> {
  await db.query(
    `insert into tickets (id, workspace_id, subject, status, priority, customer_email, customer_name, source,
                          assigned_to, resolution_type, tags, language, message_seq, created_at, updated_at)
     select gen_random_uuid(), $1, 'Seeded ticket ' || n,
            (array['open', 'pending', 'escalated', 'solved', 'closed'])[1 + n % 5],
            (array['low', 'medium', 'high', 'urgent'])[1 + n % 4],
            'customer' || (n % 10000) || '@example.com', 'Customer ' || (n % 10000),
            (array['email', 'widget', 'api'])[1 + n % 3],
            case when n % 3 = 0 then 'ai' end,
            case when n % 5 >= 3 then 'resolved_by_agent' end,
            case when n % 7 = 0 then array['seeded'] else '{}'::text[] end,
            'en', 0,
            timestamptz '2024-01-01 00:00:00+00' + n * interval '10 seconds',
            timestamptz '2024-01-01 00:00:00+00' + n * interval '10 seconds'
     from generate_series($2::int, $3::int - 1) as n`,
    [workspaceId, start, end],
  );
}

/**
 * After a bulk load, what a table that grew slowly would have: vacuumed, fresh statistics, and
 * its pages on disk. Without the checkpoint, the one the load's WAL asked for spreads its writes
 * over the next minutes and ends with an fsync burst in whatever is measured then. A role that
 * may not checkpoint (neither superuser nor pg_checkpoint) leaves that to the server.
 */
export async function settleTickets(db: pg.Pool): Promise<void> {
  await db.query('vacuum (analyze) tickets');
  await db.query('checkpoint').catch((err: { code?: string }) => {
    if (err.code !== '42501') throw err;
  });
}

/**
 * Up to `count` open tickets of the workspace with their customer's email: the targets of gets
 * and replies. Open, so that a customer's reply never reopens one, which would make the first
 * reply to a ticket cost more than the next (and Deskflow, measured first, pay for it alone).
 */
export async function sampleTickets(db: pg.Pool, workspaceId: string, count: number): Promise<Array<{ id: string; email: string }>> {
  const { rows } = await db.query<{ id: string; email: string }>(
    "select id, customer_email as email from tickets where workspace_id = $1 and status = 'open' order by id limit $2",
    [workspaceId, count],
  );
  return rows;
}
