import { z } from 'zod';
import { CHANGEABLE_TICKET_FIELDS, parseIsoInstant } from '../graph/index.ts';
import { jsonRecord, text } from '../http/validate.ts';
import { createWorkflowBody } from '../workflows/schema.ts';

const change = z
  .strictObject({ from: z.unknown(), to: z.unknown() }, { error: () => 'each change must be an object { from, to }.' })
  .meta({ description: 'The value before and after.' });

/** An ISO 8601 date or date-time with Z or an offset, as epoch milliseconds. */
const instant = (label: string) =>
  z
    .string({ error: () => `${label} must be an ISO 8601 date or date-time with Z or an offset.` })
    .transform((s, ctx) => {
      const at = parseIsoInstant(s, { requireOffsetWithTime: true, storable: true });
      if (at === undefined) {
        ctx.issues.push({ code: 'custom', input: s, message: `${label} must be an ISO 8601 date or date-time with Z or an offset.` });
        return z.NEVER;
      }
      return new Date(Math.floor(at));
    })
    .meta({ type: 'string', format: 'date-time' });

/** What the trigger's event would carry, and the choices a real run would leave to the world. */
const eventDetails = {
  ticketId: z.string({ error: () => 'ticketId must be a string.' }).optional().meta({ description: 'A ticket of the workspace: the run sees it as it is now (404 otherwise).' }),
  data: jsonRecord('data must be a JSON object.').optional().meta({ type: 'object', description: 'The `data` of the context (manual, scheduled and webhook runs get `{}` by default).' }),
  changes: z
    .partialRecord(z.enum(CHANGEABLE_TICKET_FIELDS, { error: () => `changes may only name ${CHANGEABLE_TICKET_FIELDS.join(', ')}.` }), change, {
      error: () => 'changes must be an object like { "status": { "from": "open", "to": "pending" } }.',
    })
    .optional()
    .meta({ description: 'For ticket_updated: the fields that changed, `{ "status": { "from": "open", "to": "pending" } }`.' }),
  message: jsonRecord('message must be a JSON object.').optional().meta({ type: 'object', description: 'For message_received: the customer\'s message (`body`, `senderEmail`, …).' }),
  tag: text({ min: 1, max: 100, label: 'tag' }).optional().meta({ description: 'For tag_added: the tag that was added.' }),
  sla: jsonRecord('sla must be a JSON object.').optional().meta({ type: 'object', description: 'For sla_warning and sla_breached: the target, `{ "policyId": "…", "policyName": "Urgent", "metric": "first_reply", "dueAt": "2026-03-06T10:00:00Z" }`.' }),
  assumeReply: z
    .boolean({ error: () => 'assumeReply must be true or false.' })
    .optional()
    .meta({ description: 'The branch every wait_for_reply takes: true as if the customer replied in time, false (default) as if not.' }),
  approvals: z
    .enum(['approve', 'reject'], { error: () => 'approvals must be "approve" or "reject".' })
    .optional()
    .meta({ description: 'The decision every request_approval gets: `approve` (default) takes its true branch, `reject` its false one.' }),
};

/** When the dry run happens: what `now` reads, and where waits count from. */
const at = {
  at: instant('at')
    .optional()
    .meta({ description: 'Walk the graph as if it were then (default: now): conditions read it as `now` and waits count from it, so "what happens to a ticket created Friday 16:50?" is `2026-03-06T16:50:00+01:00`.' }),
};

export const dryRunBody = z.strictObject({ ...eventDetails, ...at });
export type DryRunInput = z.infer<typeof dryRunBody>;

/** An unsaved graph: `triggerType` and `workflowJson` as POST /api/workflows takes them. */
export const dryRunGraphBody = z.strictObject({
  triggerType: createWorkflowBody.shape.triggerType,
  workflowJson: createWorkflowBody.shape.workflowJson,
  ...eventDetails,
  ...at,
});

export const MAX_BACKTEST_EVENTS = 1000;
export const BACKTEST_WINDOW_DAYS = 7;

export const backtestBody = z.strictObject({
  since: instant('since').optional().meta({ description: `Start of the window, inclusive (default: ${BACKTEST_WINDOW_DAYS} days ago).` }),
  until: instant('until').optional().meta({ description: 'End of the window, exclusive (default: now).' }),
  limit: z
    .int({ error: () => `limit must be an integer from 1 to ${MAX_BACKTEST_EVENTS}.` })
    .min(1, `limit must be an integer from 1 to ${MAX_BACKTEST_EVENTS}.`)
    .max(MAX_BACKTEST_EVENTS, `limit must be an integer from 1 to ${MAX_BACKTEST_EVENTS}.`)
    .optional()
    .meta({ description: 'At most this many events are replayed, oldest first (default 200).' }),
  assumeReply: eventDetails.assumeReply,
  approvals: eventDetails.approvals,
});
export type BacktestInput = z.infer<typeof backtestBody>;
