import type { EntityManager } from '@mikro-orm/postgresql';
import { idleCutoff, readCalendars, byId } from '../calendars/store.ts';
import { uuidFromName } from '../ids.ts';
import { Execution } from '../executions/entity.ts';
import type { TicketFilter } from '../graph/index.ts';
import { ticketContext } from '../tickets/context.ts';
import { Ticket } from '../tickets/entity.ts';
import { Workflow } from '../workflows/entity.ts';
import { ticketFilterOf } from '../workflows/schedule-spec.ts';
import type { ExecutionDispatcher } from '../executions/dispatcher.ts';

export const TICK_BATCH_SIZE = 200;

export type TickBatch = { cursor: string | null; started: number; done: boolean };

/**
 * One batch of a scheduled tick (docs/automations.md, "Schedules"). Without a ticket filter the tick starts one
 * execution without a ticket; with one, an execution per matching ticket of the workspace,
 * walked in id order, batch by batch. The execution of (tick, ticket) has a fixed id, so a
 * retried batch never starts a ticket twice in one tick.
 */
export async function runTickBatch(
  em: EntityManager,
  dispatcher: ExecutionDispatcher,
  opts: { workflowId: string; tickId: string; cursor: string | null; now: Date; batchSize?: number },
): Promise<TickBatch> {
  const batchSize = opts.batchSize ?? TICK_BATCH_SIZE;
  const workflow = await em.findOne(Workflow, { id: opts.workflowId, deletedAt: null, isActive: true, triggerType: 'scheduled' });
  if (!workflow) return { cursor: null, started: 0, done: true };
  const filter = ticketFilterOf(workflow);

  if (!filter) {
    if (opts.cursor !== null) return { cursor: null, started: 0, done: true };
    const created = await createOnce(em, dispatcher, workflow, [{ key: opts.tickId, ticket: null }]);
    return { cursor: null, started: created, done: true };
  }

  const calendars = filter.calendarId ? byId(await readCalendars(em, [filter.calendarId], workflow.workspace)) : {};
  const where = ticketFilterWhere(workflow.workspace, filter, opts.now, idleCutoff(filter, opts.now, calendars));
  if (opts.cursor) where.id = { $gt: opts.cursor };
  const tickets = await em.find(Ticket, where, { orderBy: { id: 'asc' }, limit: batchSize });
  const started = await createOnce(em, dispatcher, workflow, tickets.map((ticket) => ({ key: `${opts.tickId}:${ticket.id}`, ticket })));
  const done = tickets.length < batchSize;
  return { cursor: done ? null : tickets[tickets.length - 1].id, started, done };
}

/**
 * The tickets of the workspace a ticket filter selects at `now` (a query on Ticket).
 * `idleBefore` is the cutoff of idleForSeconds when it counts a calendar's open time
 * (calendars/store.ts, idleCutoff); without it, calendar time.
 */
export function ticketFilterWhere(workspaceId: string, filter: TicketFilter, now: Date, idleBefore?: Date): Record<string, unknown> {
  const where: Record<string, unknown> = { workspace: workspaceId };
  if (filter.status?.length) where.status = { $in: filter.status };
  if (filter.priority?.length) where.priority = { $in: filter.priority };
  if (filter.tagsAny?.length) where.tags = { $overlap: filter.tagsAny };
  if (filter.idleForSeconds) where.updatedAt = { $lte: idleBefore ?? new Date(now.getTime() - filter.idleForSeconds * 1000) };
  return where;
}

/**
 * docs/automations.md, "Schedules": a tick that finds the previous one still running is skipped. A tick runs until
 * the executions it started have finished, so this counts the scheduled executions of the
 * workflow created before this tick began that are still pending or running.
 */
export async function unfinishedEarlierTickRuns(em: EntityManager, workflowId: string, tickStartedAt: Date): Promise<number> {
  return em.count(Execution, {
    workflow: workflowId,
    triggeredBy: 'scheduled',
    status: { $in: ['pending', 'running'] },
    startedAt: { $lt: tickStartedAt },
  });
}

async function createOnce(
  em: EntityManager,
  dispatcher: ExecutionDispatcher,
  workflow: Workflow,
  targets: Array<{ key: string; ticket: Ticket | null }>,
): Promise<number> {
  if (targets.length === 0) return 0;
  const withIds = targets.map((t) => ({ ...t, eventId: uuidFromName(`${workflow.id}:${t.key}`) }));
  const existing = await em.find(Execution, { workflow: workflow.id, eventId: { $in: withIds.map((t) => t.eventId) } });
  const known = new Set(existing.map((e) => e.eventId));
  const created = await em.transactional((tx) =>
    dispatcher.create(
      tx,
      withIds
        .filter((t) => !known.has(t.eventId))
        .map((t) => ({
          workflow,
          triggeredBy: 'scheduled' as const,
          ticketId: t.ticket?.id ?? null,
          eventId: t.eventId,
          context: { ...(t.ticket ? { ticket: ticketContext(t.ticket) } : {}), data: {} },
        })),
    ),
  );
  // Start what this batch created and anything an earlier attempt created but could not start.
  await dispatcher.start([...created, ...existing.filter((e) => e.status === 'pending' && !e.dispatchedAt)]);
  return created.length;
}
