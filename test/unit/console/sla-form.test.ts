// The SLA page's form, the API's policy, the order of the policies and the time left on a clock
// (console/src/model/sla-form.ts), held to the server's own schema.
import { describe, expect, it } from 'vitest';
import {
  cellKey,
  newSlaForm,
  nextClockChange,
  placeSlaIssues,
  reorderPatches,
  shortDuration,
  slaForm,
  slaInput,
  timeLeft,
  toDuration,
  toSeconds,
  type SlaForm,
} from '../../../console/src/model/sla-form.ts';
import { backtestPolicyBody, createPolicyBody } from '../../../src/sla/schema.ts';
import { toDetails } from '../../../src/http/validate.ts';

/** The problems the server reports for a body, as it reports them (lists as `[n]`). */
function serverDetails(body: unknown, schema: typeof createPolicyBody | typeof backtestPolicyBody = createPolicyBody) {
  const result = schema.safeParse(body);
  return result.success ? [] : toDetails(result.error, '', 'indexed');
}

function withCell(form: SlaForm, key: ReturnType<typeof cellKey>, due: string, dueUnit: 'minutes' | 'hours' | 'days', warn = '', warnUnit: 'minutes' | 'hours' = 'minutes'): SlaForm {
  return { ...form, cells: { ...form.cells, [key]: { due: { amount: due, unit: dueUnit }, warn: { amount: warn, unit: warnUnit } } } };
}

const URGENT_HOUR = (): SlaForm => withCell({ ...newSlaForm(), name: 'Urgent within the hour' }, 'first_reply.urgent', '1', 'hours', '15');

describe('the SLA form', () => {
  it('starts empty, pausing resolution while pending, for every ticket, active', () => {
    const form = newSlaForm();
    expect(slaInput({ ...form, name: 'Desk' })).toEqual({ name: 'Desk', description: null, isActive: true, match: null, calendarId: null, pauseOn: ['pending'], targets: [] });
    expect(serverDetails(slaInput({ ...form, name: 'Desk' }))).toEqual([]);
  });

  it('sends "urgent first reply in 1 hour, warn 15 minutes before" as seconds the server takes', () => {
    const input = slaInput(URGENT_HOUR());
    expect(input.targets).toEqual([{ metric: 'first_reply', priority: 'urgent', seconds: 3600, warnBeforeSeconds: 900 }]);
    expect(serverDetails(input)).toEqual([]);
  });

  it('shows saved seconds in the largest unit that holds them whole, and sends them back unchanged', () => {
    expect(toDuration(86_400 * 2, 'hours')).toEqual({ amount: '2', unit: 'days' });
    expect(toDuration(5400, 'hours')).toEqual({ amount: '90', unit: 'minutes' });
    expect(toDuration(45, 'hours')).toEqual({ amount: '45', unit: 'seconds' });
    expect(toDuration(undefined, 'minutes')).toEqual({ amount: '', unit: 'minutes' });
    const policy = {
      name: 'Standard',
      description: 'The desk',
      isActive: false,
      match: { field: 'ticket.tags', operator: 'contains', value: 'vip' },
      calendarId: 'cal-1',
      pauseOn: ['pending' as const, 'escalated' as const],
      targets: [
        { metric: 'resolution' as const, priority: 'low' as const, seconds: 3 * 86_400 },
        { metric: 'first_reply' as const, priority: 'urgent' as const, seconds: 3600, warnBeforeSeconds: 900 },
        { metric: 'next_reply' as const, priority: 'medium' as const, seconds: 5400 },
      ],
    };
    const form = slaForm(policy);
    expect(form.cells['resolution.low'].due).toEqual({ amount: '3', unit: 'days' });
    expect(form.cells['first_reply.urgent'].warn).toEqual({ amount: '15', unit: 'minutes' });
    const back = slaInput(form);
    expect(back).toEqual({ ...policy, targets: [policy.targets[1], policy.targets[2], policy.targets[0]] });
  });

  it('reads decimals and commas, and sends text that is no number as typed, for the server to name', () => {
    expect(toSeconds({ amount: '1.5', unit: 'hours' })).toBe(5400);
    expect(toSeconds({ amount: '2,5', unit: 'minutes' })).toBe(150);
    expect(toSeconds({ amount: ' ', unit: 'minutes' })).toBeUndefined();
    const form = withCell(URGENT_HOUR(), 'resolution.high', 'soon', 'hours');
    const input = slaInput(form);
    expect(input.targets[1]).toEqual({ metric: 'resolution', priority: 'high', seconds: 'soon' });
    expect(serverDetails(input).map((d) => d.path)).toEqual(['targets[1].seconds']);
  });

  it('puts the server\'s objections on the cell and input they name, of a save or of a backtest', () => {
    // first_reply.urgent is sent first, resolution.high second: the warning of the second is wrong.
    const form = withCell({ ...URGENT_HOUR(), name: '' }, 'resolution.high', '1', 'hours', '2', 'hours');
    const saved = serverDetails({ ...slaInput(form), pauseOn: ['pending', 'solved'] });
    const placed = placeSlaIssues(saved, form);
    expect([...placed.fields.keys()].sort()).toEqual(['name', 'pauseOn', 'resolution.high.warnBeforeSeconds']);
    expect(placed.fields.get('resolution.high.warnBeforeSeconds')![0]).toContain('less than seconds');
    expect(placed.general).toEqual([]);

    const tried = placeSlaIssues(serverDetails({ policy: slaInput(form), days: 91 }, backtestPolicyBody), form);
    expect([...tried.fields.keys()].sort()).toEqual(['days', 'name', 'resolution.high.warnBeforeSeconds']);
  });

  it('gives the condition editor the problems inside match, relative to it', () => {
    const form: SlaForm = { ...URGENT_HOUR(), match: { match: 'all', conditions: [{ field: 'ticket.tags', operator: 'contains', value: 'vip' }, { field: 'ticket.status', operator: 'changed' }] } };
    const placed = placeSlaIssues(serverDetails(slaInput(form)), form);
    expect(placed.match.map((m) => m.field)).toEqual(['conditions[1].operator']);
    expect(placed.fields.size).toBe(0);
  });

  it('keeps what no input shows for the banner', () => {
    const placed = placeSlaIssues([{ path: 'targets[7]', message: 'gone' }, { path: 'color', message: 'not a field' }], URGENT_HOUR());
    expect(placed.general.map((g) => g.path)).toEqual(['targets[7]', 'color']);
  });
});

