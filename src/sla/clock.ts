// The clock rules of service levels (docs/sla.md, "The clocks"), as a fold: a ticket's clock
// state and one event at a time in, the next state out; `targetsAt` says where each target
// stands at a given instant. Pure: no I/O, no clock (callers pass `now`), business time through
// the calendars' arithmetic of src/graph. The relay folds a ticket's outbox events with it, the
// background pass and the backtest replay recorded history with it, and GET …/sla reads it.
//
// Each ticket has three clocks: first_reply (from creation to the first outbound reply),
// next_reply (from a customer message that arrives while no reply is owed to the next outbound
// reply; each such start is a new cycle) and resolution (from creation to solved or closed; it
// stops while the status is one of the policy's pauseOn, and a reopened ticket resumes it). A
// clock counts the open time of the policy's calendar (calendar time without one) while it
// runs; while the ticket is solved or closed, reply clocks wait. The targets of the policy and
// priority in force say when each clock is due, measured from the same starting instants
// whatever changed since.
//
// What a clock has counted is kept as a sum, not as a timeline, so a state stays the same small
// size for the ticket's whole life. The instants the clock passed its warning and its target
// are recorded as it passes them, so they stay exact however the terms change later:
//   - A running clock breaches at the instant its count reaches the target in force then; it
//     stays breached, also when met later (fulfilledAt is set as well) or when a later change
//     gives it more time.
//   - A change of priority or policy that leaves a clock at or past its new target breaches it
//     at that instant (a low ticket made urgent after three hours has breached a one-hour first
//     reply at once); past its new warning threshold, the warning is due at that instant. So
//     does reopening a ticket whose resolution, met, had counted that much.
//   - A met clock is settled: later changes do not breach it.

import {
  addOpenTime,
  businessSchedule,
  CalendarError,
  openTimeBetween,
  type BusinessCalendar,
  type BusinessSchedule,
  type TicketPriority,
  type TicketStatus,
} from '../graph/index.ts';

export const SLA_METRICS = ['first_reply', 'next_reply', 'resolution'] as const;
export type SlaMetric = (typeof SLA_METRICS)[number];

/** Statuses during which a policy may stop resolution from counting (solved and closed meet it). */
export const PAUSABLE_STATUSES = ['open', 'pending', 'escalated'] as const;
export type PausableStatus = (typeof PAUSABLE_STATUSES)[number];

export const TARGET_STATUSES = ['active', 'paused', 'fulfilled', 'breached'] as const;
export type TargetStatus = (typeof TARGET_STATUSES)[number];

/** One promise of a policy: `metric` within `seconds` for tickets of `priority`, warned `warnBeforeSeconds` before. */
export type PolicyTarget = { metric: SlaMetric; priority: TicketPriority; seconds: number; warnBeforeSeconds?: number };

/** What a policy says about time: its targets, when resolution pauses, and whose open time counts. */
export type PolicyTerms = { targets: PolicyTarget[]; pauseOn: readonly TicketStatus[]; calendar: BusinessCalendar | null };

/** Terms ready for calculations (the calendar prepared once). */
export type Terms = PolicyTerms & { readonly schedule: BusinessSchedule | null };

export function prepareTerms(terms: PolicyTerms): Terms {
  return { ...terms, schedule: terms.calendar ? businessSchedule(terms.calendar) : null };
}

/** One clock, in milliseconds since the epoch (instants) and milliseconds (amounts). */
export type Clock = {
  /** 0 for first_reply and resolution; next_reply counts its starts from 1. */
  cycle: number;
  startedAt: number;
  /** Time counted while it ran, up to the state's `at` (or to when it was met). */
  counted: number;
  /** Calendar time it stood still while owed (paused, or waiting while the ticket was solved), up to the state's `at`. */
  paused: number;
  fulfilledAt: number | null;
  /** When it passed the warning threshold in force, as recorded (see the rules above). */
  warnAt: number | null;
  /** When it breached, as recorded. */
  breachedAt: number | null;
};

/** A ticket's clocks, as stored (ticket_slas.state): counted up to `at`, the last event folded. */
export type ClockState = {
  at: number;
  status: TicketStatus;
  priority: TicketPriority;
  clocks: { first_reply: Clock; next_reply: Clock | null; resolution: Clock };
};

