import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type BusinessCalendar } from '../../../src/graph/index.ts';
import { fold, foldAll, prepareTerms, startClocks, storedState, targetsAt, withTerms, type ClockEvent, type CreatedEvent, type PolicyTerms, type TargetView } from '../../../src/sla/clock.ts';

// The clock rules of docs/sla.md, one rule at a time, on a ticket created Monday 2026-03-02 at
// 09:00 UTC. test/unit/sla/clock-properties.test.ts holds them to a simulation on random tickets.

const T0 = Date.parse('2026-03-02T09:00:00Z');
const min = (n: number) => T0 + n * 60_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const HOUR = 3600;
const terms = (over: Partial<PolicyTerms> = {}) =>
  prepareTerms({
    targets: [
      { metric: 'first_reply', priority: 'urgent', seconds: HOUR, warnBeforeSeconds: 900 },
      { metric: 'first_reply', priority: 'low', seconds: 8 * HOUR },
      { metric: 'next_reply', priority: 'urgent', seconds: 2 * HOUR },
      { metric: 'resolution', priority: 'urgent', seconds: 8 * HOUR, warnBeforeSeconds: HOUR },
      { metric: 'resolution', priority: 'low', seconds: 48 * HOUR },
    ],
    pauseOn: ['pending'],
    calendar: null,
    ...over,
  });

const urgent: CreatedEvent = { type: 'created', at: T0, priority: 'urgent', status: 'open' };

function at(events: ClockEvent[], now: number, created: CreatedEvent = urgent, policy = terms()): Record<string, Record<string, unknown>> {
  const views = targetsAt(foldAll(created, policy, events), now);
  return Object.fromEntries(views.map((v: TargetView) => [v.metric, { ...v, startedAt: iso(v.startedAt), dueAt: iso(v.dueAt), warnAt: iso(v.warnAt), fulfilledAt: iso(v.fulfilledAt), breachedAt: iso(v.breachedAt) }]));
}

describe('first_reply', () => {
  it('runs from creation, warns before its target and is met by the first outbound reply', () => {
    expect(at([], min(10)).first_reply).toMatchObject({ status: 'active', startedAt: iso(T0), dueAt: iso(min(60)), warnAt: iso(min(45)), cycle: 0 });
    expect(at([{ type: 'reply', at: min(30) }], min(90)).first_reply).toMatchObject({ status: 'fulfilled', fulfilledAt: iso(min(30)), dueAt: iso(min(60)), breachedAt: null });
  });

  it('breaches at its due time and stays breached when the reply comes later, with fulfilledAt as well', () => {
    expect(at([], min(61)).first_reply).toMatchObject({ status: 'breached', breachedAt: iso(min(60)), dueAt: iso(min(60)) });
    expect(at([{ type: 'reply', at: min(75) }], min(90)).first_reply).toMatchObject({ status: 'breached', breachedAt: iso(min(60)), fulfilledAt: iso(min(75)) });
  });

  it('a reply exactly at the due time is late', () => {
    expect(at([{ type: 'reply', at: min(60) }], min(61)).first_reply).toMatchObject({ status: 'breached', fulfilledAt: iso(min(60)) });
  });
});

describe('next_reply', () => {
  it('starts at a customer message once no reply is owed, is met by the next reply, and starts again as a new cycle', () => {
    const events: ClockEvent[] = [
      { type: 'customer_message', at: min(5) }, // first_reply still owed: no next_reply
      { type: 'reply', at: min(20) },
      { type: 'customer_message', at: min(30) },
      { type: 'customer_message', at: min(40) }, // already owed: the same cycle
    ];
    expect(at(events, min(50)).next_reply).toMatchObject({ status: 'active', cycle: 1, startedAt: iso(min(30)), dueAt: iso(min(150)) });
    const answered = [...events, { type: 'reply' as const, at: min(60) }, { type: 'customer_message' as const, at: min(70) }];
    expect(at(answered, min(80)).next_reply).toMatchObject({ status: 'active', cycle: 2, startedAt: iso(min(70)) });
  });

  it('does not start on a message to a solved ticket, and waits while the ticket is solved', () => {
    const events: ClockEvent[] = [
      { type: 'reply', at: min(1) },
      { type: 'customer_message', at: min(2) },
      { type: 'status', at: min(10), to: 'solved' },
      { type: 'customer_message', at: min(20) },
    ];
    expect(at(events, min(200)).next_reply).toMatchObject({ status: 'paused', cycle: 1, dueAt: null, pausedSeconds: 190 * 60 });
    expect(at([...events, { type: 'status', at: min(200), to: 'open' }], min(210)).next_reply).toMatchObject({ status: 'active', dueAt: iso(min(200 + 112)) });
  });
});

describe('resolution', () => {
  it('stops while the ticket is pending and resumes where it stood', () => {
    const events: ClockEvent[] = [
      { type: 'status', at: min(60), to: 'pending' },
      { type: 'status', at: min(180), to: 'open' },
    ];
    expect(at(events.slice(0, 1), min(120)).resolution).toMatchObject({ status: 'paused', dueAt: null, warnAt: null, pausedSeconds: 3600 });
    expect(at(events, min(181)).resolution).toMatchObject({ status: 'active', pausedSeconds: 2 * 3600, dueAt: iso(min(8 * 60 + 120)), warnAt: iso(min(7 * 60 + 120)) });
  });

  it('is met when the ticket is solved, and a reopened ticket resumes it instead of starting again', () => {
    const events: ClockEvent[] = [
      { type: 'status', at: min(60), to: 'solved' },
      { type: 'status', at: min(600), to: 'open' },
    ];
    expect(at(events.slice(0, 1), min(100)).resolution).toMatchObject({ status: 'fulfilled', fulfilledAt: iso(min(60)) });
    expect(at(events, min(601)).resolution).toMatchObject({ status: 'active', startedAt: iso(T0), fulfilledAt: null, dueAt: iso(min(600 + 420)), cycle: 0 });
  });

  it('counts a policy\'s own pause statuses: none at all, or escalated', () => {
    const escalated = terms({ pauseOn: ['escalated'] });
    const events: ClockEvent[] = [{ type: 'status', at: min(60), to: 'pending' }];
    expect(at(events, min(120), urgent, escalated).resolution).toMatchObject({ status: 'active', dueAt: iso(min(480)) });
    expect(at([{ type: 'status', at: min(60), to: 'escalated' }], min(120), urgent, escalated).resolution).toMatchObject({ status: 'paused' });
  });
});

