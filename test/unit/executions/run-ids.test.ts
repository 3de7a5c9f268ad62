import { describe, expect, it } from 'vitest';
import { executionIdFor, nameInRunId, runIdFor, tickIdFor } from '../../../src/executions/run-ids.ts';
import { isUuid } from '../../../src/ids.ts';

const WORKFLOW = '1f2e3d4c-5b6a-4789-9abc-def012345678';
const OTHER_WORKFLOW = '2f2e3d4c-5b6a-4789-9abc-def012345678';
const EVENT = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const TICKET = '0b6d1f2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b';

describe('run ids', () => {
  it('begin with the automation and the ticket, then what started the run and the execution', () => {
    expect(runIdFor({ workflowName: 'Escalate urgent tickets', ticketId: TICKET, triggeredBy: 'ticket_created', executionId: 'e1' })).toBe(
      `Escalate urgent tickets · ticket ${TICKET} · ticket_created · execution e1`,
    );
    expect(runIdFor({ workflowName: 'Payment failed', ticketId: null, triggeredBy: 'webhook', executionId: 'e2' })).toBe('Payment failed · no ticket · webhook · execution e2');
  });

  it("derive an event's execution id from (workflow, event): a redelivered event gets the same execution and the same run", () => {
    const first = executionIdFor(WORKFLOW, EVENT);
    expect(isUuid(first)).toBe(true);
    expect(executionIdFor(WORKFLOW, EVENT)).toBe(first);
    // Two automations on one event, even with the same name, never share a run.
    expect(executionIdFor(OTHER_WORKFLOW, EVENT)).not.toBe(first);
    const run = (workflowId: string) => runIdFor({ workflowName: 'Same name', ticketId: TICKET, triggeredBy: 'ticket_created', executionId: executionIdFor(workflowId, EVENT) });
    expect(run(WORKFLOW)).not.toBe(run(OTHER_WORKFLOW));
    // Without an event (by hand, a webhook) every execution is new.
    expect(executionIdFor(WORKFLOW, null)).not.toBe(executionIdFor(WORKFLOW, null));
  });

  it('keep a name to one line of at most 80 characters, and stay within the 1,000 bytes Temporal takes', () => {
    expect(nameInRunId('  Remind,\n\tthen   close ')).toBe('Remind, then close');
    expect(nameInRunId('   ')).toBe('Workflow');
    const long = nameInRunId('😀'.repeat(200));
    expect([...long]).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
    const id = runIdFor({ workflowName: '😀'.repeat(200), ticketId: TICKET, triggeredBy: 'message_received', executionId: executionIdFor(WORKFLOW, EVENT) });
    expect(Buffer.byteLength(id)).toBeLessThan(1000 - 40);
    expect(Buffer.byteLength(`${tickIdFor({ id: WORKFLOW, name: '😀'.repeat(200) })}-2026-11-25T02:00:00Z`)).toBeLessThan(1000);
  });

  it("name a scheduled workflow's ticks by its name and id", () => {
    expect(tickIdFor({ id: WORKFLOW, name: 'Nightly sweep' })).toBe(`Nightly sweep · workflow ${WORKFLOW} · tick`);
  });
});
