import type { EntityManager } from '@mikro-orm/postgresql';
import { pgTimestamp, sql, writeTogether, type Statement } from '../common/sql.ts';
import type { TicketPriority, TicketStatus } from '../graph/index.ts';
import { fold, startClocks, storedState, targetsAt, withTerms, type ClockEvent, type ClockState, type SlaState } from './clock.ts';
import { replayStates, type ReplayedTicket } from './history.ts';
import { fireInstants, instantsKey, type TimedTarget } from './instants.ts';
import { chooseFor, governingPolicies, readTerms, type Governing } from './terms.ts';

// How the relay keeps each governed ticket's clocks (docs/sla.md, "How the clocks are kept"):
// in the transaction that claims a batch of outbox events, the events of workspaces with an
// active policy are folded into ticket_slas (the state) and sla_targets (each target, for the
// queue and the timers), a few statements per batch whatever its size. Nothing is added to
// the writes of tickets and messages themselves.

/** The outbox events the clocks read. */
export const SLA_EVENT_TYPES = ['ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'message_added'] as const;

/** An outbox event as the clocks read it. */
export type SlaEvent = { workspace: string; type: string; ticketId: string | null; createdAt: Date; payload: Record<string, unknown> | null };

type StoredRow = { ticket_id: string; workspace_id: string; policy_id: string | null; terms_id: string | null; state: ClockState | null; revision: number };
type TargetRow = {
  ticket_id: string;
  metric: TimedTarget['metric'];
  cycle: number;
  status: TimedTarget['status'];
  due_at: string | Date | null;
  warn_at: string | Date | null;
  breached_at: string | Date | null;
  warning_sent_at: string | Date | null;
  breach_sent_at: string | Date | null;
};

/** A ticket's clocks while a batch works on them. */
export type Working = {
  ticketId: string;
  workspaceId: string;
  /** The governing policy now (null: none). */
  policy: Governing | null;
  state: SlaState | null;
  /** The ticket as its latest event (or row) showed it: what a replay starts from. */
  ticket: ReplayedTicket | null;
  /** Its history must be replayed: it had no clocks and its creation is not in this batch. */
  replay: boolean;
  stored: StoredRow | null;
};

/**
 * Folds a batch of events (in their order) into the clocks of their tickets, in the caller's
 * transaction. Returns how many tickets' timers must now be signalled (their fire instants moved).
 */
export async function foldEvents(em: EntityManager, events: readonly SlaEvent[], now: Date): Promise<number> {
  const relevant = events.filter((e): e is SlaEvent & { ticketId: string } => e.ticketId !== null && (SLA_EVENT_TYPES as readonly string[]).includes(e.type));
  if (relevant.length === 0) return 0;
  const policies = await governingPolicies(em, [...new Set(relevant.map((e) => e.workspace))]);
  const tickets = await loadClocks(em, [...new Map(relevant.map((e) => [e.ticketId, e.workspace])).entries()], policies);
  for (const event of relevant) {
    const working = tickets.get(event.ticketId)!;
    applyEvent(working, event, policies.get(event.workspace) ?? []);
  }
  return saveClocks(em, [...tickets.values()], now);
}

/**
 * The clocks of these tickets as stored, locked until the transaction ends (in ticket order, so
 * that the relays, the background pass and the timers never wait for each other in a circle).
 */
export async function loadClocks(em: EntityManager, tickets: Array<[ticketId: string, workspaceId: string]>, policies: Map<string, Governing[]>): Promise<Map<string, Working>> {
  const rows = await sql<StoredRow>(
    em,
    `select "ticket_id", "workspace_id", "policy_id", "terms_id", "state", "revision" from "ticket_slas" where "ticket_id" = any($1) order by "ticket_id" for update`,
    [tickets.map(([id]) => id).sort()],
  );
  const stored = new Map(rows.map((r) => [r.ticket_id, r]));
  const current = new Map([...policies.values()].flat().map((p) => [p.termsId, p]));
  const old = await readTerms(em, [...new Set(rows.flatMap((r) => (r.terms_id && !current.has(r.terms_id) ? [r.terms_id] : [])))]);
  const working = new Map<string, Working>();
  for (const [ticketId, workspaceId] of tickets) {
    const row = stored.get(ticketId) ?? null;
    const terms = row?.terms_id ? (current.get(row.terms_id)?.terms ?? old.get(row.terms_id)) : undefined;
    const policy = row?.policy_id ? ((policies.get(workspaceId) ?? []).find((p) => p.policyId === row.policy_id && p.termsId === row.terms_id) ?? null) : null;
    const state = row?.state && terms ? withTerms(row.state, terms) : null;
    working.set(ticketId, {
      ticketId,
      workspaceId,
      // A stored state keeps counting with its own terms until a change of policy is folded: `policy` says what governs it now.
      policy: state ? (policy ?? { policyId: row!.policy_id!, policyName: '', match: null, terms: terms!, termsId: row!.terms_id! }) : null,
      state,
      ticket: null,
      replay: false,
      stored: row,
    });
  }
  return working;
}

/** One event into a ticket's clocks: the policy chosen again from the ticket it shows, then its effect on the clocks. */
function applyEvent(w: Working, event: SlaEvent, policies: readonly Governing[]): void {
  const ticket = event.payload?.ticket as Record<string, unknown> | undefined;
  if (!ticket) return;
  w.ticket = replayedTicket(w.ticketId, ticket);
  const at = event.createdAt.getTime();
  const chosen = chooseFor(policies, ticket);
  if (chosen === null) {
    Object.assign(w, { policy: null, state: null, replay: false });
    return;
  }
  if (w.state === null) {
    if (event.type === 'ticket_created' && !w.replay) w.state = startClocks({ type: 'created', at: Date.parse(String(ticket.createdAt)), status: ticket.status as TicketStatus, priority: ticket.priority as TicketPriority }, chosen.terms);
    else w.replay = true; // its history up to now (this event included) is read afresh
    w.policy = chosen;
    return;
  }
  if (w.policy?.policyId !== chosen.policyId || w.policy.termsId !== chosen.termsId) {
    w.state = fold(w.state, { type: 'policy', at, terms: chosen.terms });
    w.policy = chosen;
  }
  for (const e of clockEventsOf(event, at)) w.state = fold(w.state, e);
}

/** What an event means to the clocks. */
function clockEventsOf(event: SlaEvent, at: number): ClockEvent[] {
  const payload = event.payload ?? {};
  switch (event.type) {
    case 'ticket_updated': {
      const changes = (payload.changes ?? {}) as Record<string, { to?: unknown }>;
      const events: ClockEvent[] = [];
      if (changes.status?.to) events.push({ type: 'status', at, to: changes.status.to as TicketStatus });
      if (changes.priority?.to) events.push({ type: 'priority', at, to: changes.priority.to as TicketPriority });
      return events;
    }
    case 'ticket_closed':
      return [{ type: 'status', at, to: 'closed' }];
    case 'message_received':
      return [{ type: 'customer_message', at }];
    case 'message_added':
      return (payload.message as { direction?: unknown } | undefined)?.direction === 'outbound' ? [{ type: 'reply', at }] : [];
    default:
      return [];
  }
}

export function replayedTicket(id: string, ticket: Record<string, unknown>): ReplayedTicket {
  return { id, createdAt: String(ticket.createdAt), customerEmail: String(ticket.customerEmail ?? ''), status: ticket.status as TicketStatus, priority: ticket.priority as TicketPriority };
}

/**
 * Writes the clocks of these tickets (replaying the history of those that need it first): their
 * state, their targets as of `now`, and a new revision for those whose fire instants moved, in
 * one statement. Returns how many revisions went up (timers to signal).
 */
export async function saveClocks(em: EntityManager, tickets: Working[], now: Date): Promise<number> {
  const replays = tickets.filter((w) => w.replay && w.policy && w.ticket);
  if (replays.length > 0) {
    const states = await replayStates(em, replays.map((w) => ({ ...w.ticket!, terms: w.policy!.terms })));
    for (const w of replays) w.state = states.get(w.ticketId) ?? null;
  }
  if (tickets.length === 0) return 0;
  const existing = await sql<TargetRow>(
    em,
    `select "ticket_id", "metric", "cycle", "status", "due_at", "warn_at", "breached_at", "warning_sent_at", "breach_sent_at" from "sla_targets" where "ticket_id" = any($1)`,
    [tickets.map((w) => w.ticketId)],
  );
  const before = new Map<string, TimedTarget[]>();
  for (const r of existing) {
    const list = before.get(r.ticket_id) ?? [];
    list.push({ metric: r.metric, cycle: r.cycle, status: r.status, dueAt: date(r.due_at), warnAt: date(r.warn_at), breachedAt: date(r.breached_at), warningSentAt: date(r.warning_sent_at), breachSentAt: date(r.breach_sent_at) });
    before.set(r.ticket_id, list);
  }
  const slaRows: unknown[] = [];
  const targetRows: unknown[] = [];
  let signals = 0;
  // Rows are written in ticket order, as they are locked: two writers of new rows never wait for each other in a circle.
  for (const w of [...tickets].sort((a, b) => a.ticketId.localeCompare(b.ticketId))) {
    const old = before.get(w.ticketId) ?? [];
    const governed = w.policy !== null && w.state !== null;
    const views = governed ? targetsAt(w.state!, Math.max(now.getTime(), w.state!.at)) : [];
    const next: TimedTarget[] = views.map((v) => {
      const same = old.find((o) => o.metric === v.metric && o.cycle === v.cycle);
      return { metric: v.metric, cycle: v.cycle, status: v.status, dueAt: date(v.dueAt), warnAt: date(v.warnAt), breachedAt: date(v.breachedAt), warningSentAt: same?.warningSentAt ?? null, breachSentAt: same?.breachSentAt ?? null };
    });
    const moved = instantsKey(fireInstants(old)) !== instantsKey(fireInstants(next));
    const revision = (w.stored?.revision ?? 0) + (moved ? 1 : 0);
    if (moved) signals += 1;
    if (!w.stored && !governed) continue; // never governed: nothing to keep
    slaRows.push({
      ticket_id: w.ticketId,
      workspace_id: w.workspaceId,
      policy_id: governed ? w.policy!.policyId : null,
      terms_id: governed ? w.policy!.termsId : null,
      state: governed ? storedState(w.state!) : null,
      revision,
    });
    views.forEach((v, i) =>
      targetRows.push({
        ticket_id: w.ticketId,
        workspace_id: w.workspaceId,
        metric: v.metric,
        priority: v.priority,
        cycle: v.cycle,
        status: v.status,
        started_at: iso(v.startedAt),
        due_at: iso(v.dueAt),
        warn_at: iso(v.warnAt),
        paused_seconds: v.pausedSeconds,
        fulfilled_at: iso(v.fulfilledAt),
        breached_at: iso(v.breachedAt),
        warning_sent_at: next[i].warningSentAt?.toISOString() ?? null,
        breach_sent_at: next[i].breachSentAt?.toISOString() ?? null,
      }),
    );
  }
  await writeTogether(em, clockStatements(slaRows, targetRows, tickets.map((w) => w.ticketId), now));
  return signals;
}

function clockStatements(slaRows: unknown[], targetRows: unknown[], ticketIds: string[], now: Date): Statement[] {
  const statements: Statement[] = [
    // Targets no longer there (another policy, or none) go.
    {
      text: `delete from "sla_targets" t where t."ticket_id" = any($1)
               and not exists (select 1 from jsonb_to_recordset($2::jsonb) as n("ticket_id" uuid, "metric" text) where n."ticket_id" = t."ticket_id" and n."metric" = t."metric")`,
      parameters: [ticketIds, JSON.stringify(targetRows)],
    },
  ];
  if (targetRows.length > 0) {
    statements.push({
      text: `insert into "sla_targets" ("ticket_id", "workspace_id", "metric", "priority", "cycle", "status", "started_at", "due_at", "warn_at", "paused_seconds", "fulfilled_at", "breached_at", "warning_sent_at", "breach_sent_at", "updated_at")
             select n."ticket_id", n."workspace_id", n."metric", n."priority", n."cycle", n."status", n."started_at", n."due_at", n."warn_at", n."paused_seconds", n."fulfilled_at", n."breached_at", n."warning_sent_at", n."breach_sent_at", $2
               from jsonb_to_recordset($1::jsonb) as n("ticket_id" uuid, "workspace_id" uuid, "metric" text, "priority" text, "cycle" int, "status" text, "started_at" timestamptz, "due_at" timestamptz, "warn_at" timestamptz, "paused_seconds" int, "fulfilled_at" timestamptz, "breached_at" timestamptz, "warning_sent_at" timestamptz, "breach_sent_at" timestamptz)
             on conflict ("ticket_id", "metric") do update set
               "priority" = excluded."priority", "cycle" = excluded."cycle", "status" = excluded."status", "started_at" = excluded."started_at", "due_at" = excluded."due_at",
               "warn_at" = excluded."warn_at", "paused_seconds" = excluded."paused_seconds", "fulfilled_at" = excluded."fulfilled_at", "breached_at" = excluded."breached_at",
               "warning_sent_at" = excluded."warning_sent_at", "breach_sent_at" = excluded."breach_sent_at", "updated_at" = excluded."updated_at"`,
      parameters: [JSON.stringify(targetRows), now],
    });
  }
  if (slaRows.length > 0) {
    statements.push({
      text: `insert into "ticket_slas" ("ticket_id", "workspace_id", "policy_id", "terms_id", "state", "revision", "signalled_revision", "signal_attempts", "updated_at")
             select n."ticket_id", n."workspace_id", n."policy_id", n."terms_id", n."state", n."revision", 0, 0, $2
               from jsonb_to_recordset($1::jsonb) as n("ticket_id" uuid, "workspace_id" uuid, "policy_id" uuid, "terms_id" text, "state" jsonb, "revision" int)
             on conflict ("ticket_id") do update set
               "policy_id" = excluded."policy_id", "terms_id" = excluded."terms_id", "state" = excluded."state", "revision" = excluded."revision", "updated_at" = excluded."updated_at"`,
      parameters: [JSON.stringify(slaRows), now],
    });
  }
  return statements;
}

const date = (v: string | Date | number | null): Date | null => (v === null ? null : typeof v === 'number' ? new Date(v) : pgTimestamp(v));
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
