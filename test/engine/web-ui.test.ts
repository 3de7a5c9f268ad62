import { describe, expect, it } from 'vitest';
import { Execution } from '../../src/executions/entity.ts';
import { WORKFLOW_NAME } from '../../temporal/search-attributes.ts';
import { useEngineApp, workspaceWithWorkflow } from '../helpers/engine.ts';
import { eventually } from '../helpers/poll.ts';
import { executionAtStep, finishedExecutions, openTicket } from '../helpers/api.ts';
import { actionNode } from '../helpers/graphs.ts';

// What an operator sees of a run in the Temporal Web UI without opening it: a summary naming
// the automation and the ticket, the automation's name as a search attribute (a list column),
// and, while it waits, what for and until when.

const app = useEngineApp();

const handleOf = async (workflowId: string) => {
  const execution = await app.orm.em.fork().findOneOrFail(Execution, { workflow: workflowId }, { orderBy: { startedAt: 'desc' } });
  return app.engine.client.workflow.getHandle(execution.temporalWorkflowId);
};

describe('a run in the Web UI', () => {
  it('is summarised by the automation and the ticket, and listed by the automation name', async () => {
    const name = `Escalate urgent tickets ${Math.random().toString(36).slice(2, 8)}`;
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > tag', [actionNode('tag', { actionType: 'add_tag', tag: 'seen' })], name);
    const ticketId = await openTicket(api, { subject: 'Printer on fire' });
    await finishedExecutions(api, workflowId);

    const description = await (await handleOf(workflowId)).describe();
    expect(await description.staticSummary()).toBe(`${name} · Printer on fire`);
    expect(await description.staticDetails()).toContain(`Ticket: ${ticketId}`);
    expect(description.typedSearchAttributes.get(WORKFLOW_NAME)).toBe(name);
    const listed = await eventually(async () => {
      const found = [];
      for await (const run of app.engine.client.workflow.list({ query: `DeskflowWorkflowName = "${name}"` })) found.push(run.workflowId);
      return found.length > 0 ? found : undefined;
    }, 20_000, 'the run listed by its automation name');
    expect(listed).toEqual([description.workflowId]);
  });

  it('says what it waits for and until when, in its current details and on its timer', async () => {
    const { api, workflowId } = await workspaceWithWorkflow(app, 'ticket_created', 'start > await', [actionNode('await', { actionType: 'wait_for_reply', timeoutSeconds: 3 })]);
    await openTicket(api);
    await executionAtStep(api, workflowId, 'await', 'waiting');
    const handle = await handleOf(workflowId);
    const details = await eventually(async () => {
      const { currentDetails } = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return currentDetails ? currentDetails : undefined;
    }, 10_000, 'the current details of the waiting run');
    expect(details).toMatch(/^Waiting: await: wait_for_reply from the customer until \d{4}-\d{2}-\d{2}T/);

    await finishedExecutions(api, workflowId);
    const timers = (await handle.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes);
    expect(timers.map((e) => e.userMetadata?.summary?.data && Buffer.from(e.userMetadata.summary.data).toString())).toEqual([
      expect.stringContaining('await: wait_for_reply from the customer until'),
    ]);
  });
});
