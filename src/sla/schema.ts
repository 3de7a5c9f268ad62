import { z } from 'zod';
import { TICKET_PRIORITIES, ticketConditionIssues, type ConditionData } from '../graph/index.ts';
import { nullableText, oneOf, queryInteger, queryParam, text } from '../http/validate.ts';
import { parseIsoInstant } from '../graph/index.ts';
import { PAUSABLE_STATUSES, SLA_METRICS, type PolicyTarget } from './clock.ts';

/** The longest target: a year, like the waits of workflows. */
export const MAX_TARGET_SECONDS = 31_536_000;
export const MAX_POSITION = 1_000_000;

const name = text({ min: 1, max: 200, nonBlank: true, label: 'name' });
const description = nullableText({ max: 2_000, label: 'description' });
const isActive = z.boolean({ error: () => 'isActive must be true or false.' });
const position = z
  .int({ error: () => `position must be an integer from 0 to ${MAX_POSITION}.` })
  .min(0, `position must be an integer from 0 to ${MAX_POSITION}.`)
  .max(MAX_POSITION, `position must be an integer from 0 to ${MAX_POSITION}.`)
  .meta({ description: 'Policies are tried in this order (then oldest first); the first whose match holds governs a ticket. Default: after the last.' });

const calendarId = z
  .string({ error: () => 'calendarId must be the id of a calendar of this workspace, or null.' })
  .nullable()
  .meta({ format: 'uuid', description: 'A calendar of the workspace: targets count its open time. null (default): calendar time.' });

/** A condition of the workflow language over `ticket.*`, checked by src/graph's own rules. */
const match = z
  .unknown()
  .check((ctx) => {
    if (ctx.value === null || ctx.value === undefined) return;
    for (const issue of ticketConditionIssues(ctx.value, 'match')) {
      // src/graph names paths from the root it was given (`match.conditions[0].field`); zod's path is relative to the field.
      ctx.issues.push({ code: 'custom', input: ctx.value, message: issue.message, path: issue.path === 'match' ? [] : [issue.path.slice('match.'.length)] });
    }
  })
  .transform((v) => (v ?? null) as ConditionData | null)
  .meta({
    type: ['object', 'null'],
    description:
      'One condition `{ field, operator, value }` or a group `{ match: "all"|"any", conditions: [...] }` of the workflow language over ticket.* fields, e.g. `{ "field": "ticket.tags", "operator": "contains", "value": "vip" }`. Absent or null: every ticket.',
  });

const seconds = (label: string, min: number) =>
  z
    .int({ error: () => `${label} must be a whole number of seconds from ${min} to ${MAX_TARGET_SECONDS}.` })
    .min(min, `${label} must be a whole number of seconds from ${min} to ${MAX_TARGET_SECONDS}.`)
    .max(MAX_TARGET_SECONDS, `${label} must be a whole number of seconds from ${min} to ${MAX_TARGET_SECONDS}.`);

const target = z
  .strictObject(
    {
      metric: oneOf(SLA_METRICS, 'metric'),
      priority: oneOf(TICKET_PRIORITIES, 'priority'),
      seconds: seconds('seconds', 1).meta({ description: 'Counted time (open time with a calendar) from the clock\'s start to its due time.' }),
      warnBeforeSeconds: seconds('warnBeforeSeconds', 1).optional().meta({ description: 'sla_warning fires this long (counted time) before the due time; less than seconds.' }),
    },
    { error: () => 'each target must be an object { metric, priority, seconds, warnBeforeSeconds? }.' },
  )
  .superRefine((t, ctx) => {
    if (t.warnBeforeSeconds !== undefined && t.warnBeforeSeconds >= t.seconds) {
      ctx.addIssue({ code: 'custom', path: ['warnBeforeSeconds'], message: `warnBeforeSeconds must be less than seconds (${t.seconds}).` });
    }
  })
  .meta({ id: 'SlaTarget' });

