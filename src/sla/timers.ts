import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { retryUntilAcknowledged } from '../common/retry-until-acknowledged.ts';
import { pgTimestamp, sql, writeTogether, type Statement } from '../common/sql.ts';
import { OUTBOX_CHANNEL } from '../events/outbox.ts';
import type { TicketPriority } from '../graph/index.ts';
import { uuidFromName } from '../ids.ts';
import { errorFields, type Logger } from '../logger.ts';
import { ticketContext } from '../tickets/context.ts';
import { readTicket } from '../tickets/store.ts';
import type { SlaMetric, TargetStatus } from './clock.ts';
import { fireInstants, type FireInstant, type TimedTarget } from './instants.ts';

/*
 * A ticket's timers, end to end (docs/sla.md, "Timers"):
 *   1. The relay folds the ticket's events into its clocks (src/sla/clocks.ts); when the
 *      instants its targets fire at move, ticket_slas.revision goes up, in that transaction.
 *   2. SlaTimers.signalPending, on the relay's passes, hands the ticket's current instants to
 *      its Temporal workflow (slaClocks, started if it is not running: signalWithStart) until
 *      Temporal acknowledges that revision (src/common/retry-until-acknowledged.ts).
 *   3. slaClocks (temporal/workflows/sla-clocks.ts) sleeps, one durable timer, until the
 *      nearest instant, then calls the activity slaInstantsDue: fireDue below.
 *   4. fireDue checks each instant against the target as PostgreSQL has it now and writes its
 *      sla_warning or sla_breached event once (a deterministic id, and the target's sent
 *      mark), counting breaches for /metrics. The relay delivers the event like any other.
 */

/** What the relay hands a ticket's timers: all its instants as of a revision of its clocks. */
export type TimerUpdate = { ticketId: string; workspaceId: string; revision: number; instants: FireInstant[] };

/** The engine as the timers use it (temporal/client.ts). */
export type SlaTimerEngine = { signalSlaClocks(update: TimerUpdate): Promise<void> };

type PendingRow = { ticket_id: string; workspace_id: string; revision: number };
type TargetRow = {
  ticket_id: string;
  metric: SlaMetric;
  priority: TicketPriority;
  cycle: number;
  status: TargetStatus;
  due_at: string | Date | null;
  warn_at: string | Date | null;
  breached_at: string | Date | null;
  warning_sent_at: string | Date | null;
  breach_sent_at: string | Date | null;
};

const date = (v: string | Date | null): Date | null => (v === null ? null : pgTimestamp(v));
const timed = (r: TargetRow): TimedTarget => ({
  metric: r.metric,
  cycle: r.cycle,
  status: r.status,
  dueAt: date(r.due_at),
  warnAt: date(r.warn_at),
  breachedAt: date(r.breached_at),
  warningSentAt: date(r.warning_sent_at),
  breachSentAt: date(r.breach_sent_at),
});

async function targetsOf(em: EntityManager, ticketIds: string[]): Promise<TargetRow[]> {
  if (ticketIds.length === 0) return [];
  return sql<TargetRow>(
    em,
    `select "ticket_id", "metric", "priority", "cycle", "status", "due_at", "warn_at", "breached_at", "warning_sent_at", "breach_sent_at" from "sla_targets" where "ticket_id" = any($1)`,
    [ticketIds],
  );
}

/**
 * Hands tickets' timer instants to Temporal, on every relay pass, until Temporal acknowledges
 * each revision: an outage delays the timers, never loses a change. Handing the same revision
 * over twice is harmless (the workflow keeps the newest revision it heard of).
 */
export class SlaTimers {
  private readonly orm: MikroORM;
  private readonly engine: SlaTimerEngine;
  private readonly logger: Logger;

  constructor(deps: { orm: MikroORM; engine: SlaTimerEngine; logger: Logger }) {
    this.orm = deps.orm;
    this.engine = deps.engine;
    this.logger = deps.logger;
  }

  /** Signals up to `limit` tickets whose timers are behind (of the given workspaces, or all); returns how many it claimed. */
  async signalPending(limit: number, workspaceIds?: string[]): Promise<number> {
    if (workspaceIds?.length === 0) return 0;
    const pass = await retryUntilAcknowledged<TimerUpdate>(
      this.orm.em.fork(),
      limit,
      {
        what: 'SLA timer signals',
        claim: async (em, limit) => {
          const rows = await sql<PendingRow>(
            em,
            `select "ticket_id", "workspace_id", "revision" from "ticket_slas"
              where "revision" <> "signalled_revision"${workspaceIds ? ' and "workspace_id" = any($2)' : ''}
              order by "updated_at" limit $1 for update skip locked`,
            workspaceIds ? [limit, workspaceIds] : [limit],
          );
          const targets = await targetsOf(em, rows.map((r) => r.ticket_id));
          return rows.map((r) => ({ ticketId: r.ticket_id, workspaceId: r.workspace_id, revision: r.revision, instants: fireInstants(targets.filter((t) => t.ticket_id === r.ticket_id).map(timed)) }));
        },
        handOff: (update) => this.engine.signalSlaClocks(update),
        acknowledge: async (em, updates) => {
          await sql(
            em,
            `update "ticket_slas" s set "signalled_revision" = u."revision", "last_signal_error" = null
               from jsonb_to_recordset($1::jsonb) as u("ticket_id" uuid, "revision" int) where s."ticket_id" = u."ticket_id"`,
            [JSON.stringify(updates.map((u) => ({ ticket_id: u.ticketId, revision: u.revision })))],
          );
        },
        noteFailure: async (em, failed) => {
          await sql(
            em,
            `update "ticket_slas" s set "signal_attempts" = s."signal_attempts" + 1, "last_signal_error" = u."error"
               from jsonb_to_recordset($1::jsonb) as u("ticket_id" uuid, "error" text) where s."ticket_id" = u."ticket_id"`,
            [JSON.stringify(failed.map(({ row, error }) => ({ ticket_id: row.ticketId, error: errorFields(error).error })))],
          );
        },
        describe: (update) => ({ ticketId: update.ticketId }),
      },
      this.logger,
    );
    return pass.claimed;
  }
}