/** The state and the terms in force since its last event. */
export type SlaState = ClockState & { terms: Terms };

export type CreatedEvent = { type: 'created'; at: number; priority: TicketPriority; status: TicketStatus };
export type ClockEvent =
  | { type: 'customer_message'; at: number }
  | { type: 'reply'; at: number }
  | { type: 'status'; at: number; to: TicketStatus }
  | { type: 'priority'; at: number; to: TicketPriority }
  | { type: 'policy'; at: number; terms: Terms };

/** Where a target stands at an instant (instants in milliseconds; null where there is none). */
export type TargetView = {
  metric: SlaMetric;
  priority: TicketPriority;
  cycle: number;
  status: TargetStatus;
  seconds: number;
  startedAt: number;
  dueAt: number | null;
  warnAt: number | null;
  pausedSeconds: number;
  fulfilledAt: number | null;
  breachedAt: number | null;
};

const DONE: readonly TicketStatus[] = ['solved', 'closed'];

const newClock = (cycle: number, at: number): Clock => ({ cycle, startedAt: at, counted: 0, paused: 0, fulfilledAt: null, warnAt: null, breachedAt: null });

/** The clocks of a ticket created at `event.at`, governed by `terms`. */
export function startClocks(event: CreatedEvent, terms: Terms): SlaState {
  const state: SlaState = {
    at: event.at,
    status: event.status,
    priority: event.priority,
    terms,
    clocks: { first_reply: newClock(0, event.at), next_reply: null, resolution: newClock(0, event.at) },
  };
  if (DONE.includes(event.status)) state.clocks.resolution.fulfilledAt = event.at;
  return state;
}

/**
 * The state after `event`. Ticket events older than the state (already folded, as when history
 * was replayed up to a later instant) change nothing; a policy change older than it counts from
 * the state's instant.
 */
export function fold(previous: SlaState, event: ClockEvent): SlaState {
  if (event.type !== 'policy' && event.at < previous.at) return previous;
  const state = advance(previous, event.at);
  const { first_reply: first, next_reply: next, resolution } = state.clocks;
  const at = state.at;
  switch (event.type) {
    case 'customer_message': {
      if (DONE.includes(state.status)) break;
      const owed = first.fulfilledAt === null || (next !== null && next.fulfilledAt === null);
      if (!owed) state.clocks.next_reply = newClock((next?.cycle ?? 0) + 1, at);
      break;
    }
    case 'reply':
      if (first.fulfilledAt === null) first.fulfilledAt = at;
      else if (next !== null && next.fulfilledAt === null) next.fulfilledAt = at;
      break;
    case 'status':
      if (event.to === state.status) break;
      state.status = event.to;
      if (DONE.includes(event.to)) resolution.fulfilledAt ??= at;
      else resolution.fulfilledAt = null; // reopened: resolution resumes where it stood
      settleChange(state, at);
      break;
    case 'priority':
      if (event.to === state.priority) break;
      state.priority = event.to;
      settleChange(state, at);
      break;
    case 'policy':
      state.terms = event.terms;
      settleChange(state, at);
      break;
  }
  return state;
}

/** `startClocks` then `fold` of each event in turn. */
export function foldAll(created: CreatedEvent, terms: Terms, events: Iterable<ClockEvent>): SlaState {
  let state = startClocks(created, terms);
  for (const event of events) state = fold(state, event);
  return state;
}

/** Each target of the terms and priority in force, at `now` (which must not be before the state). */
export function targetsAt(previous: SlaState, now: number): TargetView[] {
  const state = advance(previous, now);
  const views: TargetView[] = [];
  for (const metric of SLA_METRICS) {
    const clock = state.clocks[metric];
    if (clock === null) continue;
    const limits = thresholds(state.terms, metric, state.priority);
    if (limits === null) continue;
    const paused = clock.fulfilledAt === null && isPaused(state, metric);
    const project = (threshold: number): number | null => {
      if (clock.fulfilledAt !== null) return clock.counted < threshold ? deadline(state.terms, clock.fulfilledAt, threshold - clock.counted) : null;
      if (paused) return null;
      return deadline(state.terms, state.at, threshold - clock.counted);
    };
    views.push({
      metric,
      priority: state.priority,
      cycle: clock.cycle,
      status: clock.breachedAt !== null ? 'breached' : clock.fulfilledAt !== null ? 'fulfilled' : paused ? 'paused' : 'active',
      seconds: limits.target / 1000,
      startedAt: clock.startedAt,
      dueAt: clock.breachedAt ?? project(limits.target),
      warnAt: limits.warn === null ? null : (clock.warnAt ?? (clock.breachedAt !== null ? null : project(limits.warn))),
      pausedSeconds: Math.floor(clock.paused / 1000),
      fulfilledAt: clock.fulfilledAt,
      breachedAt: clock.breachedAt,
    });
  }
  return views;
}

