import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { pgTimestamp, sql } from '../common/sql.ts';
import type { TicketStatus } from '../graph/index.ts';
import { ticketContext } from '../tickets/context.ts';
import { TICKET_COLUMNS, ticketFromRow, type TicketRecord, type TicketRow } from '../tickets/store.ts';
import { fold } from './clock.ts';
import { loadClocks, replayedTicket, saveClocks } from './clocks.ts';
import type { PassRequests } from './service.ts';
import { chooseFor, governingPolicies } from './terms.ts';

// The background pass (docs/sla.md, "When policies change"): after a policy is created, changed
// or deleted, or a calendar an active policy counts is changed, each ticket of the workspace
// that is not yet solved or closed is given its policy again, the clocks of those whose policy
// or terms changed count on with the new ones from the instant of the change, and the timers of
// those whose fire instants moved are signalled. Set-based: a batch of PASS_BATCH tickets is a
// handful of statements (the tickets, their clocks, the history of those newly governed, one
// write), never a statement per ticket.

/** Tickets per batch of a pass. */
export const PASS_BATCH = 500;
/** The statuses a pass goes through, one after the other (solved and closed tickets keep their clocks as they ended). */
const PHASES: readonly TicketStatus[] = ['open', 'pending', 'escalated'];

type PassRow = { workspace_id: string; requested_at: string | Date; phase: string; cursor_created_at: string | Date | null; cursor_id: string | null };

/** Asks for a pass of the workspace from the start, for a change at `at` (in the caller's transaction; a pass under way starts again). */
export const passRequests: PassRequests = {
  async request(em, workspaceId, at) {
    await sql(
      em,
      `insert into "sla_passes" ("workspace_id", "requested_at", "phase", "cursor_created_at", "cursor_id", "updated_at") values ($1, $2, $3, null, null, $2)
       on conflict ("workspace_id") do update set "requested_at" = excluded."requested_at", "phase" = excluded."phase", "cursor_created_at" = null, "cursor_id" = null, "updated_at" = excluded."updated_at"`,
      [workspaceId, at, PHASES[0]],
    );
  },
};

/** A pass when the calendar changed and an active policy of the workspace counts it. */
export async function requestPassIfCounted(em: EntityManager, workspaceId: string, calendarId: string, at: Date): Promise<void> {
  const [used] = await sql<{ used: boolean }>(em, `select exists (select 1 from "sla_policies" where "workspace_id" = $1 and "calendar_id" = $2 and "is_active" and "deleted_at" is null) as "used"`, [workspaceId, calendarId]);
  if (used?.used) await passRequests.request(em, workspaceId, at);
}

/** Runs the passes asked for, a batch at a time; every relay runs them, sharing the work by row locks. */
export class SlaPasses {
  private readonly orm: MikroORM;

  constructor(deps: { orm: MikroORM }) {
    this.orm = deps.orm;
  }

  /**
   * Batches of passes until none waits or `budgetMs` went by (at least one): what is left then is
   * taken up on the relay's next pass. Returns how many timers to signal.
   */
  async runPending(workspaceIds: string[] | undefined, budgetMs: number): Promise<number> {
    const deadline = Date.now() + budgetMs;
    let signals = 0;
    for (;;) {
      const done = await this.runBatch(workspaceIds);
      signals += done.signals;
      if (done.tickets === 0 || Date.now() >= deadline) return signals;
    }
  }

  /**
   * One batch of the oldest pass (of the given workspaces, or any) that no other relay holds.
   * Returns how many tickets it looked at (0: no pass waiting) and how many timers to signal.
   */
  async runBatch(workspaceIds?: string[], batch = PASS_BATCH): Promise<{ tickets: number; signals: number }> {
    if (workspaceIds?.length === 0) return { tickets: 0, signals: 0 };
    return this.orm.em.fork().transactional(async (em) => {
      const [pass] = await sql<PassRow>(
        em,
        `select "workspace_id", "requested_at", "phase", "cursor_created_at", "cursor_id" from "sla_passes"
          ${workspaceIds ? 'where "workspace_id" = any($1)' : ''} order by "requested_at" limit 1 for update skip locked`,
        workspaceIds ? [workspaceIds] : [],
      );
      if (!pass) return { tickets: 0, signals: 0 };
      const at = pgTimestamp(pass.requested_at);
      const rows = await sql<TicketRow>(
        em,
        `select ${TICKET_COLUMNS} from "tickets" where "workspace_id" = $1 and "status" = $2
            ${pass.cursor_id ? 'and ("created_at", "id") < ($4, $5)' : ''}
          order by "created_at" desc, "id" desc limit $3`,
        pass.cursor_id ? [pass.workspace_id, pass.phase, batch, pass.cursor_created_at, pass.cursor_id] : [pass.workspace_id, pass.phase, batch],
      );
      const tickets = rows.map(ticketFromRow);
      const signals = await this.rechoose(em, pass.workspace_id, tickets, at);
      const last = tickets.at(-1);
      const nextPhase = PHASES[PHASES.indexOf(pass.phase as TicketStatus) + 1];
      if (last && tickets.length === batch) {
        await sql(em, `update "sla_passes" set "cursor_created_at" = $2, "cursor_id" = $3, "updated_at" = now() where "workspace_id" = $1`, [pass.workspace_id, last.createdAt, last.id]);
      } else if (nextPhase) {
        await sql(em, `update "sla_passes" set "phase" = $2, "cursor_created_at" = null, "cursor_id" = null, "updated_at" = now() where "workspace_id" = $1`, [pass.workspace_id, nextPhase]);
      } else {
        await sql(em, `delete from "sla_passes" where "workspace_id" = $1`, [pass.workspace_id]);
      }
      return { tickets: Math.max(tickets.length, 1), signals };
    });
  }

  /** Chooses the policy of each ticket again; a change counts from `at`, the instant of the change that asked for the pass. */
  private async rechoose(em: EntityManager, workspaceId: string, tickets: TicketRecord[], at: Date): Promise<number> {
    if (tickets.length === 0) return 0;
    const policies = await governingPolicies(em, [workspaceId]);
    const working = await loadClocks(em, tickets.map((t) => [t.id, workspaceId]), policies);
    const changed = [];
    for (const ticket of tickets) {
      const w = working.get(ticket.id)!;
      const context = ticketContext(ticket);
      const chosen = chooseFor(policies.get(workspaceId) ?? [], context);
      w.ticket = replayedTicket(ticket.id, context);
      if (chosen === null) {
        if (w.stored?.policy_id) changed.push(Object.assign(w, { policy: null, state: null }));
      } else if (w.state === null) {
        changed.push(Object.assign(w, { policy: chosen, replay: true }));
      } else if (w.policy?.policyId !== chosen.policyId || w.policy.termsId !== chosen.termsId) {
        changed.push(Object.assign(w, { policy: chosen, state: fold(w.state, { type: 'policy', at: at.getTime(), terms: chosen.terms }) }));
      }
    }
    return saveClocks(em, changed, new Date());
  }
}