/** The id of a target's warning or breach event: the same for the same target, cycle and kind, so it is written once. */
export const slaEventId = (ticketId: string, instant: Pick<FireInstant, 'metric' | 'cycle' | 'kind'>) => uuidFromName(`sla:${ticketId}:${instant.metric}:${instant.cycle}:${instant.kind}`);

/**
 * The timers' activity: for each instant that is due, if its target, as PostgreSQL has it now,
 * is still the one it was armed for (same cycle, not met, not moved later) and its event not yet
 * written, writes the sla_warning or sla_breached event (deterministic id), marks the target
 * (sent; breached), and counts a breach; all in one transaction under the ticket's clock lock,
 * so the relay never folds the ticket meanwhile. A warning for a target already due is not
 * sent: its breach is. Returns the instants that fired.
 */
export async function fireDue(orm: MikroORM, input: { ticketId: string; instants: FireInstant[] }, now = new Date()): Promise<FireInstant[]> {
  return orm.em.fork().transactional(async (em) => {
    const [clock] = await sql<{ workspace_id: string; policy_id: string | null; policy_name: string | null }>(
      em,
      `select s."workspace_id", s."policy_id", p."name" as "policy_name" from "ticket_slas" s left join "sla_policies" p on p."id" = s."policy_id" where s."ticket_id" = $1 for update of s`,
      [input.ticketId],
    );
    if (!clock?.policy_id) return [];
    const rows = await targetsOf(em, [input.ticketId]);
    const due: Array<{ instant: FireInstant; row: TargetRow }> = [];
    for (const instant of input.instants) {
      // The workflow's durable timer says the instant has come; PostgreSQL says whether it still stands.
      const at = Date.parse(instant.at);
      const row = rows.find((r) => r.metric === instant.metric && r.cycle === instant.cycle);
      if (!row) continue;
      const t = timed(row);
      const still = fireInstants([t]).find((i) => i.kind === instant.kind);
      if (!still || Date.parse(still.at) > at) continue; // met, paused, sent, or moved later: a new instant was signalled
      if (instant.kind === 'warning' && t.dueAt && t.dueAt.getTime() <= now.getTime()) continue; // due already: the breach speaks
      due.push({ instant, row });
    }
    if (due.length === 0) return [];
    const ticket = ticketContext(await readTicket(em, clock.workspace_id, input.ticketId));
    const statements: Statement[] = [];
    for (const { instant, row } of due) {
      const dueAt = date(row.due_at) ?? date(row.breached_at) ?? new Date(instant.at);
      const breach = instant.kind === 'breach';
      statements.push({
        text: `insert into "outbox_events" ("id", "workspace_id", "type", "ticket_id", "payload", "created_at", "attempts") values ($1, $2, $3, $4, $5, $6, 0) on conflict ("id") do nothing`,
        parameters: [
          slaEventId(input.ticketId, instant),
          clock.workspace_id,
          breach ? 'sla_breached' : 'sla_warning',
          input.ticketId,
          JSON.stringify({ ticket, sla: { policyId: clock.policy_id, policyName: clock.policy_name ?? '', metric: row.metric, dueAt: dueAt.toISOString() }, cause: null }),
          now,
        ],
        wakes: OUTBOX_CHANNEL,
      });
      statements.push(
        breach
          ? {
              text: `update "sla_targets" set "breach_sent_at" = $3, "status" = 'breached', "breached_at" = coalesce("breached_at", "due_at") where "ticket_id" = $1 and "metric" = $2`,
              parameters: [input.ticketId, row.metric, now],
            }
          : { text: `update "sla_targets" set "warning_sent_at" = $3 where "ticket_id" = $1 and "metric" = $2`, parameters: [input.ticketId, row.metric, now] },
      );
      if (breach) {
        statements.push({
          text: `insert into "sla_breach_counts" ("workspace_id", "metric", "priority", "count") values ($1, $2, $3, 1)
                 on conflict ("workspace_id", "metric", "priority") do update set "count" = "sla_breach_counts"."count" + 1`,
          parameters: [clock.workspace_id, row.metric, row.priority],
        });
      }
    }
    // One statement per write: two updates of one target row cannot share a statement.
    for (const statement of statements) await writeTogether(em, [statement]);
    return due.map((d) => d.instant);
  });
}