/** The target and warning threshold (milliseconds of counted time) of a metric at a priority, or null when the terms set none. */
export function thresholds(terms: PolicyTerms, metric: SlaMetric, priority: TicketPriority): { target: number; warn: number | null } | null {
  const target = terms.targets.find((t) => t.metric === metric && t.priority === priority);
  if (!target) return null;
  return { target: target.seconds * 1000, warn: target.warnBeforeSeconds ? (target.seconds - target.warnBeforeSeconds) * 1000 : null };
}

/** Whether a clock that is owed stands still: resolution during the policy's pauseOn, reply clocks while the ticket is solved or closed. */
function isPaused(state: SlaState, metric: SlaMetric): boolean {
  return metric === 'resolution' ? state.terms.pauseOn.includes(state.status) : DONE.includes(state.status);
}

/** Time that counts in [from, to): open time of the calendar, or all of it without one. */
function counted(terms: Terms, from: number, to: number): number {
  return terms.schedule ? openTimeBetween(terms.schedule, from, to) : to - from;
}

/** The instant `amount` (> 0) of counting time after `from`; null when the calendar has not that much open time ahead. */
function deadline(terms: Terms, from: number, amount: number): number | null {
  if (!terms.schedule) return from + amount;
  try {
    return addOpenTime(terms.schedule, from, amount);
  } catch (err) {
    if (err instanceof CalendarError) return null;
    throw err;
  }
}

/** A copy of the state counted up to `to` (at least its own instant), recording the warnings and breaches passed on the way. */
function advance(previous: SlaState, to: number): SlaState {
  const state: SlaState = {
    ...previous,
    clocks: {
      first_reply: { ...previous.clocks.first_reply },
      next_reply: previous.clocks.next_reply && { ...previous.clocks.next_reply },
      resolution: { ...previous.clocks.resolution },
    },
  };
  const from = state.at;
  if (!(to > from)) return state;
  for (const metric of SLA_METRICS) {
    const clock = state.clocks[metric];
    if (clock === null || clock.fulfilledAt !== null) continue;
    if (isPaused(state, metric)) {
      clock.paused += to - from;
      continue;
    }
    const amount = counted(state.terms, from, to);
    const limits = thresholds(state.terms, metric, state.priority);
    if (limits !== null) {
      const crossing = (threshold: number) => (clock.counted < threshold && clock.counted + amount >= threshold ? deadline(state.terms, from, threshold - clock.counted) : null);
      if (limits.warn !== null && clock.warnAt === null) clock.warnAt = crossing(limits.warn);
      if (clock.breachedAt === null) clock.breachedAt = crossing(limits.target);
    }
    clock.counted += amount;
  }
  state.at = to;
  return state;
}

/**
 * After a change of status, priority or policy, at `at`: an owed clock at or past its new target has
 * breached now (unless it had already); at or past its new warning threshold, its warning is
 * due now (unless recorded already); short of it, the warning lies ahead.
 */
function settleChange(state: SlaState, at: number): void {
  for (const metric of SLA_METRICS) {
    const clock = state.clocks[metric];
    if (clock === null || clock.fulfilledAt !== null) continue;
    const limits = thresholds(state.terms, metric, state.priority);
    clock.warnAt = limits !== null && limits.warn !== null && clock.counted >= limits.warn ? (clock.warnAt ?? at) : null;
    if (limits !== null && clock.breachedAt === null && clock.counted >= limits.target) clock.breachedAt = at;
  }
}

/** The stored form of a state (without its terms, which ticket_slas names by id). */
export function storedState(state: SlaState): ClockState {
  const { terms: _terms, ...stored } = state;
  return stored;
}

/** A stored state with the terms in force since its last event. */
export function withTerms(stored: ClockState, terms: Terms): SlaState {
  return { ...stored, terms };
}
