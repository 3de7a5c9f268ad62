import { z } from 'zod';
import { TICKET_PRIORITIES } from '../graph/index.ts';
import { timestamp, uuid } from '../http/response-fields.ts';
import { PAUSABLE_STATUSES, SLA_METRICS } from './clock.ts';
import type { SlaPolicy } from './entity.ts';

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
