import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type BusinessCalendar, type TicketPriority, type TicketStatus } from '../../../src/graph/index.ts';
import {
  fold,
  prepareTerms,
  startClocks,
  targetsAt,
  SLA_METRICS,
  type ClockEvent,
  type PolicyTarget,
  type PolicyTerms,
  type SlaMetric,
  type TargetView,
} from '../../../src/sla/clock.ts';

// The clock rules (src/sla/clock.ts) against the most literal reading of them: a simulation
// minute by minute. Each minute the events of that instant apply, then every owed clock that
// does not stand still counts the minute if the calendar in force is open in it (asked of Intl,
// minute by minute, as test/unit/graph/business-time-properties.test.ts does), and a clock whose
// count reaches a threshold records the end of that minute. Due times are found by walking on,
// minute by minute. Random tickets: replies and customer messages, status changes (pauses,
// solving, reopening), priority and policy changes (other targets, pauseOn, calendars), in
// calendar time and in the open time of calendars whose windows often cross a change of the
// clocks in Berlin.

const MINUTE = 60_000;
/** Monday 2026-03-23 00:00 UTC: the week before Berlin moves its clocks on (Sunday 2026-03-29, 01:00 UTC). */
const BASE = Date.UTC(2026, 2, 23);
/** How far the simulation looks for a due time. */
const HORIZON_MINUTES = 10 * 24 * 60;

const PRIORITIES: TicketPriority[] = ['low', 'medium', 'high', 'urgent'];
const STATUSES: TicketStatus[] = ['open', 'pending', 'escalated', 'solved', 'closed'];

type Scenario = {
  created: { at: number; priority: TicketPriority; status: TicketStatus };
  terms: PolicyTerms;
  events: Array<Exclude<ClockEvent, { type: 'policy' }> | { type: 'policy'; at: number; terms: PolicyTerms }>;
  now: number;
};

// ---------------------------------------------------------------------------------------------
// The reference

/**
 * Open or not, for each minute from BASE on, by Intl's reading of the calendar's zone. The
 * calendars open and close on quarter hours and zones change their offsets on the hour, so the
 * first minute of each quarter hour speaks for all fifteen.
 */
function openMinutes(calendar: BusinessCalendar, minutes: number): boolean[] {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: calendar.timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', weekday: 'short' });
  const holidays = new Set(calendar.holidays.map((h) => h.date));
  const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
  const open: boolean[] = [];
  for (let i = 0; i < minutes; i += 15) {
    const parts = Object.fromEntries(format.formatToParts(BASE + i * MINUTE).map((p) => [p.type, p.value]));
    const date = `${parts.year}-${parts.month}-${parts.day}`;
    const day = parts.weekday.toLowerCase().slice(0, 3);
    const minute = Number(parts.hour) * 60 + Number(parts.minute);
    const isOpen = !holidays.has(date) && calendar.hours.some((h) => h.day === day && toMinutes(h.from) <= minute && minute < toMinutes(h.to));
    for (let k = 0; k < 15; k++) open.push(isOpen);
  }
  return open;
}

type RefTerms = { targets: PolicyTarget[]; pauseOn: readonly TicketStatus[]; open: (minute: number) => boolean };
type RefClock = { cycle: number; startedAt: number; counted: number; paused: number; fulfilledAt: number | null; warnAt: number | null; breachedAt: number | null };

function refTerms(terms: PolicyTerms, cache: Map<BusinessCalendar, boolean[]>): RefTerms {
  const { calendar } = terms;
  if (!calendar) return { targets: terms.targets, pauseOn: terms.pauseOn, open: () => true };
  if (!cache.has(calendar)) cache.set(calendar, openMinutes(calendar, HORIZON_MINUTES + 4 * 24 * 60));
  const open = cache.get(calendar)!;
  return { targets: terms.targets, pauseOn: terms.pauseOn, open: (minute) => open[(minute - BASE) / MINUTE] ?? false };
}

/** Target and warning threshold in minutes. */
function limitsOf(terms: RefTerms, metric: SlaMetric, priority: TicketPriority): { target: number; warn: number | null } | null {
  const t = terms.targets.find((x) => x.metric === metric && x.priority === priority);
  return t ? { target: t.seconds / 60, warn: t.warnBeforeSeconds ? (t.seconds - t.warnBeforeSeconds) / 60 : null } : null;
}

