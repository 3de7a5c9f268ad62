import type pg from 'pg';

/**
 * Fills a workspace with tickets straight in SQL, the only place the bench writes Deskflow's
 * tables itself: when a ticket gains a column, or the schema a table that must stay in step
 * with tickets (the tag counters, the search documents), adapt this function and nothing else.
 * The ticket counters (ticket_counts, and ticket_filter_counts by priority, source and kind of
 * assignee) fill themselves: the statement triggers of tickets keep both for each insert here,
 * in the shard of the seeding connection.
 *
 * Tickets are numbered; ticket n is n × 10 s after 2024-01-01, so seeding in steps (10k, then
 * up to 100k, …) adds newer tickets in front, as a workspace grows. Seeded tickets have no
 * messages (message_seq 0): the benchmarked reads never load messages, the first added message
 * takes seq 1, and writing a million messages would make seeding take minutes. Their search
 * document holds the subject and a body, as the relay builds it for a ticket whose first
 * message that body is. What a desk's tickets look like, drawn by a hash of n so that every
 * run seeds the same:
 *
 * - status: open, pending, escalated, solved, closed in turn (n mod 5);
 * - priority: low 15 %, medium 55 %, high 22 %, urgent 8 %; source: email 65 %, widget 20 %, api 15 %;
 * - assignee: none 35 %, the AI agent 10 %, else one of 30 agents (`agent01`…`agent30`), some
 *   busier than others (agent01 has about 6 % of all tickets, agent30 about 0.5 %);
 * - tags: none for 65 %; else one or two of 20 tags, the first far more used (`billing` on
 *   about 7 % of tickets, `vip` about 2 %);
 * - customer: `customer<k>@example.com` of 100,000, a few with many tickets (k drawn as
 *   100,000 × x², so customer500 has about 70 of a million);
 * - subject: one of 20 subjects and the ticket's number; body: 30 words of a 5,000-word
 *   vocabulary `w1`…`w5000` drawn log-uniformly, as word use goes (w1 is in about 90 % of
 *   tickets, w350 in about 1 %, w5000 in about 0.1 %), from 4,096 bodies that tickets share.
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

/** Agents of the seeded workspace (`agent01`…). */
export const SEEDED_AGENTS = 30;
/** The words of known share, for searches and filters of realistic selectivity. */
export const SEEDED = { commonWord: 'w1', onePercentWord: 'w350', customer: 'customer500@example.com', agent: 'agent05', tag: 'vip' } as const;

const SUBJECTS = [
  'Printer shows error E-42',
  'Cannot log in to my account',
  'Refund for order',
  'Invoice has the wrong address',
  'Password reset mail never arrives',
  'Shipping delayed',
  'App crashes on start',
  'Feature request: dark mode',
  'Account locked after update',
  'Wrong item delivered',
  'Payment declined',
  'How do I export my data',
  'Two-factor code not accepted',
  'Subscription renewed twice',
  'Cannot upload attachments',
  'Sync stopped working',
  'Change the email of my account',
  'Discount code rejected',
  'Package arrived damaged',
  'Slow dashboard',
];
const TAGS = ['billing', 'bug', 'refund', 'vip', 'login', 'shipping', 'mobile', 'feature', 'urgent-customer', 'invoice', 'security', 'api', 'export', 'damaged', 'sync', 'payment', 'account', 'onboarding', 'churn-risk', 'press'];

async function insertTickets(db: pg.Pool, workspaceId: string, start: number, end: number): Promise<void> {
  // r(k): a number in [0, 1) drawn by hash from the ticket's number, a different one per k.
  const r = (k: number) => `((hashint4(n * 31 + ${k}) & 1048575) / 1048576.0)`;
  await db.query(
    `with "bodies" as (
       select b, body, setweight(to_tsvector('simple', body), 'B') as "vector" from (
         select b, (select string_agg('w' || floor(exp(((hashint4(b * 97 + i) & 1048575) / 1048576.0) * ln(5000)))::int, ' ')
                      from generate_series(1, 30) as i) as body
           from generate_series(0, 4095) as b) x),
     "seed" as (
       select n, gen_random_uuid() as id,
              $4::text[] as subjects, $5::text[] as tags,
              ${r(1)} as r_priority, ${r(2)} as r_source, ${r(3)} as r_assignee, ${r(4)} as r_agent, ${r(5)} as r_tags,
              ${r(6)} as r_tag1, ${r(7)} as r_tag2, ${r(8)} as r_customer, ${r(9)} as r_subject, hashint4(n * 31 + 10) & 4095 as b,
              timestamptz '2024-01-01 00:00:00+00' + n * interval '10 seconds' as at
         from generate_series($2::int, $3::int - 1) as n),
     "ticket" as (
       select s.*, b.vector,
              subjects[1 + floor(r_subject * 20)::int] || ' #' || n as subject,
              'customer' || floor(100000 * r_customer * r_customer)::int || '@example.com' as email,
              'Customer ' || floor(100000 * r_customer * r_customer)::int as customer_name,
              case when r_priority < 0.15 then 'low' when r_priority < 0.70 then 'medium' when r_priority < 0.92 then 'high' else 'urgent' end as priority,
              case when r_source < 0.65 then 'email' when r_source < 0.85 then 'widget' else 'api' end as source,
              case when r_assignee < 0.35 then null when r_assignee < 0.45 then 'ai'
                   else 'agent' || lpad((1 + floor(${SEEDED_AGENTS} * r_agent * r_agent))::int::text, 2, '0') end as assigned_to,
              case when r_tags < 0.65 then '{}'::text[]
                   when r_tags < 0.85 then array[tags[1 + floor(20 * r_tag1 * r_tag1 * r_tag1)::int]]
                   else array(select distinct unnest(array[tags[1 + floor(20 * r_tag1 * r_tag1 * r_tag1)::int], tags[1 + floor(20 * r_tag2)::int]])) end as tag_list
         from "seed" s join "bodies" b on b.b = s.b),
     "tag_counts" as (
       insert into ticket_tag_counts as c (workspace_id, tag, shard, count)
       select $1, tag, 0, count(*) from "ticket", unnest(tag_list) as tag group by tag order by tag
       on conflict (workspace_id, tag, shard) do update set count = c.count + excluded.count),
     "tickets" as (
       insert into tickets (id, workspace_id, subject, status, priority, customer_email, customer_name, source,
                            assigned_to, resolution_type, tags, language, message_seq, created_at, updated_at)
       select id, $1, subject, (array['open', 'pending', 'escalated', 'solved', 'closed'])[1 + n % 5], priority, email, customer_name, source,
              assigned_to, case when n % 5 >= 3 then 'resolved_by_agent' end, tag_list, 'en', 0, at, at
         from "ticket")
     insert into ticket_search (ticket_id, workspace_id, created_at, message_seq, document)
     select id, $1, at, 0, setweight(to_tsvector('simple', subject), 'A') || vector from "ticket"`,
    [workspaceId, start, end, SUBJECTS, TAGS],
  );
}

/**
 * After a bulk load, what tables that grew slowly would have: vacuumed, fresh statistics, and
 * their pages on disk. Without the checkpoint, the one the load's WAL asked for spreads its
 * writes over the next minutes and ends with an fsync burst in whatever is measured then. A
 * role that may not checkpoint (neither superuser nor pg_checkpoint) leaves that to the server.
 */
export async function settleTickets(db: pg.Pool): Promise<void> {
  for (const table of ['tickets', 'ticket_search']) await db.query(`vacuum (analyze) ${table}`);
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
