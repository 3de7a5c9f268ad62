import type { SlaMetric, TargetStatus } from './clock.ts';

/** When the timers of a ticket fire: a target's warning or breach, in its cycle. */
export type FireInstant = { metric: SlaMetric; cycle: number; kind: 'warning' | 'breach'; at: string };

/** A target as the timers read it (a row of sla_targets, or one about to be written). */
export type TimedTarget = {
  metric: SlaMetric;
  cycle: number;
  status: TargetStatus;
  dueAt: Date | null;
  warnAt: Date | null;
  breachedAt: Date | null;
  warningSentAt: Date | null;
  breachSentAt: Date | null;
};

/**
 * The instants a ticket's timers wait for: each target's warning while it counts and is not yet
 * warned of (also when its instant has passed: a warning Temporal could not fire then fires
 * late, never not at all), and its breach until the sla_breached event is written (a target
 * breached and met since still gets its event). Nearest first.
 */
export function fireInstants(targets: readonly TimedTarget[]): FireInstant[] {
  const instants: FireInstant[] = [];
  for (const t of targets) {
    if (t.status === 'active' && t.warnAt && !t.warningSentAt && (!t.dueAt || t.warnAt < t.dueAt)) {
      instants.push({ metric: t.metric, cycle: t.cycle, kind: 'warning', at: t.warnAt.toISOString() });
    }
    const breach = t.status === 'breached' ? t.breachedAt : t.status === 'active' ? t.dueAt : null;
    if (breach && !t.breachSentAt) instants.push({ metric: t.metric, cycle: t.cycle, kind: 'breach', at: breach.toISOString() });
  }
  return instants.sort((a, b) => a.at.localeCompare(b.at) || (a.kind === b.kind ? a.metric.localeCompare(b.metric) : a.kind === 'warning' ? -1 : 1));
}

/** The same instants, as text to compare. */
export const instantsKey = (instants: readonly FireInstant[]) => instants.map((i) => `${i.at} ${i.kind} ${i.metric} ${i.cycle}`).join('\n');