describe('changes of priority and policy', () => {
  it('measure from the same starting instants: a low ticket made urgent after three hours has breached a one-hour first reply at once', () => {
    const low: CreatedEvent = { ...urgent, priority: 'low' };
    const made = at([{ type: 'priority', at: min(180), to: 'urgent' }], min(181), low);
    expect(made.first_reply).toMatchObject({ status: 'breached', breachedAt: iso(min(180)), dueAt: iso(min(180)), warnAt: iso(min(180)), priority: 'urgent' });
    // Made urgent after 30 minutes: due 30 minutes later, warned in 15.
    expect(at([{ type: 'priority', at: min(30), to: 'urgent' }], min(31), low).first_reply).toMatchObject({ status: 'active', dueAt: iso(min(60)), warnAt: iso(min(45)) });
  });

  it('a policy change keeps the count and applies the new targets, calendar and pauses from the change on', () => {
    const other = terms({ targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 2 * HOUR }], pauseOn: [] });
    const views = at([{ type: 'policy', at: min(50), terms: other }], min(55));
    expect(views.first_reply).toMatchObject({ status: 'active', dueAt: iso(min(120)), warnAt: null });
    expect(views.resolution).toBeUndefined();
  });

  it('a met clock is settled: a later change does not breach it', () => {
    const low: CreatedEvent = { ...urgent, priority: 'low' };
    expect(at([{ type: 'reply', at: min(90) }, { type: 'priority', at: min(100), to: 'urgent' }], min(101), low).first_reply).toMatchObject({ status: 'fulfilled', breachedAt: null });
  });
});

describe('business time', () => {
  const berlin: BusinessCalendar = { timeZone: 'Europe/Berlin', hours: WEEKDAYS.slice(0, 5).map((day) => ({ day, from: '09:00', to: '17:00' })), holidays: [{ date: '2026-03-09', name: 'Closed' }] };
  const open = terms({ calendar: berlin });

  it('counts only open hours: a ticket of Friday 16:30 (Berlin) with one open hour is due Tuesday 09:30 when Monday is a holiday, and Thursday\'s on Friday', () => {
    const friday = { ...urgent, at: Date.parse('2026-03-06T15:30:00Z') };
    expect(at([], friday.at, friday, open).first_reply).toMatchObject({ dueAt: '2026-03-10T08:30:00.000Z', warnAt: '2026-03-10T08:15:00.000Z' });
    const thursday = { ...urgent, at: Date.parse('2026-03-05T15:30:00Z') };
    expect(at([], thursday.at, thursday, open).first_reply).toMatchObject({ dueAt: '2026-03-06T08:30:00.000Z', warnAt: '2026-03-06T08:15:00.000Z' });
  });

  it('records a breach at the open instant it happened, however late the state is read', () => {
    const thursday = { ...urgent, at: Date.parse('2026-03-05T15:30:00Z') };
    expect(at([], Date.parse('2026-03-07T12:00:00Z'), thursday, open).first_reply).toMatchObject({ status: 'breached', breachedAt: '2026-03-06T08:30:00.000Z' });
  });
});

describe('the stored state', () => {
  it('is small and bounded: the same size after a hundred events as after a few', () => {
    let state = startClocks(urgent, terms());
    const sizes: number[] = [];
    for (let i = 1; i <= 100; i++) {
      state = fold(state, i % 3 === 0 ? { type: 'reply', at: min(i) } : i % 3 === 1 ? { type: 'customer_message', at: min(i) } : { type: 'status', at: min(i), to: i % 2 ? 'pending' : 'open' });
      sizes.push(JSON.stringify(storedState(state)).length);
    }
    expect(Math.max(...sizes)).toBeLessThan(800);
    expect(Math.max(...sizes.slice(50))).toBeLessThanOrEqual(Math.max(...sizes.slice(0, 10)) + 10);
  });

  it('round-trips through JSON and gives the same targets', () => {
    const state = foldAll(urgent, terms(), [{ type: 'reply', at: min(3) }, { type: 'customer_message', at: min(9) }, { type: 'status', at: min(20), to: 'pending' }]);
    const again = withTerms(JSON.parse(JSON.stringify(storedState(state))), terms());
    expect(targetsAt(again, min(500))).toEqual(targetsAt(state, min(500)));
  });

  it('ignores ticket events older than the state (history replayed past them), not a policy change', () => {
    const state = foldAll(urgent, terms(), [{ type: 'reply', at: min(30) }]);
    expect(fold(state, { type: 'customer_message', at: min(10) })).toBe(state);
    expect(fold(state, { type: 'priority', at: min(10), to: 'low' })).toBe(state);
    const longer = terms({ targets: [{ metric: 'first_reply', priority: 'urgent', seconds: 10 }] });
    expect(targetsAt(fold(state, { type: 'policy', at: min(10), terms: longer }), min(31))[0]).toMatchObject({ seconds: 10, status: 'fulfilled' });
  });
});