const MAX_TARGETS = SLA_METRICS.length * TICKET_PRIORITIES.length;
const targets = z
  .array(target, { error: () => 'targets must be a list of { metric, priority, seconds, warnBeforeSeconds? }.' })
  .max(MAX_TARGETS, `targets may list at most ${MAX_TARGETS} targets: one per metric and priority.`)
  .superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    list.forEach((t, index) => {
      if (typeof t?.metric !== 'string' || typeof t?.priority !== 'string') return;
      const key = `${t.metric} ${t.priority}`;
      const first = seen.get(key);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: [index], message: `a second ${t.metric} target for ${t.priority} tickets (also targets[${first}]): one target per metric and priority.` });
      else seen.set(key, index);
    });
  })
  .transform((list) => list.map((t): PolicyTarget => ({ metric: t.metric, priority: t.priority, seconds: t.seconds, ...(t.warnBeforeSeconds !== undefined ? { warnBeforeSeconds: t.warnBeforeSeconds } : {}) })))
  .meta({ description: `Up to ${MAX_TARGETS} targets, at most one per metric and priority.` });

const pauseOn = z
  .array(oneOf(PAUSABLE_STATUSES, 'each pauseOn status'), { error: () => `pauseOn must be a list of ${PAUSABLE_STATUSES.join(', ')}.` })
  .superRefine((list, ctx) => {
    list.forEach((s, index) => {
      if (list.indexOf(s) !== index) ctx.addIssue({ code: 'custom', path: [index], message: `${s} is listed twice.` });
    });
  })
  .meta({ description: 'The statuses during which resolution stops counting. Default: ["pending"].' });

export const createPolicyBody = z.strictObject({
  name,
  description: description.optional(),
  isActive: isActive.optional().meta({ description: 'Default: true.' }),
  position: position.optional(),
  match: match.optional(),
  calendarId: calendarId.optional(),
  targets,
  pauseOn: pauseOn.optional(),
});
export type CreatePolicyInput = z.infer<typeof createPolicyBody>;

export const updatePolicyBody = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    isActive: isActive.optional(),
    position: position.optional(),
    match: match.optional(),
    calendarId: calendarId.optional(),
    targets: targets.optional(),
    pauseOn: pauseOn.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Give at least one of name, description, isActive, position, match, calendarId, targets, pauseOn.' });
export type UpdatePolicyInput = z.infer<typeof updatePolicyBody>;

export const MAX_BACKTEST_DAYS = 90;

export const backtestPolicyBody = z.strictObject({
  policy: createPolicyBody.meta({ description: 'A policy body as POST /api/sla-policies takes it (saved or not); isActive and position do not matter here.' }),
  days: z
    .int({ error: () => `days must be an integer from 1 to ${MAX_BACKTEST_DAYS}.` })
    .min(1, `days must be an integer from 1 to ${MAX_BACKTEST_DAYS}.`)
    .max(MAX_BACKTEST_DAYS, `days must be an integer from 1 to ${MAX_BACKTEST_DAYS}.`)
    .meta({ description: 'The tickets created in the last this many days.' }),
});
export type BacktestPolicyInput = z.infer<typeof backtestPolicyBody>;

export const QUEUE_STATUSES = ['breached', 'warning', 'active'] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];
export const MAX_QUEUE_LIMIT = 200;

export const queueQuery = z.object({
  status: queryParam('status')
    .pipe(oneOf(QUEUE_STATUSES, 'status'))
    .optional()
    .meta({ description: 'breached: past due and not met; warning: counting, past its warning and not yet due; active: counting and not yet due (warned or not). Default: all three.' }),
  metric: queryParam('metric').pipe(oneOf(SLA_METRICS, 'metric')).optional(),
  limit: queryInteger('limit', { min: 1, max: MAX_QUEUE_LIMIT }).optional().meta({ description: 'Default 50.' }),
  before: queryParam('before')
    .transform((s, ctx) => {
      const at = parseIsoInstant(s, { requireOffsetWithTime: true, storable: true });
      if (at === undefined) {
        ctx.issues.push({ code: 'custom', input: s, message: 'before must be an ISO 8601 date or date-time with Z or an offset.' });
        return z.NEVER;
      }
      return new Date(Math.floor(at));
    })
    .optional()
    .meta({ type: 'string', format: 'date-time', description: 'Only targets due before this instant ("what breaks before 17:00").' }),
});
export type QueueQuery = z.infer<typeof queueQuery>;
