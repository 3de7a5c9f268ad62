import { z } from 'zod';
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../graph/index.ts';
import { timestamp, uuid } from '../http/response-fields.ts';
import { PAUSABLE_STATUSES, SLA_METRICS, TARGET_STATUSES } from './clock.ts';
import type { SlaPolicy } from './entity.ts';
import type { QueueItem, TicketSlaView } from './reads.ts';
import { QUEUE_STATUSES } from './schema.ts';

const target = z
  .strictObject({
    metric: z.enum(SLA_METRICS),
    priority: z.enum(TICKET_PRIORITIES),
    seconds: z.int().min(1),
    warnBeforeSeconds: z.int().min(1).optional(),
  })
  .meta({ id: 'SlaPolicyTarget' });

/** A policy as every answer shows it. */
export const publicPolicy = z
  .strictObject({
    id: uuid(),
    name: z.string(),
    description: z.string().nullable(),
    isActive: z.boolean(),
    position: z.int().min(0),
    match: z.record(z.string(), z.unknown()).nullable().meta({ description: 'A condition of the workflow language over ticket.*; null: every ticket.' }),
    calendarId: uuid().nullable(),
    targets: z.array(target),
    pauseOn: z.array(z.enum(PAUSABLE_STATUSES)),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'SlaPolicy' });
export type PublicPolicy = z.output<typeof publicPolicy>;

export const policyEnvelope = z.strictObject({ policy: publicPolicy });
export const policyList = z.strictObject({ policies: z.array(publicPolicy).meta({ description: 'In the order they are matched: position, then oldest first.' }) });

export function presentPolicy(p: SlaPolicy): PublicPolicy {
  return {
    id: p.id,
    name: p.name,
    description: p.description ?? null,
    isActive: p.isActive,
    position: p.position,
    match: (p.match as Record<string, unknown> | null) ?? null,
    calendarId: p.calendarId ?? null,
    targets: p.targets.map((t) => ({ metric: t.metric, priority: t.priority, seconds: t.seconds, ...(t.warnBeforeSeconds ? { warnBeforeSeconds: t.warnBeforeSeconds } : {}) })),
    pauseOn: p.pauseOn.filter((s): s is (typeof PAUSABLE_STATUSES)[number] => (PAUSABLE_STATUSES as readonly string[]).includes(s)),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

const instant = () => timestamp().nullable();

/** A target of a ticket, where it stands at the moment of the answer. */
export const publicTarget = z
  .strictObject({
    metric: z.enum(SLA_METRICS),
    status: z.enum(TARGET_STATUSES).meta({ description: 'active: counting; paused: standing still (resolution in a pauseOn status, reply clocks while the ticket is solved or closed); fulfilled: met in time; breached: past due, also when met since (fulfilledAt set as well).' }),
    startedAt: timestamp(),
    dueAt: instant().meta({ description: 'When it is (or was) due; null while paused.' }),
    warnAt: instant().meta({ description: 'When sla_warning fires (or fired); null without warnBeforeSeconds or while paused.' }),
    pausedSeconds: z.int().min(0).meta({ description: 'How long it stood still while owed.' }),
    fulfilledAt: instant(),
    breachedAt: instant(),
  })
  .meta({ id: 'SlaTargetState' });

export const ticketSlaEnvelope = z.strictObject({
  sla: z
    .strictObject({ policyId: uuid(), policyName: z.string(), targets: z.array(publicTarget).meta({ description: 'The targets of the policy for the ticket\'s priority, first_reply, next_reply (its latest cycle, once started) and resolution.' }) })
    .nullable()
    .meta({ id: 'TicketSla', description: 'null when no policy governs the ticket.' }),
});

export function presentTicketSla(sla: TicketSlaView): z.output<typeof ticketSlaEnvelope> {
  if (sla === null) return { sla: null };
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    sla: {
      policyId: sla.policyId,
      policyName: sla.policyName,
      targets: sla.targets.map((t) => ({
        metric: t.metric,
        status: t.status,
        startedAt: new Date(t.startedAt).toISOString(),
        dueAt: iso(t.dueAt),
        warnAt: iso(t.warnAt),
        pausedSeconds: t.pausedSeconds,
        fulfilledAt: iso(t.fulfilledAt),
        breachedAt: iso(t.breachedAt),
      })),
    },
  };
}

export const queueEnvelope = z.strictObject({
  data: z
    .array(
      z
        .strictObject({
          ticketId: uuid(),
          subject: z.string(),
          priority: z.enum(TICKET_PRIORITIES),
          status: z.enum(TICKET_STATUSES).meta({ description: 'The ticket\'s status.' }),
          metric: z.enum(SLA_METRICS),
          dueAt: timestamp(),
          targetStatus: z.enum(QUEUE_STATUSES),
        })
        .meta({ id: 'SlaQueueItem' }),
    )
    .meta({ description: 'Nearest dueAt first.' }),
});

export function presentQueue(items: QueueItem[]): z.output<typeof queueEnvelope> {
  return { data: items.map((i) => ({ ticketId: i.ticketId, subject: i.subject, priority: i.priority, status: i.status, metric: i.metric, dueAt: i.dueAt.toISOString(), targetStatus: i.targetStatus })) };
}

export const backtestAnswer = z
  .strictObject({
    tickets: z.int().min(0).meta({ description: 'Tickets created in those days that the policy would govern (its match, on each ticket as it is now).' }),
    targets: z
      .array(
        z
          .strictObject({
            metric: z.enum(SLA_METRICS),
            priority: z.enum(TICKET_PRIORITIES),
            met: z.int().min(0).meta({ description: 'Met in time.' }),
            breached: z.int().min(0).meta({ description: 'Breached: met late, or past due and not met.' }),
            running: z.int().min(0).meta({ description: 'Not decided yet: counting, or paused.' }),
            attainment: z.number().min(0).max(1).nullable().meta({ description: 'met / (met + breached), four decimals; null while none is decided.' }),
          })
          .meta({ id: 'SlaBacktestTarget' }),
      )
      .meta({ description: 'One per target of the policy, by metric then priority.' }),
  })
  .meta({ id: 'SlaBacktest' });
