// An SLA policy as the SLA page edits it, and back: its targets as a table of priorities ×
// metrics whose cells are durations in friendly units (90 minutes, 8 hours, 2 days) with a
// warning before each, and the server's validation problems put on the cell and input they
// name (`targets[2].warnBeforeSeconds` is the third target of the list that was sent). Also the
// reordering of the policies (their `position`) and the time left on a clock. Pure; unit-tested
// in test/unit/console.

import type { TicketSla } from '../api-types.ts';
import type { Issue, FieldIssue } from './issues.ts';

export const SLA_METRICS = ['first_reply', 'next_reply', 'resolution'] as const;
export type SlaMetric = (typeof SLA_METRICS)[number];
/** Most pressing first, as the table shows them. */
export const SLA_PRIORITIES = ['urgent', 'high', 'medium', 'low'] as const;
export type SlaPriority = (typeof SLA_PRIORITIES)[number];
export const PAUSABLE_STATUSES = ['open', 'pending', 'escalated'] as const;
export type PausableStatus = (typeof PAUSABLE_STATUSES)[number];

export const METRIC_NAMES: Record<SlaMetric, string> = { first_reply: 'First reply', next_reply: 'Next reply', resolution: 'Resolution' };

export type SlaTarget = { metric: SlaMetric; priority: SlaPriority; seconds: number; warnBeforeSeconds?: number };

/** A policy as the API shows it (docs/sla.md, "Policies"). */
export type SlaPolicy = {
  id: string;
  name: string;
  description: string | null;
  isActive: boolean;
  position: number;
  match: Record<string, unknown> | null;
  calendarId: string | null;
  targets: SlaTarget[];
  pauseOn: PausableStatus[];
  createdAt: string;
  updatedAt: string;
};

/** What the API is sent to create a policy (or try one); a number typed wrong is sent as typed, for the server to name. */
export type SlaPolicyInput = {
  name: string;
  description: string | null;
  isActive: boolean;
  match: Record<string, unknown> | null;
  calendarId: string | null;
  targets: Array<{ metric: SlaMetric; priority: SlaPriority; seconds: unknown; warnBeforeSeconds?: unknown }>;
  pauseOn: string[];
};

export const UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const;
export type Unit = keyof typeof UNITS;

/** A duration as typed: an amount (empty: none) in a unit. */
export type Duration = { amount: string; unit: Unit };
/** A cell of the table: no target while `due` is empty. */
export type TargetCell = { due: Duration; warn: Duration };

export type CellKey = `${SlaMetric}.${SlaPriority}`;
export const cellKey = (metric: SlaMetric, priority: SlaPriority): CellKey => `${metric}.${priority}`;

export type SlaForm = {
  name: string;
  description: string;
  isActive: boolean;
  /** '' : calendar time. */
  calendarId: string;
  pauseOn: PausableStatus[];
  /** null: every ticket. */
  match: Record<string, unknown> | null;
  cells: Record<CellKey, TargetCell>;
};

const emptyCell = (): TargetCell => ({ due: { amount: '', unit: 'hours' }, warn: { amount: '', unit: 'minutes' } });

function emptyCells(): Record<CellKey, TargetCell> {
  const cells = {} as Record<CellKey, TargetCell>;
  for (const m of SLA_METRICS) for (const p of SLA_PRIORITIES) cells[cellKey(m, p)] = emptyCell();
  return cells;
}

export function newSlaForm(): SlaForm {
  return { name: '', description: '', isActive: true, calendarId: '', pauseOn: ['pending'], match: null, cells: emptyCells() };
}

/** Seconds in the largest unit that holds them whole: 3600 → 1 hours, 5400 → 90 minutes, 30 → 30 seconds. */
export function toDuration(seconds: number | undefined, fallback: Unit): Duration {
  if (seconds === undefined) return { amount: '', unit: fallback };
  for (const unit of ['days', 'hours', 'minutes'] as const) {
    if (seconds % UNITS[unit] === 0) return { amount: String(seconds / UNITS[unit]), unit };
  }
  return { amount: String(seconds), unit: 'seconds' };
}

/** The seconds a duration says; the text as typed when it is not a number (the server names it then); undefined when empty. */
export function toSeconds(d: Duration): unknown {
  const text = d.amount.trim();
  if (text === '') return undefined;
  const n = Number(text.replace(',', '.'));
  return Number.isFinite(n) ? Math.round(n * UNITS[d.unit]) : text;
}

export function slaForm(policy: Pick<SlaPolicy, 'name' | 'description' | 'isActive' | 'match' | 'calendarId' | 'targets' | 'pauseOn'>): SlaForm {
  const cells = emptyCells();
  for (const t of policy.targets) {
    const key = cellKey(t.metric, t.priority);
    if (cells[key]) cells[key] = { due: toDuration(t.seconds, 'hours'), warn: toDuration(t.warnBeforeSeconds, 'minutes') };
  }
  return {
    name: policy.name,
    description: policy.description ?? '',
    isActive: policy.isActive,
    calendarId: policy.calendarId ?? '',
    pauseOn: [...policy.pauseOn],
    match: policy.match,
    cells,
  };
}

