import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findOr404 } from '../common/find-or-404.ts';
import { conflict, validationFailed } from '../errors.ts';
import { calendarReferences, type WorkflowGraph } from '../graph/index.ts';
import { sql } from '../common/sql.ts';
import { Calendar } from './entity.ts';
import type { CreateCalendarInput, UpdateCalendarInput } from './schema.ts';

/**
 * Something else of the workspace that counts a calendar's open time and forbids its deletion
 * while it does (an active SLA policy): wired in by the composition root (src/services.ts),
 * since those modules depend on this one.
 */
export type CalendarUsers = {
  /** How the 409 names one of them and several ("an active SLA policy", "active SLA policies"). */
  one: string;
  many: string;
  /** Those that use the calendar now, read in the deleting transaction while the calendar is locked. */
  find(em: EntityManager, workspaceId: string, calendarId: string): Promise<Array<{ id: string; name: string }>>;
  /** Told of a change to the calendar at `at`, in its transaction (SLA clocks count open time from then on with the new hours). */
  changed?(em: EntityManager, workspaceId: string, calendarId: string, at: Date): Promise<void>;
};

/** The calendars of a workspace (docs/contract.md, "Calendars"). */
export class CalendarService {
  private readonly em: EntityManager;
  private readonly users: CalendarUsers[];

  constructor(em: EntityManager, deps: { users?: CalendarUsers[] } = {}) {
    this.em = em;
    this.users = deps.users ?? [];
  }

  async create(workspaceId: string, input: CreateCalendarInput): Promise<Calendar> {
    const calendar = this.em.create(Calendar, {
      workspace: workspaceId,
      name: input.name,
      timeZone: input.timeZone,
      hours: input.hours,
      holidays: input.holidays ?? [],
    });
    await this.em.flush();
    return calendar;
  }

  async get(workspaceId: string, calendarId: string): Promise<Calendar> {
    return findOr404(this.em, Calendar, calendarId, { workspace: workspaceId, deletedAt: null }, 'Calendar');
  }

  /** Newest first. */
  async list(workspaceId: string): Promise<Calendar[]> {
    return this.em.find(Calendar, { workspace: workspaceId, deletedAt: null }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  }

  /** Replaces the fields given. Runs read a calendar when they need it, so they see the change from then on. */
  async update(workspaceId: string, calendarId: string, input: UpdateCalendarInput): Promise<Calendar> {
    return this.em.transactional(async (em) => {
      const calendar = await findOr404(em, Calendar, calendarId, { workspace: workspaceId, deletedAt: null }, 'Calendar', { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (input.name !== undefined) calendar.name = input.name;
      if (input.timeZone !== undefined) calendar.timeZone = input.timeZone;
      if (input.hours !== undefined) calendar.hours = input.hours;
      if (input.holidays !== undefined) calendar.holidays = input.holidays;
      calendar.updatedAt = new Date();
      await em.flush();
      for (const users of this.users) await users.changed?.(em, workspaceId, calendar.id, calendar.updatedAt);
      return calendar;
    });
  }

  /**
   * The calendar disappears from the API, unless an active workflow names it or an active SLA
   * policy counts its open time (409 naming them). Its row stays: runs already under way, or
   * test runs of inactive workflows, keep reading it.
   */
  async delete(workspaceId: string, calendarId: string): Promise<void> {
    await this.em.transactional(async (em) => {
      // Locked first: a workflow being saved with this calendar holds it (checkReferences), so
      // either that save commits first and is seen below, or it finds the calendar deleted.
      const calendar = await findOr404(em, Calendar, calendarId, { workspace: workspaceId, deletedAt: null }, 'Calendar', { lockMode: LockMode.PESSIMISTIC_WRITE });
      const users = await activeWorkflowsNaming(em, workspaceId, calendar.id);
      if (users.length > 0) {
        const names = users.map((w) => `${JSON.stringify(w.name)} (${w.id})`).join(', ');
        throw conflict('calendar_in_use', `Calendar ${JSON.stringify(calendar.name)} is used by ${users.length === 1 ? 'an active workflow' : `${users.length} active workflows`}: ${names}. Deactivate them or change their graphs first.`);
      }
      for (const { one, many, find } of this.users) {
        const found = await find(em, workspaceId, calendar.id);
        if (found.length === 0) continue;
        const names = found.map((u) => `${JSON.stringify(u.name)} (${u.id})`).join(', ');
        throw conflict('calendar_in_use', `Calendar ${JSON.stringify(calendar.name)} is used by ${found.length === 1 ? one : `${found.length} ${many}`}: ${names}. Deactivate them or give them another calendar first.`);
      }
      calendar.deletedAt = new Date();
    });
  }

  /**
   * A 400 naming each node of `graph` whose calendar is not a calendar of the workspace (unknown,
   * deleted, or another workspace's). Within a transaction, the calendars found stay locked
   * against deletion until it ends.
   */
  async checkReferences(em: EntityManager, workspaceId: string, graph: WorkflowGraph): Promise<void> {
    const refs = calendarReferences(graph);
    if (refs.length === 0) return;
    const ids = [...new Set(refs.map((r) => r.calendarId))];
    const found = await em.find(Calendar, { workspace: workspaceId, id: { $in: ids }, deletedAt: null }, { fields: ['id'], ...(em.isInTransaction() ? { lockMode: LockMode.PESSIMISTIC_READ } : {}) });
    const known = new Set(found.map((c) => c.id.toLowerCase()));
    const missing = refs.filter((r) => !known.has(r.calendarId));
    if (missing.length > 0) {
      throw validationFailed(
        missing.map((r) => ({ path: r.path, message: `node ${JSON.stringify(r.nodeId)}: there is no calendar ${JSON.stringify(r.calendarId)} in this workspace` })),
        'workflowJson names calendars this workspace does not have.',
      );
    }
  }
}

/** Active workflows of the workspace whose graph names the calendar (the workflows table, read directly). */
async function activeWorkflowsNaming(em: EntityManager, workspaceId: string, calendarId: string): Promise<Array<{ id: string; name: string }>> {
  const id = calendarId.toLowerCase();
  // The text search narrows the rows; calendarReferences decides (the id could appear as mere text).
  const candidates = await sql<{ id: string; name: string; graph: WorkflowGraph }>(
    em,
    'select id, name, graph from workflows where workspace_id = $1 and is_active and deleted_at is null and lower(graph::text) like $2 order by created_at, id',
    [workspaceId, `%${id}%`],
  );
  return candidates.filter((w) => calendarReferences(w.graph).some((r) => r.calendarId === id)).map((w) => ({ id: w.id, name: w.name }));
}
