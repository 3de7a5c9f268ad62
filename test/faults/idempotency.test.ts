import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { activeWorkflow, DeskflowRun, eventually, getJson, newInstallation, postWithKey, tagNewTickets, type Installation } from './helpers/deskflow.ts';
import { recordFigures } from './helpers/figures.ts';
import { ProcessTracker, waitUntilGone } from './helpers/processes.ts';
import { secondsUntilWorkMoved, type Execution } from './helpers/stack.ts';

/**
 * docs/contract.md §1, Idempotent writes, against a Deskflow killed mid-traffic: writers that
 * retry every request with its key until they get an answer end up with exactly one ticket and
 * one automation run per key, whether the request they lost had been saved or not.
 */
const tracker = new ProcessTracker();
afterEach(() => tracker.killAll());

let inst: Installation;
beforeAll(async () => {
  inst = await newInstallation();
});
afterAll(() => inst.remove());

const WRITERS = 20;
const TICKETS_PER_WRITER = 5;

type Outcome = { key: string; ticketId: string; lostAnswers: number; replayed: boolean };

/** Creates a ticket under `key`, sending it again after every lost answer or 503 until it gets one. */
async function createWithRetries(key: string, apiKey: string, deadline: number): Promise<Outcome> {
  const body = { subject: `Ticket ${key}`, customerEmail: 'casey@example.com', body: 'Hello' };
  const { id, lostAnswers, replayed } = await postWithKey(`${inst.baseUrl}/api/v1/tickets`, apiKey, key, body, deadline);
  return { key, ticketId: id, lostAnswers, replayed };
}

describe('a Deskflow killed under concurrent keyed writers', () => {
  it('ends with one ticket and one automation run per key', async () => {
    const first = new DeskflowRun(inst, 'start', tracker);
    const [, apiKey] = await first.waitFor(/API key \(shown once, store it now\):\s+(dfk_\S+)/);
    await eventually('/readyz 200', async () => ((await getJson(`${inst.baseUrl}/readyz`).catch(() => ({ status: 0 }))).status === 200 ? true : undefined), 120_000);
    const { nodes, edges } = tagNewTickets('seen');
    const workflowId = await activeWorkflow(inst.baseUrl, apiKey!, 'Tag new tickets', 'ticket_created', nodes, edges);

    // Writers run until done; the server is killed once a quarter of the tickets are answered.
    const deadline = Date.now() + 180_000;
    let answered = 0;
    const restarted = (async () => {
      await eventually('a quarter of the tickets answered', async () => (answered >= (WRITERS * TICKETS_PER_WRITER) / 4 ? true : undefined), 60_000);
      const procs = first.processes();
      process.kill(first.node().pid, 'SIGKILL');
      await first.exited;
      // Its PostgreSQL and dev server follow it (or the next start stops what is left).
      await waitUntilGone(procs, 30_000);
      const second = new DeskflowRun(inst, 'start', tracker);
      await second.waitFor(/Deskflow API listening/);
      return { second, back: Date.now() };
    })();
    const outcomes = (
      await Promise.all(
        Array.from({ length: WRITERS }, async (_, writer) => {
          const mine: Outcome[] = [];
          for (let i = 0; i < TICKETS_PER_WRITER; i++) {
            mine.push(await createWithRetries(`writer-${writer}-ticket-${i}`, apiKey!, deadline));
            answered += 1;
          }
          return mine;
        }),
      )
    ).flat();
    const { second, back } = await restarted;

    // Some writers lost answers to the kill; none of their retries made a second ticket.
    expect(outcomes.some((o) => o.lostAnswers > 0)).toBe(true);
    expect(new Set(outcomes.map((o) => o.ticketId)).size).toBe(WRITERS * TICKETS_PER_WRITER);
    const list = await getJson(`${inst.baseUrl}/api/v1/tickets?per_page=1`, apiKey);
    expect(list.body.pagination.total).toBe(WRITERS * TICKETS_PER_WRITER);

    const executions = await eventually(
      'every automation run finished',
      async () => {
        const res = await getJson(`${inst.baseUrl}/api/workflows/${workflowId}/executions?limit=200`, apiKey);
        const all = res.body.executions as Execution[];
        return all.length >= WRITERS * TICKETS_PER_WRITER && all.every((e) => e.status === 'completed') ? all : undefined;
      },
      120_000,
    );
    expect(executions.map((e) => e.ticketId).sort()).toEqual(outcomes.map((o) => o.ticketId).sort());
    recordFigures({
      fault: `API SIGKILLed under ${WRITERS} writers retrying with Idempotency-Key (${outcomes.filter((o) => o.lostAnswers > 0).length} lost an answer)`,
      accepted: outcomes.length,
      completed: executions.length,
      doubled: list.body.pagination.total - outcomes.length,
      lost: 0,
      stuck: 0,
      recoverySeconds: secondsUntilWorkMoved(executions, back),
    });

    const procs = second.processes();
    second.signal('npm', 'SIGTERM');
    await waitUntilGone(procs, 60_000);
  });
});