function reference(s: Scenario): Array<Omit<TargetView, 'seconds'> | { metric: SlaMetric; beyondHorizon: true }> {
  const cache = new Map<BusinessCalendar, boolean[]>();
  let terms = refTerms(s.terms, cache);
  let status = s.created.status;
  let priority = s.created.priority;
  const clock = (cycle: number, at: number): RefClock => ({ cycle, startedAt: at, counted: 0, paused: 0, fulfilledAt: null, warnAt: null, breachedAt: null });
  const clocks: Record<SlaMetric, RefClock | null> = { first_reply: clock(0, s.created.at), next_reply: null, resolution: clock(0, s.created.at) };
  const done = (st: TicketStatus) => st === 'solved' || st === 'closed';
  if (done(status)) clocks.resolution!.fulfilledAt = s.created.at;
  const owed = (c: RefClock | null): c is RefClock => c !== null && c.fulfilledAt === null;
  const standsStill = (metric: SlaMetric) => (metric === 'resolution' ? terms.pauseOn.includes(status) : done(status));
  const settle = (at: number) => {
    for (const metric of SLA_METRICS) {
      const c = clocks[metric];
      if (!owed(c)) continue;
      const l = limitsOf(terms, metric, priority);
      c.warnAt = l && l.warn !== null && c.counted >= l.warn ? (c.warnAt ?? at) : null;
      if (l && c.breachedAt === null && c.counted >= l.target) c.breachedAt = at;
    }
  };

  const events = [...s.events];
  for (let t = s.created.at; t <= s.now; t += MINUTE) {
    while (events.length > 0 && events[0].at === t) {
      const e = events.shift()!;
      if (e.type === 'customer_message') {
        const [first, next] = [clocks.first_reply!, clocks.next_reply];
        if (!done(status) && first.fulfilledAt !== null && (next === null || next.fulfilledAt !== null)) clocks.next_reply = clock((next?.cycle ?? 0) + 1, t);
      } else if (e.type === 'reply') {
        if (clocks.first_reply!.fulfilledAt === null) clocks.first_reply!.fulfilledAt = t;
        else if (owed(clocks.next_reply)) clocks.next_reply.fulfilledAt = t;
      } else if (e.type === 'status') {
        if (e.to !== status) {
          status = e.to;
          if (done(status)) clocks.resolution!.fulfilledAt ??= t;
          else clocks.resolution!.fulfilledAt = null;
          settle(t);
        }
      } else if (e.type === 'priority') {
        if (e.to !== priority) {
          priority = e.to;
          settle(t);
        }
      } else {
        terms = refTerms(e.terms, cache);
        settle(t);
      }
    }
    if (t === s.now) break;
    for (const metric of SLA_METRICS) {
      const c = clocks[metric];
      if (!owed(c)) continue;
      if (standsStill(metric)) {
        c.paused += 1;
        continue;
      }
      if (!terms.open(t)) continue;
      c.counted += 1;
      const l = limitsOf(terms, metric, priority);
      if (l && l.warn !== null && c.warnAt === null && c.counted === l.warn) c.warnAt = t + MINUTE;
      if (l && c.breachedAt === null && c.counted === l.target) c.breachedAt = t + MINUTE;
    }
  }

  /** The end of the minute in which `c`, counting on from `from`, reaches `threshold`; undefined beyond the horizon. */
  const walk = (c: RefClock, from: number, threshold: number): number | undefined => {
    let count = c.counted;
    for (let t = from; t < BASE + HORIZON_MINUTES * MINUTE; t += MINUTE) {
      if (terms.open(t)) count += 1;
      if (count >= threshold) return t + MINUTE;
    }
    return undefined;
  };
  const views: Array<Omit<TargetView, 'seconds'> | { metric: SlaMetric; beyondHorizon: true }> = [];
  for (const metric of SLA_METRICS) {
    const c = clocks[metric];
    const l = c && limitsOf(terms, metric, priority);
    if (!c || !l) continue;
    const paused = c.fulfilledAt === null && standsStill(metric);
    let beyond = false;
    const project = (threshold: number): number | null => {
      if (c.fulfilledAt !== null) {
        if (c.counted >= threshold) return null;
        const at = walk(c, c.fulfilledAt, threshold);
        if (at === undefined) beyond = true;
        return at ?? null;
      }
      if (paused) return null;
      const at = walk(c, s.now, threshold);
      if (at === undefined) beyond = true;
      return at ?? null;
    };
    const dueAt = c.breachedAt ?? project(l.target);
    const warnAt = l.warn === null ? null : (c.warnAt ?? (c.breachedAt !== null ? null : project(l.warn)));
    if (beyond) {
      views.push({ metric, beyondHorizon: true });
      continue;
    }
    views.push({
      metric,
      priority,
      cycle: c.cycle,
      status: c.breachedAt !== null ? 'breached' : c.fulfilledAt !== null ? 'fulfilled' : paused ? 'paused' : 'active',
      startedAt: c.startedAt,
      dueAt,
      warnAt,
      pausedSeconds: c.paused * 60,
      fulfilledAt: c.fulfilledAt,
      breachedAt: c.breachedAt,
    });
  }
  return views;
}

