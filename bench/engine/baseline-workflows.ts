import { proxyActivities } from '@temporalio/workflow';

/**
 * The baselines Deskflow's engine is compared with, on the same Temporal server. Bundled for
 * the sandbox by baseline-worker.ts: imports nothing but the workflow SDK.
 */
type BaselineActivities = { touchTicket(ticketId: string): Promise<void> };

const { touchTicket } = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** The floor: one workflow run per execution, nothing in it. */
export async function doNothing(): Promise<void> {}

/**
 * The 3-node graph written by hand: the condition in workflow code, then one activity per
 * action (add_tag ∥ set_priority), each a one-row write.
 */
export async function activityPerAction(input: { ticketId: string; subject: string }): Promise<void> {
  if (!input.subject.toLowerCase().includes('printer')) return;
  await Promise.all([touchTicket(input.ticketId), touchTicket(input.ticketId)]);
}
