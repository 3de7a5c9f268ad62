import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Calendar } from '../calendars/entity.ts';
import { findOr404 } from '../common/find-or-404.ts';
import { sql } from '../common/sql.ts';
import { validationFailed } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { SlaPolicy } from './entity.ts';
import type { CreatePolicyInput, UpdatePolicyInput } from './schema.ts';

/** Asks for the background pass that chooses the policies of a workspace's unsolved tickets again (src/sla/passes.ts). */
export type PassRequests = { request(em: EntityManager, workspaceId: string, at: Date): Promise<void> };

/**
 * The SLA policies of a workspace (docs/sla.md, "Policies"). Every change is followed, in the
 * background, by a pass that chooses the policy of each unsolved ticket again and moves its
 * timers (requested in the same transaction, so it is never lost).
 */
export class SlaPolicyService {
  private readonly em: EntityManager;
  private readonly passes: PassRequests | undefined;

  constructor(em: EntityManager, deps: { passes?: PassRequests } = {}) {
    this.em = em;
    this.passes = deps.passes;
  }

  /** In the order they are matched: position, then age. */
  async list(workspaceId: string): Promise<SlaPolicy[]> {
    return this.em.find(SlaPolicy, { workspace: workspaceId, deletedAt: null }, { orderBy: { position: 'asc', createdAt: 'asc', id: 'asc' } });
  }

  async get(workspaceId: string, policyId: string): Promise<SlaPolicy> {
    return findOr404(this.em, SlaPolicy, policyId, { workspace: workspaceId, deletedAt: null }, 'SLA policy');
  }

  async create(workspaceId: string, input: CreatePolicyInput): Promise<SlaPolicy> {
    return this.em.transactional(async (em) => {
      const calendarId = await checkCalendar(em, workspaceId, input.calendarId ?? null);
      const position = input.position ?? (await nextPosition(em, workspaceId));
      const now = new Date();
      const policy = em.create(SlaPolicy, {
        workspace: workspaceId,
        name: input.name,
        description: input.description ?? null,
        isActive: input.isActive ?? true,
        position,
        match: input.match ?? null,
        calendarId,
        targets: input.targets,
        pauseOn: input.pauseOn ?? ['pending'],
        createdAt: now,
        updatedAt: now,
      });
      await em.flush();
      await this.passes?.request(em, workspaceId, now);
      return policy;
    });
  }

  /** Replaces the fields given (`targets`, `pauseOn` and `match` as a whole). */
  async update(workspaceId: string, policyId: string, input: UpdatePolicyInput): Promise<SlaPolicy> {
    return this.em.transactional(async (em) => {
      const policy = await findOr404(em, SlaPolicy, policyId, { workspace: workspaceId, deletedAt: null }, 'SLA policy', { lockMode: LockMode.PESSIMISTIC_WRITE });
      // An active policy's calendar is locked against deletion (and one deleted while the policy was inactive refuses its activation).
      if (input.calendarId !== undefined) policy.calendarId = await checkCalendar(em, workspaceId, input.calendarId);
      else if (input.isActive ?? policy.isActive) await checkCalendar(em, workspaceId, policy.calendarId ?? null);
      if (input.name !== undefined) policy.name = input.name;
      if (input.description !== undefined) policy.description = input.description;
      if (input.isActive !== undefined) policy.isActive = input.isActive;
      if (input.position !== undefined) policy.position = input.position;
      if (input.match !== undefined) policy.match = input.match;
      if (input.targets !== undefined) policy.targets = input.targets;
      if (input.pauseOn !== undefined) policy.pauseOn = input.pauseOn;
      policy.updatedAt = new Date();
      await em.flush();
      await this.passes?.request(em, workspaceId, policy.updatedAt);
      return policy;
    });
  }

  /** The policy disappears from the API; tickets it governed are given to the next policy that matches (or none). */
  async delete(workspaceId: string, policyId: string): Promise<void> {
    await this.em.transactional(async (em) => {
      const policy = await findOr404(em, SlaPolicy, policyId, { workspace: workspaceId, deletedAt: null }, 'SLA policy', { lockMode: LockMode.PESSIMISTIC_WRITE });
      policy.deletedAt = new Date();
      await em.flush();
      await this.passes?.request(em, workspaceId, policy.deletedAt);
    });
  }
}

/**
 * The active policies of the workspace whose targets count the calendar's open time (for the
 * calendar's deletion, which they forbid). Read under the calendar's lock: see checkCalendar.
 */
export async function activePoliciesUsing(em: EntityManager, workspaceId: string, calendarId: string): Promise<Array<{ id: string; name: string }>> {
  return sql<{ id: string; name: string }>(
    em,
    `select "id", "name" from "sla_policies" where "workspace_id" = $1 and "calendar_id" = $2 and "is_active" and "deleted_at" is null order by "position", "created_at", "id"`,
    [workspaceId, calendarId],
  );
}

/**
 * The calendar id when it names a calendar of the workspace (not deleted), else a 400 naming
 * calendarId. The calendar stays locked against deletion until the transaction ends, so either
 * its deletion commits first and this sees it gone, or the deletion sees this policy.
 */
async function checkCalendar(em: EntityManager, workspaceId: string, calendarId: string | null): Promise<string | null> {
  if (calendarId === null) return null;
  const found = isUuid(calendarId) ? await em.findOne(Calendar, { id: calendarId, workspace: workspaceId, deletedAt: null }, { fields: ['id'], lockMode: LockMode.PESSIMISTIC_READ }) : null;
  if (!found) throw validationFailed([{ path: 'calendarId', message: `There is no calendar ${JSON.stringify(calendarId)} in this workspace.` }]);
  return found.id;
}

async function nextPosition(em: EntityManager, workspaceId: string): Promise<number> {
  const [row] = await sql<{ next: number | null }>(em, `select max("position") + 1 as "next" from "sla_policies" where "workspace_id" = $1 and "deleted_at" is null`, [workspaceId]);
  return Math.min(Number(row?.next ?? 0), 1_000_000);
}
