import { z } from 'zod';
import { timestamp, uuid } from '../http/response-fields.ts';

/** The answers of the dry run and the backtest; the simulation (simulate.ts) already has their shape. */

const dryRunStep = z
  .strictObject({
    nodeId: z.string(),
    status: z.enum(['passed', 'completed', 'failed']).meta({ description: 'As in an execution: `passed` for the trigger and conditions, `completed` for an action that would run, `failed` where the run would fail.' }),
    result: z.boolean().optional().meta({ description: 'A condition\'s outcome, or the branch a wait_for_reply or request_approval takes.' }),
    approvers: z.array(z.string()).optional().meta({ description: 'Of a request_approval: who would be asked.' }),
    action: z.looseObject({ actionType: z.string() }).optional().meta({ description: 'An action\'s parameters with their templates filled.' }),
    waitSeconds: z.number().min(0).optional().meta({ description: 'How long a delay would wait; for wait_for_reply or a request_approval with a time-out, its timeout (in seconds of the clock, for one counted in open time too). Nothing waits.' }),
    until: timestamp().optional().meta({ description: 'When a delay, wait_for_reply or request_approval with a time-out would end (the last two: at the latest), counted from when the branch reaches it.' }),
    error: z.string().optional().meta({ description: 'Only on a failed step: why the run would fail here.' }),
  })
  .meta({ id: 'DryRunStep' });

const change = z.strictObject({ from: z.unknown(), to: z.unknown() });

const assumptions = z
  .array(z.string())
  .meta({ description: 'What the simulation takes for granted where a real run would look again: after each wait and outbound request a run reads its ticket afresh, here it is taken as unchanged (but for an assumed customer reply, which reopens it as a real one would); each request_approval is taken as decided at once, as `approvals` says.' });

const outbound = z
  .discriminatedUnion('type', [
    z.strictObject({
      nodeId: z.string(),
      type: z.literal('send_reply'),
      to: z.string(),
      subject: z.string().meta({ description: 'The subject of its mail: `Re: <ticket subject> [Ticket#<ref>]`.' }),
      delivery: z.enum(['mail', 'not_configured']).meta({ description: '`mail`: the workspace has a mailbox and the reply would be mailed to `to`; `not_configured`: it would be saved only.' }),
      body: z.string(),
      bodyHtml: z.string().optional(),
    }),
    z.strictObject({
      nodeId: z.string(),
      type: z.literal('http_request'),
      method: z.string(),
      url: z.string(),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.unknown().optional(),
    }),
  ])
  .meta({ id: 'DryRunOutbound', description: 'A reply or request the run would send (rendered); none is sent.' });

export const dryRunEnvelope = z.strictObject({
  dryRun: z
    .strictObject({
      at: timestamp().meta({ description: 'The instant the graph was walked as if it were: the `at` asked for, or when the dry run ran.' }),
      steps: z.array(dryRunStep).meta({ description: 'The nodes in the order the run would visit them.' }),
      changes: z.record(z.string(), change).meta({ description: 'The ticket as the actions would leave it: each field that would change, from → to.' }),
      outbound: z.array(outbound),
      assumptions,
    })
    .meta({ id: 'DryRun' }),
});

export const backtestEnvelope = z.strictObject({
  backtest: z
    .strictObject({
      eventsExamined: z.int().min(0),
      matched: z.int().min(0).meta({ description: 'Events whose path reaches at least one action.' }),
      actionsWouldRun: z.record(z.string(), z.int().min(1)).meta({ description: 'By actionType: how many times it would have run.' }),
      sample: z
        .array(
          z.strictObject({
            eventId: uuid().nullable().meta({ description: 'The recorded event; null for a scheduled workflow (it replays over tickets, not events).' }),
            ticketId: uuid().nullable(),
            at: timestamp(),
            steps: z.array(dryRunStep),
          }),
        )
        .meta({ description: 'Up to 20 of the matched events, oldest first.' }),
      assumptions,
    })
    .meta({ id: 'Backtest' }),
});
