import type { EntityManager } from '@mikro-orm/postgresql';
import { pgTimestamp, sql } from '../common/sql.ts';
import { notFound } from '../errors.ts';
import type { TicketPriority, TicketStatus } from '../graph/index.ts';
import { isUuid } from '../ids.ts';
import { prepareTerms, targetsAt, withTerms, type ClockState, type PolicyTerms, type SlaMetric, type TargetView } from './clock.ts';
import type { QueueQuery, QueueStatus } from './schema.ts';

/** A ticket's clocks as GET …/sla shows them: where each target stands now. */
export type TicketSlaView = { policyId: string; policyName: string; targets: TargetView[] } | null;

/** One line of the queue. */
export type QueueItem = { ticketId: string; subject: string; priority: TicketPriority; status: TicketStatus; metric: SlaMetric; dueAt: Date; targetStatus: QueueStatus };

const DEFAULT_QUEUE_LIMIT = 50;

/**
 * The clocks of a ticket of the workspace at `now` (404 for a ticket that is not the
 * workspace's), computed from its state by the clock rules, so that they are exact to the
 * instant asked, whatever the timers have done yet. One statement, by the ticket's key.
 */
export async function ticketSla(em: EntityManager, workspaceId: string, ticketId: string, now: Date): Promise<TicketSlaView> {
  const [row] = isUuid(ticketId)
    ? await sql<{ id: string; policy_id: string | null; policy_name: string | null; state: ClockState | null; terms: PolicyTerms | null }>(
        em,
        `select t."id", s."policy_id", p."name" as "policy_name", s."state", x."terms"
           from "tickets" t
           left join "ticket_slas" s on s."ticket_id" = t."id"
           left join "sla_policies" p on p."id" = s."policy_id"
           left join "sla_terms" x on x."id" = s."terms_id"
          where t."id" = $1 and t."workspace_id" = $2`,
        [ticketId, workspaceId],
      )
    : [];
  if (!row) throw notFound('Ticket');
  if (!row.policy_id || !row.state || !row.terms) return null;
  const state = withTerms(row.state, prepareTerms(row.terms));
  return { policyId: row.policy_id, policyName: row.policy_name ?? '', targets: targetsAt(state, Math.max(now.getTime(), state.at)) };
}

type QueueRow = { ticket_id: string; subject: string; priority: TicketPriority; ticket_status: TicketStatus; metric: SlaMetric; status: string; due_at: string | Date; warn_at: string | Date | null };

/**
 * What breaks next: the running targets of the workspace, nearest due first, as the relay last
 * wrote them, told apart at `now` (a target past due is breached whether or not its timer has
 * fired yet; one past its warning, not yet due, is in warning). Each status is a range of the
 * index sla_targets_queue_idx; the default merges the breached and the counting ones.
 */
export async function queue(em: EntityManager, workspaceId: string, query: QueueQuery, now: Date): Promise<QueueItem[]> {
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const [workspace, limit] = [param(workspaceId), param(query.limit ?? DEFAULT_QUEUE_LIMIT)];
  const filters = [query.metric ? ` and "metric" = ${param(query.metric)}` : '', query.before ? ` and "due_at" < ${param(query.before)}` : ''].join('');
  const range = (status: 'active' | 'breached', extra = '') =>
    `(select "ticket_id", "metric", "status", "due_at", "warn_at" from "sla_targets"
       where "workspace_id" = ${workspace} and "status" = '${status}' and "fulfilled_at" is null and "due_at" is not null${filters}${extra}
       order by "due_at", "ticket_id", "metric" limit ${limit})`;
  const ranges =
    query.status === 'breached'
      ? [range('breached'), range('active', ` and "due_at" <= ${param(now)}`)]
      : query.status === 'warning'
        ? [range('active', ` and "due_at" > ${param(now)} and "warn_at" <= $${params.length}`)]
        : query.status === 'active'
          ? [range('active', ` and "due_at" > ${param(now)}`)]
          : [range('breached'), range('active')];
  const rows = await sql<QueueRow>(
    em,
    `select q."ticket_id", t."subject", t."priority", t."status" as "ticket_status", q."metric", q."status", q."due_at", q."warn_at"
       from (${ranges.join(' union all ')}) q join "tickets" t on t."id" = q."ticket_id"
      order by q."due_at", q."ticket_id", q."metric" limit ${limit}`,
    params,
  );
  return rows.map((r) => {
    const dueAt = pgTimestamp(r.due_at);
    const warnAt = r.warn_at === null ? null : pgTimestamp(r.warn_at);
    const targetStatus: QueueStatus = r.status === 'breached' || dueAt <= now ? 'breached' : warnAt && warnAt <= now ? 'warning' : 'active';
    return { ticketId: r.ticket_id, subject: r.subject, priority: r.priority, status: r.ticket_status, metric: r.metric, dueAt, targetStatus };
  });
}