// ---------------------------------------------------------------------------------------------
// Random tickets

const calendars = (() => {
  const weekdays = WEEKDAYS.slice(0, 5);
  const interval = fc.tuple(fc.integer({ min: 0, max: 22 * 4 }), fc.integer({ min: 1, max: 8 * 4 })).map(([from, length]) => {
    const clock = (quarters: number) => `${String(Math.floor(quarters / 4)).padStart(2, '0')}:${String((quarters % 4) * 15).padStart(2, '0')}`;
    return { from: clock(from), to: clock(Math.min(from + length, 96)) };
  });
  return fc
    .record({
      timeZone: fc.constantFrom('UTC', 'Europe/Berlin'),
      // Every weekday one interval (a few hours), sometimes the weekend too; at times all day, or around the change of the clocks.
      weekday: interval,
      weekend: fc.option(interval, { nil: undefined }),
      holiday: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    })
    .map(({ timeZone, weekday, weekend, holiday }): BusinessCalendar => ({
      timeZone,
      hours: [
        ...weekdays.map((day) => ({ day, ...weekday })),
        ...(weekend ? (['sat', 'sun'] as const).map((day) => ({ day, ...weekend })) : []),
      ],
      holidays: holiday === undefined ? [] : [{ date: new Date(BASE + holiday * 86_400_000).toISOString().slice(0, 10), name: 'Holiday' }],
    }));
})();

const targets = fc
  .array(
    fc.record({
      metric: fc.constantFrom(...SLA_METRICS),
      priority: fc.constantFrom(...PRIORITIES),
      minutes: fc.integer({ min: 1, max: 300 }),
      warnBefore: fc.option(fc.integer({ min: 1, max: 299 }), { nil: undefined }),
    }),
    { maxLength: 10 },
  )
  .map((list) => {
    const seen = new Set<string>();
    const out: PolicyTarget[] = [];
    for (const t of list) {
      if (seen.has(`${t.metric} ${t.priority}`)) continue;
      seen.add(`${t.metric} ${t.priority}`);
      out.push({ metric: t.metric, priority: t.priority, seconds: t.minutes * 60, ...(t.warnBefore !== undefined && t.warnBefore < t.minutes ? { warnBeforeSeconds: t.warnBefore * 60 } : {}) });
    }
    return out;
  });

const terms = (calendar: fc.Arbitrary<BusinessCalendar | null>): fc.Arbitrary<PolicyTerms> =>
  fc.record({
    targets,
    pauseOn: fc.subarray(['open', 'pending', 'escalated'] as TicketStatus[]),
    calendar,
  });

const event = (calendar: fc.Arbitrary<BusinessCalendar | null>) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant({ type: 'customer_message' as const }) },
    { weight: 3, arbitrary: fc.constant({ type: 'reply' as const }) },
    { weight: 3, arbitrary: fc.record({ type: fc.constant('status' as const), to: fc.constantFrom(...STATUSES) }) },
    { weight: 2, arbitrary: fc.record({ type: fc.constant('priority' as const), to: fc.constantFrom(...PRIORITIES) }) },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('policy' as const), terms: terms(calendar) }) },
  );

