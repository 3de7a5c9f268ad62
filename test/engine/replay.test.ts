import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, inject, it } from 'vitest';
import { historyFromJson } from './fixtures/history-json.ts';

// Changing workflow code that runs in flight needs patched() (or a new workflow type) and a
// replay test on a saved history. Each file under histories/ is a recorded run of one
// representative execution (a condition, two actions in parallel and their join, a delay, a
// wait_for_reply timing out, a reply), made by fixtures/record-run-graph-history.ts:
// run-graph-v1.json by runGraph (the first run workflow, still registered for runs started
// before runAutomation), run-automation-v1.json by runAutomation before runs read their ticket
// after waits, run-automation-v2.json after (its patch markers), and
// run-automation-v2-failure.json a run failing on one branch while another waits, and
// run-automation-v3-mail.json the representative run in a workspace with a mailbox (its reply
// delivered by SMTP as a step, under its patch marker), and
// run-automation-business-hours.json a run that counts a calendar's open time, and
// run-automation-v4-begin-with-action.json the representative run since a run begins in its
// first actions, and run-automation-v5-actions-together.json since actions reached at once share
// a local activity that ends the run when they are its last (under their patch markers), and
// run-automation-approval.json a run that asks for an approval, is woken by the decision's
// signal, then asks again and goes on at the time-out, and
// sla-clocks-v1.json a ticket's service-level timers (slaClocks, recorded by
// fixtures/record-sla-clocks-history.ts), and ai-owner-v1.json a run of the AI
// owner (temporal/workflows/ai-owner.ts) that asks its model again after an unusable answer.
// The current workflow code must replay each exactly.