/** The cells that hold a target, in the order slaInput sends them: metric by metric, most pressing priority first. */
export function filledCells(form: SlaForm): CellKey[] {
  return SLA_METRICS.flatMap((m) => SLA_PRIORITIES.map((p) => cellKey(m, p))).filter((k) => form.cells[k].due.amount.trim() !== '');
}

export function slaInput(form: SlaForm): SlaPolicyInput {
  return {
    name: form.name,
    description: form.description.trim() === '' ? null : form.description,
    isActive: form.isActive,
    match: form.match,
    calendarId: form.calendarId === '' ? null : form.calendarId,
    pauseOn: PAUSABLE_STATUSES.filter((s) => form.pauseOn.includes(s)),
    targets: filledCells(form).map((key) => {
      const [metric, priority] = key.split('.') as [SlaMetric, SlaPriority];
      const warn = toSeconds(form.cells[key].warn);
      return { metric, priority, seconds: toSeconds(form.cells[key].due), ...(warn !== undefined ? { warnBeforeSeconds: warn } : {}) };
    }),
  };
}

export type SlaIssues = {
  /** By input: `name`, `description`, `calendarId`, `pauseOn`, `targets`, `first_reply.urgent` (a cell), `first_reply.urgent.seconds`, `first_reply.urgent.warnBeforeSeconds`. */
  fields: Map<string, string[]>;
  /** For the condition editor: paths inside `match` (`field`, `conditions[1].value`; '' the match as a whole). */
  match: FieldIssue[];
  /** What no input shows. */
  general: Issue[];
};

const TARGET_PATH = /^targets\[(\d+)\](?:\.(\w+))?$/;

/**
 * The server's `{ path, message }` problems of a save of `form` (or of a backtest of it, whose
 * paths start with `policy.`), by the input they are about.
 */
export function placeSlaIssues(details: Issue[], form: SlaForm): SlaIssues {
  const fields = new Map<string, string[]>();
  const match: FieldIssue[] = [];
  const general: Issue[] = [];
  const add = (key: string, message: string) => fields.set(key, [...(fields.get(key) ?? []), message]);
  const sent = filledCells(form);
  for (const issue of details) {
    const path = issue.path.replace(/^policy\./, '');
    const target = TARGET_PATH.exec(path);
    if (['name', 'description', 'calendarId', 'targets', 'days', 'isActive'].includes(path)) add(path, issue.message);
    else if (path === 'pauseOn' || /^pauseOn\[\d+\]$/.test(path)) add('pauseOn', issue.message);
    else if (path === 'match' || path.startsWith('match.')) match.push({ field: path.slice('match.'.length), message: issue.message });
    else if (target && sent[Number(target[1])]) {
      const leaf = target[2];
      const cell = sent[Number(target[1])];
      add(leaf === 'seconds' || leaf === 'warnBeforeSeconds' ? `${cell}.${leaf}` : cell, issue.message);
    } else general.push(issue);
  }
  return { fields, match, general };
}

/** What to PATCH (`position`s) so that the policy at `from` goes to `to`, keeping the others in order. */
export function reorderPatches(policies: Array<Pick<SlaPolicy, 'id' | 'position'>>, from: number, to: number): Array<{ id: string; position: number }> {
  if (from === to || from < 0 || to < 0 || from >= policies.length || to >= policies.length) return [];
  const a = policies[from];
  const b = policies[to];
  const shared = (p: number) => policies.filter((x) => x.position === p).length > 1;
  // Neighbours with positions of their own: swapping the two is enough.
  if (Math.abs(from - to) === 1 && a.position !== b.position && !shared(a.position) && !shared(b.position)) {
    return [
      { id: a.id, position: b.position },
      { id: b.id, position: a.position },
    ];
  }
  // Else numbered again, 10 apart (room to insert), changing only the ones that move.
  const order = [...policies];
  order.splice(to, 0, ...order.splice(from, 1));
  return order.map((p, i) => ({ id: p.id, position: i * 10 })).filter((p, i) => order[i].position !== p.position);
}

/** `2 h 5 min`, `3 d 4 h`, `45 s`: the two largest units, for time left or overdue. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.round(Math.abs(ms) / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = d ? [`${d} d`, h && `${h} h`] : h ? [`${h} h`, m && `${m} min`] : m ? [`${m} min`] : [`${s} s`];
  return parts.filter(Boolean).join(' ');
}

/**
 * When a ticket's clocks next change of themselves, as the server will say: the nearest due
 * time still ahead of `now` of a target that runs (active turns breached then), in ms since the
 * epoch, or null. The ticket's page reads them again just after it.
 */
export function nextClockChange(sla: TicketSla | undefined, now: number): number | null {
  const ahead = (sla?.targets ?? []).flatMap((t) => (t.status === 'active' && t.dueAt && Date.parse(t.dueAt) > now ? [Date.parse(t.dueAt)] : []));
  return ahead.length > 0 ? Math.min(...ahead) : null;
}

/** How a clock due at `dueAt` stands at `now`: `1 h 5 min left` or `20 min overdue`. */
export function timeLeft(dueAt: string, now: number): { text: string; overdue: boolean } {
  const left = Date.parse(dueAt) - now;
  return left > 0 ? { text: `${shortDuration(left)} left`, overdue: false } : { text: `${shortDuration(left)} overdue`, overdue: true };
}
