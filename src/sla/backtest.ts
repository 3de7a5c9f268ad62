import type { EntityManager } from '@mikro-orm/postgresql';
import { businessCalendarOf } from '../calendars/store.ts';
import { Calendar } from '../calendars/entity.ts';
import { sql } from '../common/sql.ts';
import { validationFailed } from '../errors.ts';
import { TICKET_PRIORITIES, type TicketPriority } from '../graph/index.ts';
import { isUuid } from '../ids.ts';
import { ticketContext } from '../tickets/context.ts';
import { TICKET_COLUMNS, ticketFromRow, type TicketRow } from '../tickets/store.ts';
import { foldAll, prepareTerms, SLA_METRICS, targetsAt, type SlaMetric } from './clock.ts';
import { recordedHistory } from './history.ts';
import type { BacktestPolicyInput } from './schema.ts';
import { chooseFor, termsOf } from './terms.ts';

/** How one target of the policy would have fared. */
export type BacktestTarget = { metric: SlaMetric; priority: TicketPriority; met: number; breached: number; running: number; attainment: number | null };
export type BacktestResult = { tickets: number; targets: BacktestTarget[] };

/** Tickets read (and replayed) per statement. */
const PAGE = 500;

/**
 * What a policy, saved or not, would have said of the workspace's tickets created in the last
 * `days` days (docs/sla.md, "Trying a policy"): the tickets it would govern (its match, on each
 * ticket as it is now), each replayed through the clock rules from what Deskflow recorded (its
 * creation, status and priority changes, messages: src/sla/history.ts) with the policy's terms
 * and its calendar as it is now, and where each target stands now, counted per target of the
 * policy: met in time, breached (met late or not at all), still running (counting or paused).
 * `attainment` is met / (met + breached), null while none is decided. Read-only; keyset pages of
 * PAGE tickets, three statements each, counts only in memory.
 */
export async function backtestPolicy(em: EntityManager, workspaceId: string, input: BacktestPolicyInput, now = new Date()): Promise<BacktestResult> {
  return em.transactional(
    async (tx) => {
      const calendar = await calendarOf(tx, workspaceId, input.policy.calendarId ?? null);
      const { terms: policyTerms } = termsOf(workspaceId, { targets: input.policy.targets, pauseOn: input.policy.pauseOn ?? ['pending'] }, calendar);
      const terms = prepareTerms(policyTerms);
      const governing = [{ policyId: '', policyName: input.policy.name, match: input.policy.match ?? null, terms, termsId: '' }];
      const counts = new Map<string, BacktestTarget>();
      for (const metric of SLA_METRICS) {
        for (const priority of TICKET_PRIORITIES) {
          if (terms.targets.some((t) => t.metric === metric && t.priority === priority)) counts.set(`${metric} ${priority}`, { metric, priority, met: 0, breached: 0, running: 0, attainment: null });
        }
      }
      const since = new Date(now.getTime() - input.days * 86_400_000);
      let tickets = 0;
      let cursor: { createdAt: Date; id: string } | null = null;
      for (;;) {
        const rows: TicketRow[] = await sql<TicketRow>(
          tx,
          `select ${TICKET_COLUMNS} from "tickets" where "workspace_id" = $1 and "created_at" >= $2 and "created_at" < $3
             ${cursor ? 'and ("created_at", "id") < ($5, $6)' : ''}
           order by "created_at" desc, "id" desc limit $4`,
          cursor ? [workspaceId, since, now, PAGE, cursor.createdAt, cursor.id] : [workspaceId, since, now, PAGE],
        );
        const page = rows.map(ticketFromRow).filter((t) => chooseFor(governing, ticketContext(t)) !== null);
        const histories = await recordedHistory(tx, page);
        for (const ticket of page) {
          const history = histories.get(ticket.id)!;
          tickets += 1;
          for (const target of targetsAt(foldAll(history.created, terms, history.events), now.getTime())) {
            const count = counts.get(`${target.metric} ${target.priority}`);
            if (!count) continue;
            if (target.status === 'fulfilled') count.met += 1;
            else if (target.status === 'breached') count.breached += 1;
            else count.running += 1;
          }
        }
        if (rows.length < PAGE) break;
        const last = rows[rows.length - 1];
        cursor = { createdAt: ticketFromRow(last).createdAt, id: last.id };
      }
      const targets = [...counts.values()].map((c) => ({ ...c, attainment: c.met + c.breached === 0 ? null : Math.round((c.met / (c.met + c.breached)) * 10_000) / 10_000 }));
      return { tickets, targets };
    },
    { readOnly: true },
  );
}

async function calendarOf(em: EntityManager, workspaceId: string, calendarId: string | null) {
  if (calendarId === null) return null;
  const found = isUuid(calendarId) ? await em.findOne(Calendar, { id: calendarId, workspace: workspaceId, deletedAt: null }) : null;
  if (!found) throw validationFailed([{ path: 'policy.calendarId', message: `There is no calendar ${JSON.stringify(calendarId)} in this workspace.` }]);
  return businessCalendarOf(found);
}
