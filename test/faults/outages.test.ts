import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newInstallation, postJson, type Installation } from './helpers/deskflow.ts';
import { recordFigures, type FaultFigures } from './helpers/figures.ts';
import { ProcessTracker } from './helpers/processes.ts';
import { secondsUntilWorkMoved, Stack, type Execution } from './helpers/stack.ts';

/**
 * docs/contract.md §1, Reliability: the API, the worker, the Temporal dev server and PostgreSQL
 * as separate processes, each killed by pid (SIGKILL) while tickets and replies come in. Every
 * scenario ends with each automation run exactly once (one reply, one tag per ticket; none
 * lost, none doubled, none stuck) and work moving again within 10 s of the fault's end. The
 * figures are recorded for the suite's table (helpers/figures.ts).
 */
const tracker = new ProcessTracker();
let inst: Installation;
let stack: Stack;


beforeAll(async () => {
  inst = await newInstallation();
  stack = await Stack.start(inst, tracker);
}, 240_000);

afterAll(async () => {
  await stack?.stop().catch(() => {});
  await tracker.killAll();
  await inst?.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ticket_created → send_reply → add_tag: each ticket must end with exactly one reply and the tag. */
async function replyAndTag(name: string, tag: string): Promise<string> {
  return stack.activeWorkflow(
    name,
    'ticket_created',
    [
      { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } },
      { id: 'reply', type: 'action', data: { actionType: 'send_reply', body: 'We got your ticket {{ticket.subject}}.' } },
      { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag } },
    ],
    [
      { source: 'start', target: 'reply' },
      { source: 'reply', target: 'tag' },
    ],
  );
}

async function deactivate(workflowId: string): Promise<void> {
  expect((await postJson(`${stack.url}/api/workflows/${workflowId}`, stack.apiKey, { isActive: false }, 'PATCH')).status).toBe(200);
}

/** Creates `count` tickets at about `perSecond`, each retried until it is accepted; their ids. */
async function stream(prefix: string, count: number, perSecond: number): Promise<string[]> {
  const ids: string[] = [];
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    pending.push(stack.createTicket(`${prefix}-${i}`).then((t) => void ids.push(t.id)));
    await sleep(1000 / perSecond);
  }
  await Promise.all(pending);
  return ids;
}

/** Exactly one reply and the tag on each ticket, and one completed execution per ticket. */
async function tally(scenario: string, ticketIds: string[], tag: string, executions: Execution[], since: number | null): Promise<FaultFigures> {
  let doubled = 0;
  let lost = 0;
  for (const id of ticketIds) {
    const t = await stack.ticket(id);
    if (t.replies > 1) doubled += 1;
    if (t.replies === 0 || !t.tags.includes(tag)) lost += 1;
  }
  const perTicket = new Map<string, number>();
  for (const e of executions) perTicket.set(e.ticketId!, (perTicket.get(e.ticketId!) ?? 0) + 1);
  doubled += [...perTicket.values()].filter((n) => n > 1).length;
  const row: FaultFigures = {
    fault: scenario,
    accepted: ticketIds.length,
    completed: executions.filter((e) => e.status === 'completed').length,
    doubled,
    lost,
    stuck: executions.filter((e) => e.status !== 'completed').length,
    recoverySeconds: since === null ? null : secondsUntilWorkMoved(executions, since),
  };
  recordFigures(row);
  return row;
}

function expectWhole(row: FaultFigures): void {
  expect({ ...row, recoverySeconds: undefined }).toEqual({ ...row, recoverySeconds: undefined, completed: row.accepted, doubled: 0, lost: 0, stuck: 0 });
  if (row.recoverySeconds !== null) expect(row.recoverySeconds).toBeLessThanOrEqual(10);
}

