import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../cli/run-cli.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import type { Client } from '../helpers/app.ts';
import { type ExecutionView, getTicket, openTicket, readMessages, runThrough, stepStates } from '../helpers/api.ts';

// The tutorial's "Remind, then close" automation (docs/automations-tutorial.md), exactly as it is
// written there but with its waits shortened to seconds of an always-open calendar (the
// tutorial's counts office hours), in
// each case its table lists: a run decides after every wait on the ticket as it is then, so a
// customer who answered is neither reminded nor closed on.

const app = useEngineApp();

/**
 * The workflow the tutorial's shell block creates, its calendar (`'"$CALENDAR"'` in the shell)
 * the given one, with 16 open hours → 2 s and 40 → 3 s.
 */
function tutorialWorkflow(calendarId: string) {
  const tutorial = fs.readFileSync(path.join(repoRoot, 'docs', 'automations-tutorial.md'), 'utf8');
  const block = /```sh\n(REMIND=\$\([\s\S]*?)```/.exec(tutorial)?.[1];
  if (!block) throw new Error('docs/automations-tutorial.md has no "Remind, then close" block');
  const json = /-d '(\{[\s\S]*?\})' \|/.exec(block)?.[1];
  if (!json) throw new Error("the tutorial's block has no JSON body");
  const body = JSON.parse(json.replaceAll(`'"$CALENDAR"'`, calendarId));
  const shortened = { 57600: 2, 144000: 3 } as Record<number, number>;
  for (const node of body.workflowJson.nodes) {
    if (node.data.actionType === 'delay') node.data.businessSeconds = shortened[node.data.businessSeconds] ?? node.data.businessSeconds;
    if (node.data.actionType === 'wait_for_reply') node.data.timeoutSeconds = shortened[node.data.timeoutSeconds] ?? node.data.timeoutSeconds;
  }
  return body;
}

/** A calendar of the workspace open at every hour: open time passes as the clock does. */
async function alwaysOpen(api: Client): Promise<string> {
  const hours = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, from: '00:00', to: '24:00' }));
  const res = await api.post('/api/calendars', { name: 'Always open', timeZone: 'UTC', hours });
  expect(res.status).toBe(201);
  return res.body.calendar.id;
}

const CUSTOMER = { customerEmail: 'casey@example.com', customerName: 'Casey', subject: 'Printer on fire' };

/** A workspace with the tutorial's workflow active and a ticket made pending, which starts its run. */
async function pendingTicket(): Promise<{ api: Client; workflowId: string; ticketId: string }> {
  const { api } = await engineWorkspace(app);
  const body = tutorialWorkflow(await alwaysOpen(api));
  expect(body.workflowJson.nodes.map((n: { id: string }) => n.id)).toEqual(['updated', 'now-pending', 'wait-2-days', 'still-pending', 'remind', 'reply-in-5-days', 'still-unanswered', 'close']);
  const created = await api.post('/api/workflows', body);
  expect(created.status).toBe(201);
  const workflowId = created.body.workflow.id;
  expect((await api.patch(`/api/workflows/${workflowId}`, { isActive: true })).status).toBe(200);
  const ticketId = await openTicket(api, CUSTOMER);
  expect((await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'pending' })).status).toBe(200);
  return { api, workflowId, ticketId };
}

/** The steps of a run that goes all the way through the tutorial's workflow, in order. */
const FULL_PATH = [
  ['updated', 'passed'],
  ['now-pending', 'passed'],
  ['wait-2-days', 'completed'],
  ['still-pending', 'passed'],
  ['remind', 'completed'],
  ['reply-in-5-days', 'completed'],
  ['still-unanswered', 'passed'],
  ['close', 'completed'],
];
/** The steps of a run that ends at `nodeId`: the full path up to it. */
const pathUpTo = (nodeId: string) => FULL_PATH.slice(0, FULL_PATH.findIndex(([id]) => id === nodeId) + 1);

const waitingAt = (nodeId: string) => (e: ExecutionView) => e.steps.some((s) => s.nodeId === nodeId && s.status === 'waiting');
const reply = (api: Client, ticketId: string) =>
  api.post(`/api/v1/tickets/${ticketId}/messages`, { body: 'Yes! Still smoking, please call me.', senderEmail: CUSTOMER.customerEmail });
const outbound = async (api: Client, ticketId: string) => (await readMessages(api, ticketId)).filter((m) => m.direction === 'outbound').map((m) => m.body);

describe('the tutorial\'s "Remind, then close" automation', () => {
  it('without an answer: reminds once, then closes the ticket', async () => {
    const { api, workflowId, ticketId } = await pendingTicket();

    const run = await runThrough(api, workflowId, 'wait-2-days');
    expect(run.status).toBe('completed');
    expect(stepStates(run)).toEqual(pathUpTo('close'));
    expect(run.steps.find((s) => s.nodeId === 'reply-in-5-days')?.result).toBe(false);
    expect(await getTicket(api, ticketId)).toMatchObject({ status: 'closed', resolutionType: 'resolved_by_automation' });
    expect(await outbound(api, ticketId)).toEqual(['Hi Casey, do you still need help with "Printer on fire"?']);
  });

  it('an answer during the first wait: no reminder, no close', async () => {
    const { api, workflowId, ticketId } = await pendingTicket();
    await runThrough(api, workflowId, 'wait-2-days', waitingAt('wait-2-days'));
    expect((await reply(api, ticketId)).body.meta.messageAddedEvent).toBe('emitted');

    const run = await runThrough(api, workflowId, 'wait-2-days');
    expect(run.status).toBe('completed');
    expect(stepStates(run)).toEqual(pathUpTo('still-pending'));
    expect(run.steps.find((s) => s.nodeId === 'still-pending')?.result).toBe(false);
    expect(await getTicket(api, ticketId)).toMatchObject({ status: 'open', resolutionType: null });
    expect(await outbound(api, ticketId)).toEqual([]);
  });

  it('an answer after the reminder: reminded once, not closed', async () => {
    const { api, workflowId, ticketId } = await pendingTicket();
    await runThrough(api, workflowId, 'wait-2-days', waitingAt('reply-in-5-days'));
    await reply(api, ticketId);

    const run = await runThrough(api, workflowId, 'wait-2-days');
    expect(run.status).toBe('completed');
    expect(stepStates(run)).toEqual(pathUpTo('reply-in-5-days'));
    expect(run.steps.find((s) => s.nodeId === 'reply-in-5-days')?.result).toBe(true);
    expect(await getTicket(api, ticketId)).toMatchObject({ status: 'open', resolutionType: null });
    expect(await outbound(api, ticketId)).toEqual(['Hi Casey, do you still need help with "Printer on fire"?']);
  });

  it('a ticket solved by an agent after the reminder is not closed by the run', async () => {
    const { api, workflowId, ticketId } = await pendingTicket();
    await runThrough(api, workflowId, 'wait-2-days', waitingAt('reply-in-5-days'));
    await api.patch(`/api/v1/tickets/${ticketId}`, { status: 'solved' });

    const run = await runThrough(api, workflowId, 'wait-2-days');
    expect(run.status).toBe('completed');
    expect(run.steps.find((s) => s.nodeId === 'still-unanswered')).toMatchObject({ status: 'passed', result: false });
    expect(run.steps.some((s) => s.nodeId === 'close')).toBe(false);
    expect(await getTicket(api, ticketId)).toMatchObject({ status: 'solved', resolutionType: 'resolved_by_agent' });
  });
});