const here = path.dirname(fileURLToPath(import.meta.url));
// Replay workers report each state change at INFO; keep warnings and errors.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  /* installed already in this test process */
}
const silent = { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** The types of a history's local activities, in order (they are markers, not scheduled activities). */
function localActivityTypes(history: Awaited<ReturnType<typeof savedHistory>>): string[] {
  return history.events!
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .map((e) => JSON.parse(Buffer.from(e.markerRecordedEventAttributes!.details!.data!.payloads![0].data!).toString()).activity_type);
}

async function savedHistory(name: string) {
  return historyFromJson(JSON.parse(await fs.readFile(path.join(here, 'histories', name), 'utf8')));
}

describe('replaying saved run histories', () => {
  it('run-graph-v1 replays on the current workflow code without a determinism error', async () => {
    const history = await savedHistory('run-graph-v1.json');
    const types = history.events!.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? (e.timerStartedEventAttributes ? 'timer' : null)).filter(Boolean);
    // What makes it representative: parallel actions, the delay and the reply timeout, the reply.
    expect(types).toEqual(['runAction', 'runAction', 'timer', 'timer', 'runAction']);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('run-automation-v1 replays on the current workflow code: its actions as local activities, its waits as timers', async () => {
    const history = await savedHistory('run-automation-v1.json');
    const markers = history.events!.filter((e) => e.markerRecordedEventAttributes).length;
    const types = history.events!.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? (e.timerStartedEventAttributes ? 'timer' : null)).filter(Boolean);
    expect(types).toEqual(['timer', 'timer']);
    expect(markers).toBeGreaterThanOrEqual(7);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('run-automation-v2 replays: after each wait the run reads its ticket (a local activity), under its patch marker', async () => {
    const history = await savedHistory('run-automation-v2.json');
    const patches = history.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length;
    expect(patches).toBeGreaterThanOrEqual(1);
    expect(history.events!.filter((e) => e.timerStartedEventAttributes).length).toBe(2);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('run-automation-v2-failure replays: a failure on one branch cancels the timer of another', async () => {
    const history = await savedHistory('run-automation-v2-failure.json');
    expect(history.events!.some((e) => e.timerCanceledEventAttributes)).toBe(true);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('run-automation-v3-mail replays: the reply is delivered by an activity of the run, under its patch marker', async () => {
    const history = await savedHistory('run-automation-v3-mail.json');
    const types = history.events!.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? (e.timerStartedEventAttributes ? 'timer' : null)).filter(Boolean);
    expect(types).toEqual(['timer', 'timer', 'deliverMail']);
    const patches = history.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length;
    expect(patches).toBeGreaterThanOrEqual(2);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('run-automation-business-hours replays: the calendar condition and both deadlines come from the history, not from the time zone data', async () => {
    const history = await savedHistory('run-automation-business-hours.json');
    const localActivities = localActivityTypes(history);
    expect(localActivities.filter((t: string) => ['evaluateWithCalendars', 'businessDeadline'].includes(t))).toEqual(['evaluateWithCalendars', 'businessDeadline', 'businessDeadline']);
    const timers = history.events!.filter((e) => e.timerStartedEventAttributes).map((e) => Buffer.from(e.userMetadata!.summary!.data!).toString());
    expect(timers).toEqual([expect.stringMatching(/^"pause: delay of 1 second of open time \(calendar \\"Always open\\"\) until /), expect.stringMatching(/^"await: wait_for_reply from the customer for 1 second of open time/)]);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('run-automation-v4-begin-with-action replays: the run begins in its first actions, with no local activity of its own for it', async () => {
    const history = await savedHistory('run-automation-v4-begin-with-action.json');
    const localActivities = localActivityTypes(history);
    expect(localActivities.slice(0, 2)).toEqual(['runAction', 'runAction']);
    expect(localActivities).not.toContain('beginRun');

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('run-automation-v5-actions-together replays: parallel actions share one local activity, and the last one ends the run', async () => {
    const history = await savedHistory('run-automation-v5-actions-together.json');
    const localActivities = localActivityTypes(history);
    expect(localActivities[0]).toBe('runActions');
    expect(localActivities.at(-1)).toBe('runActions');
    expect(localActivities).not.toContain('finishRun');

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('run-automation-approval replays: the decision arrives as a signal, the outcome and the deadline come from the history', async () => {
    const history = await savedHistory('run-automation-approval.json');
    expect(history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes).map((e) => e.workflowExecutionSignaledEventAttributes!.signalName)).toEqual(['approvalDecided']);
    const localActivities = localActivityTypes(history);
    expect(localActivities.filter((t) => ['requestApproval', 'settleApproval'].includes(t))).toEqual(['requestApproval', 'settleApproval', 'requestApproval', 'settleApproval']);
    expect(history.events!.filter((e) => e.timerFiredEventAttributes)).toHaveLength(1);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('sla-clocks-v1 replays: a ticket\'s timers, a policy change signalled while they wait (its timer cut short), three instants acted on', async () => {
    const history = await savedHistory('sla-clocks-v1.json');
    const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes).map((e) => e.workflowExecutionSignaledEventAttributes!.signalName);
    expect(signals).toEqual(['slaInstantsChanged', 'slaInstantsChanged']);
    expect(history.events!.some((e) => e.timerCanceledEventAttributes)).toBe(true);
    const activities = history.events!.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(activities).toEqual(['slaInstantsDue', 'slaInstantsDue', 'slaInstantsDue']);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('ai-owner-v1 replays: the AI owner looks, asks the model twice (an unusable answer, then a reply) and acts', async () => {
    const history = await savedHistory('ai-owner-v1.json');
    expect(localActivityTypes(history)).toEqual(['aiLook', 'aiAct']);
    const scheduled = history.events!.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(scheduled).toEqual(['aiAskModel', 'aiAskModel']);

    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });

  it('a workflow that behaves differently fails the replay (the check can fail)', async () => {
    const history = await savedHistory('run-graph-v1.json');
    const changed = await bundleWorkflowCode({ workflowsPath: path.join(here, 'fixtures', 'changed-run-graph-workflows.ts'), logger: silent });
    await expect(Worker.runReplayHistory({ workflowBundle: changed }, history)).rejects.toBeInstanceOf(DeterminismViolationError);
  }, 60_000);
});