describe('automations through faults of their parts', () => {
  it('worker SIGKILLed 5 times during 100 ticket creations: each automation runs exactly once', async () => {
    const workflowId = await replyAndTag('Acknowledge (worker kills)', 'acknowledged');
    let lastBack = 0;
    const kills = (async () => {
      for (let i = 0; i < 5; i++) {
        await sleep(1500);
        await stack.killWorker();
        await stack.startWorker();
        lastBack = Date.now();
      }
    })();
    const ids = await stream('worker-kill', 100, 10);
    await kills;
    const executions = await stack.allEnded(workflowId, ids.length, 120_000);
    await deactivate(workflowId);
    expectWhole(await tally('worker SIGKILLed 5× during 100 creations', ids, 'acknowledged', executions, lastBack));
  });

  it('Temporal down 30 s during 60 creations: tickets accepted meanwhile, each automation runs once when it is back', async () => {
    const workflowId = await replyAndTag('Acknowledge (Temporal outage)', 'acknowledged');
    const before = await stream('temporal-before', 10, 10);
    await stack.killTemporal();
    const during = await stream('temporal-down', 50, 2);
    await sleep(5_000);
    await stack.startTemporal();
    const back = Date.now();
    const ids = [...before, ...during];
    const executions = await stack.allEnded(workflowId, ids.length, 120_000);
    await deactivate(workflowId);
    expectWhole(await tally('Temporal down 30 s during 60 creations', ids, 'acknowledged', executions, back));
  });

  it('a customer replies while Temporal is down: every waiting run takes the reply branch', async () => {
    const workflowId = await stack.activeWorkflow(
      'Wait for the customer',
      'ticket_created',
      [
        { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } },
        { id: 'wait', type: 'action', data: { actionType: 'wait_for_reply', timeoutSeconds: 90 } },
        { id: 'thanks', type: 'action', data: { actionType: 'send_reply', body: 'Thanks for answering.' } },
        { id: 'replied', type: 'action', data: { actionType: 'add_tag', tag: 'replied' } },
        { id: 'silent', type: 'action', data: { actionType: 'add_tag', tag: 'no-reply' } },
      ],
      [
        { source: 'start', target: 'wait' },
        { source: 'wait', target: 'thanks', label: 'true' },
        { source: 'thanks', target: 'replied' },
        { source: 'wait', target: 'silent', label: 'false' },
      ],
    );
    const ids = await stream('reply-outage', 10, 10);
    // Every run is waiting (its wait step began) before Temporal goes away.
    await expect
      .poll(async () => (await stack.executions(workflowId)).filter((e) => e.steps.some((s) => s.nodeId === 'wait')).length, { timeout: 60_000, interval: 250 })
      .toBe(ids.length);
    await stack.killTemporal();
    for (const id of ids) await stack.customerReply(id, `reply-${id}`);
    await sleep(10_000);
    await stack.startTemporal();
    const back = Date.now();
    const executions = await stack.allEnded(workflowId, ids.length, 120_000);
    await deactivate(workflowId);
    const row = await tally('customer replies while Temporal is down (10 waiting runs)', ids, 'replied', executions, back);
    for (const id of ids) expect((await stack.ticket(id)).tags).not.toContain('no-reply');
    expectWhole(row);
  });

  it('PostgreSQL down 60 s while automations run: they wait it out and finish exactly once', async () => {
    const workflowId = await stack.activeWorkflow(
      'Acknowledge, then tag (PostgreSQL outage)',
      'ticket_created',
      [
        { id: 'start', type: 'trigger', data: { triggerType: 'ticket_created' } },
        { id: 'reply', type: 'action', data: { actionType: 'send_reply', body: 'We got your ticket.' } },
        { id: 'pause', type: 'action', data: { actionType: 'delay', seconds: 3 } },
        { id: 'tag', type: 'action', data: { actionType: 'add_tag', tag: 'followed-up' } },
      ],
      [
        { source: 'start', target: 'reply' },
        { source: 'reply', target: 'pause' },
        { source: 'pause', target: 'tag' },
      ],
    );
    const ids = await stream('pg-outage', 30, 15);
    await stack.killPostgres();
    // The API answers 503 meanwhile, and the runs in their delay come back to a database that is away.
    const refused = await fetch(`${stack.url}/api/v1/tickets`, { headers: { authorization: `Bearer ${stack.apiKey}` } });
    expect(refused.status).toBe(503);
    await sleep(60_000);
    await stack.startPostgres();
    const back = Date.now();
    const executions = await stack.allEnded(workflowId, ids.length, 120_000);
    await deactivate(workflowId);
    expectWhole(await tally('PostgreSQL down 60 s while 30 automations run', ids, 'followed-up', executions, back));
  });
});
