import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { businessCalendarOf, readCalendars } from '../calendars/store.ts';
import { sql } from '../common/sql.ts';
import { evaluateCondition, type BusinessCalendar, type ConditionData, type TicketStatus } from '../graph/index.ts';
import { prepareTerms, type PolicyTarget, type PolicyTerms, type Terms } from './clock.ts';

/** A policy as the clocks choose and count with it: its match, and its terms as they are now. */
export type Governing = { policyId: string; policyName: string; match: ConditionData | null; terms: Terms; termsId: string };

type PolicyRow = { id: string; workspace_id: string; name: string; match: ConditionData | null; calendar_id: string | null; targets: PolicyTarget[]; pause_on: TicketStatus[] };

/**
 * The terms of a policy with its calendar, and their id: a hash of the workspace and of what
 * counts (targets, pause statuses, the calendar's definition), so that equal terms are one row
 * of sla_terms and any change to them, or to the calendar, is another.
 */
export function termsOf(workspaceId: string, policy: { targets: PolicyTarget[]; pauseOn: readonly TicketStatus[] }, calendar: BusinessCalendar | null): { terms: PolicyTerms; termsId: string } {
  const terms: PolicyTerms = {
    targets: policy.targets.map((t) => ({ metric: t.metric, priority: t.priority, seconds: t.seconds, ...(t.warnBeforeSeconds ? { warnBeforeSeconds: t.warnBeforeSeconds } : {}) })),
    pauseOn: [...policy.pauseOn],
    calendar: calendar && {
      timeZone: calendar.timeZone,
      hours: calendar.hours.map((h) => ({ day: h.day, from: h.from, to: h.to })),
      holidays: calendar.holidays.map((h) => ({ date: h.date })),
    },
  };
  const termsId = createHash('sha256').update(workspaceId).update('\n').update(JSON.stringify(terms)).digest('hex');
  return { terms, termsId };
}

/**
 * The active policies of each workspace, in the order they are matched, with their terms as they
 * are now; the terms are saved (sla_terms) so that states can name them. Read once per batch.
 */
export async function governingPolicies(em: EntityManager, workspaceIds: string[]): Promise<Map<string, Governing[]>> {
  const byWorkspace = new Map<string, Governing[]>(workspaceIds.map((id) => [id, []]));
  if (workspaceIds.length === 0) return byWorkspace;
  const rows = await sql<PolicyRow>(
    em,
    `select "id", "workspace_id", "name", "match", "calendar_id", "targets", "pause_on" from "sla_policies"
      where "workspace_id" = any($1) and "is_active" and "deleted_at" is null
      order by "workspace_id", "position", "created_at", "id"`,
    [workspaceIds],
  );
  const calendars = new Map((await readCalendars(em, rows.flatMap((r) => (r.calendar_id ? [r.calendar_id] : [])))).map((c) => [c.id.toLowerCase(), c]));
  const saved: Array<{ id: string; workspace: string; terms: PolicyTerms }> = [];
  for (const row of rows) {
    const calendar = row.calendar_id ? calendars.get(row.calendar_id.toLowerCase()) : undefined;
    const { terms, termsId } = termsOf(row.workspace_id, { targets: row.targets, pauseOn: row.pause_on }, calendar && calendar.workspace === row.workspace_id ? businessCalendarOf(calendar) : null);
    saved.push({ id: termsId, workspace: row.workspace_id, terms });
    byWorkspace.get(row.workspace_id)?.push({ policyId: row.id, policyName: row.name, match: row.match, terms: prepareTerms(terms), termsId });
  }
  await saveTerms(em, saved);
  return byWorkspace;
}

/** Saves terms by their id (a row per distinct terms; existing ones are left as they are). */
export async function saveTerms(em: EntityManager, terms: Array<{ id: string; workspace: string; terms: PolicyTerms }>): Promise<void> {
  if (terms.length === 0) return;
  await sql(
    em,
    `insert into "sla_terms" ("id", "workspace_id", "terms", "created_at")
     select t."id", t."workspace_id", t."terms", now() from jsonb_to_recordset($1::jsonb) as t("id" text, "workspace_id" uuid, "terms" jsonb)
     on conflict ("id") do nothing`,
    [JSON.stringify(terms.map((t) => ({ id: t.id, workspace_id: t.workspace, terms: t.terms })))],
  );
}

/** Terms by id, as saved (those a state names that are no longer any policy's current ones). */
export async function readTerms(em: EntityManager, ids: string[]): Promise<Map<string, Terms>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; terms: PolicyTerms }>(em, `select "id", "terms" from "sla_terms" where "id" = any($1)`, [ids]);
  return new Map(rows.map((r) => [r.id, prepareTerms(r.terms)]));
}

/**
 * The policy that governs a ticket: the first, in order, whose match holds for the ticket (as
 * the workflow language evaluates a condition on `ticket.*`); null when none does. A match that
 * cannot be evaluated (a pattern the engine refuses) does not hold.
 */
export function chooseFor(policies: readonly Governing[], ticket: Record<string, unknown>): Governing | null {
  for (const policy of policies) {
    if (policy.match === null) return policy;
    try {
      if (evaluateCondition(policy.match, { ticket })) return policy;
    } catch {
      // not this one
    }
  }
  return null;
}