describe('reordering the policies', () => {
  const list = (...positions: number[]) => positions.map((position, i) => ({ id: `p${i}`, position }));
  /** The order the server lists them in after the patches (position, then age: the index here). */
  const after = (policies: ReturnType<typeof list>, patches: Array<{ id: string; position: number }>) =>
    policies
      .map((p, age) => ({ ...p, age, position: patches.find((x) => x.id === p.id)?.position ?? p.position }))
      .sort((a, b) => a.position - b.position || a.age - b.age)
      .map((p) => p.id);

  it('swaps two neighbours with positions of their own: two changes', () => {
    const policies = list(0, 5, 9);
    const patches = reorderPatches(policies, 2, 1);
    expect(patches).toEqual([{ id: 'p2', position: 5 }, { id: 'p1', position: 9 }]);
    expect(after(policies, patches)).toEqual(['p0', 'p2', 'p1']);
  });

  it('numbers them again when positions are shared, changing only those that move', () => {
    const policies = list(0, 0, 0);
    const patches = reorderPatches(policies, 2, 0);
    expect(after(policies, patches)).toEqual(['p2', 'p0', 'p1']);
    // p2 is at 0 already: the two it passes move back.
    expect(patches).toEqual([{ id: 'p0', position: 10 }, { id: 'p1', position: 20 }]);
  });

  it('moves any distance and does nothing out of range', () => {
    const policies = list(1, 2, 2, 7);
    expect(after(policies, reorderPatches(policies, 0, 3))).toEqual(['p1', 'p2', 'p3', 'p0']);
    expect(after(policies, reorderPatches(policies, 1, 2))).toEqual(['p0', 'p2', 'p1', 'p3']);
    expect(reorderPatches(policies, 0, -1)).toEqual([]);
    expect(reorderPatches(policies, 3, 4)).toEqual([]);
  });
});

describe('time left on a clock', () => {
  const now = Date.parse('2026-03-09T08:00:00Z');
  it('says the time left in the two largest units, or how long overdue', () => {
    expect(timeLeft('2026-03-09T09:05:00Z', now)).toEqual({ text: '1 h 5 min left', overdue: false });
    expect(timeLeft('2026-03-09T07:40:00Z', now)).toEqual({ text: '20 min overdue', overdue: true });
    expect(timeLeft('2026-03-12T12:30:00Z', now).text).toBe('3 d 4 h left');
    expect(timeLeft('2026-03-09T08:00:00Z', now)).toEqual({ text: '0 s overdue', overdue: true });
    expect(shortDuration(45_000)).toBe('45 s');
    expect(shortDuration(2 * 3600_000)).toBe('2 h');
  });

  it('knows when the clocks next change of themselves: the nearest due time ahead of a running target', () => {
    const target = (metric: 'first_reply' | 'next_reply' | 'resolution', status: 'active' | 'paused' | 'fulfilled' | 'breached', dueAt: string | null) =>
      ({ metric, status, dueAt, startedAt: '2026-03-09T07:00:00Z', warnAt: null, pausedSeconds: 0, fulfilledAt: null, breachedAt: null }) as const;
    const sla = (...targets: ReturnType<typeof target>[]) => ({ policyId: 'p', policyName: 'P', targets });
    expect(nextClockChange(sla(target('first_reply', 'active', '2026-03-09T09:00:00Z'), target('resolution', 'active', '2026-03-09T08:30:00Z')), now)).toBe(Date.parse('2026-03-09T08:30:00Z'));
    // Past due, paused, met or already breached: nothing ahead.
    expect(nextClockChange(sla(target('first_reply', 'active', '2026-03-09T07:59:00Z'), target('resolution', 'paused', null), target('next_reply', 'breached', '2026-03-09T09:00:00Z')), now)).toBeNull();
    expect(nextClockChange(null, now)).toBeNull();
    expect(nextClockChange(undefined, now)).toBeNull();
  });
});