function scenarios(calendar: fc.Arbitrary<BusinessCalendar | null>): fc.Arbitrary<Scenario> {
  return fc
    .record({
      start: fc.integer({ min: 0, max: 6 * 24 * 60 }),
      priority: fc.constantFrom(...PRIORITIES),
      status: fc.constantFrom<TicketStatus>('open', 'open', 'open', 'pending', 'escalated', 'solved'),
      terms: terms(calendar),
      steps: fc.array(fc.tuple(fc.integer({ min: 0, max: 240 }), event(calendar)), { maxLength: 14 }),
      tail: fc.integer({ min: 0, max: 600 }),
    })
    .map(({ start, priority, status, terms, steps, tail }) => {
      let at = BASE + start * MINUTE;
      const created = { at, priority, status };
      const events = steps.map(([gap, e]) => ({ ...e, at: (at += gap * MINUTE) }));
      return { created, terms, events, now: at + tail * MINUTE } as Scenario;
    });
}

function actual(s: Scenario): TargetView[] {
  const prepared = new Map<PolicyTerms, ReturnType<typeof prepareTerms>>();
  const prep = (t: PolicyTerms) => prepared.get(t) ?? prepared.set(t, prepareTerms(t)).get(t)!;
  let state = startClocks({ type: 'created', ...s.created }, prep(s.terms));
  for (const e of s.events) state = fold(state, e.type === 'policy' ? { ...e, terms: prep(e.terms) } : e);
  return targetsAt(state, s.now);
}

/** Instants as ISO text, so that a failure reads as times. */
const shown = (views: Array<Record<string, unknown>>) =>
  views.map((v) => Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'number' && x > 1e12 ? new Date(x).toISOString() : x])));

function check(s: Scenario): void {
  const expected = reference(s);
  const got = actual(s);
  expect(got.map((v) => v.metric)).toEqual(expected.map((v) => v.metric));
  const comparable = expected.flatMap((v, i) => ('beyondHorizon' in v ? [] : [[v, got[i]] as const]));
  expect(shown(comparable.map(([, g]) => { const { seconds: _s, ...rest } = g; return rest; }))).toEqual(shown(comparable.map(([e]) => e)));
}

describe('the clock rules against a minute-by-minute simulation', () => {
  it('in calendar time: replies, customer messages, pauses, reopening, priority and policy changes', () => {
    fc.assert(fc.property(scenarios(fc.constant(null)), check), { numRuns: 400 });
  });

  it('in the open time of calendars, across a change of the clocks, with policy changes between calendars and calendar time', () => {
    fc.assert(fc.property(scenarios(fc.option(calendars, { nil: null, freq: 4 })), check), { numRuns: 100 });
  });

  it('the random tickets reach every status of a target, warnings, pauses and later cycles (the comparison is not vacuous)', () => {
    const views = fc.sample(scenarios(fc.constant(null)), { numRuns: 300, seed: 42 }).flatMap(actual);
    for (const status of ['active', 'paused', 'fulfilled', 'breached']) expect(views.some((v) => v.status === status), status).toBe(true);
    expect(views.some((v) => v.status === 'breached' && v.fulfilledAt !== null)).toBe(true);
    expect(views.some((v) => v.warnAt !== null && v.status === 'active')).toBe(true);
    expect(views.some((v) => v.pausedSeconds > 0 && v.metric === 'resolution')).toBe(true);
    expect(views.some((v) => v.metric === 'next_reply' && v.cycle > 1)).toBe(true);
  });

  it('a breached target stays breached when it is met later, and when a change gives it more time', () => {
    const urgent: PolicyTerms = { targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 600 }, { metric: 'first_reply', priority: 'low', seconds: 36_000 }], pauseOn: [], calendar: null };
    fc.assert(
      fc.property(fc.integer({ min: 11, max: 600 }), fc.integer({ min: 0, max: 600 }), (replyAfter, lowAfter) => {
        const at = BASE;
        const s: Scenario = {
          created: { at, priority: 'urgent', status: 'open' },
          terms: urgent,
          events: [
            { type: 'priority', at: at + replyAfter * MINUTE, to: 'low' },
            { type: 'reply', at: at + (replyAfter + lowAfter) * MINUTE },
          ],
          now: at + (replyAfter + lowAfter + 1) * MINUTE,
        };
        check(s);
        const [first] = actual(s);
        expect(first).toMatchObject({ status: 'breached', breachedAt: at + 10 * MINUTE, dueAt: at + 10 * MINUTE, fulfilledAt: at + (replyAfter + lowAfter) * MINUTE });
      }),
    );
  });
});
