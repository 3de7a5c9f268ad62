import { ActivityFailure, ApplicationFailure, condition, defineSignal, isCancellation, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { AiActivities, OwnerDecision, OwnerInput, OwnerLook } from '../activities/types.ts';
import { failureMessage } from './failure-message.ts';

/**
 * The AI owner's run of one ticket (src/ai/, docs/ai.md), its id derived from the ticket
 * (`ai-owner-<ticket id>`). Started or woken by a signal with start when the ticket is assigned
 * to `ai` or its customer writes, it looks at the ticket afresh on every wake-up (the rules and
 * the search run in an activity), asks the model when there is one (retried for at most 30
 * seconds in all, then the ticket goes to a person), and writes what it decided in an activity
 * that checks once more that the ticket still waits for it. It ends when nothing more woke it,
 * or when it is told that a person took the ticket over.
 */

export const aiWake = defineSignal<[{ reason: string }]>('aiWake');
export const aiStop = defineSignal<[{ reason: string }]>('aiStop');

/** How long the model may take, retries included, before the ticket goes to a person. */
export const MODEL_BUDGET_MS = 30_000;
/** Turns one run takes before it hands on to a fresh run (keeps a run's history short). */
const TURNS_PER_RUN = 25;

const local = proxyLocalActivities<AiActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

const model = (budgetMs: number) =>
  proxyActivities<AiActivities>({
    startToCloseTimeout: '12 seconds',
    scheduleToCloseTimeout: budgetMs,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '4 seconds', nonRetryableErrorTypes: ['ModelRefused'] },
    summary: 'ask the model',
  });

export async function aiOwner(input: OwnerInput): Promise<string> {
  // Being started is a wake-up of its own (a start without a signal acts too).
  let wakes = 1;
  let stopped: string | null = null;
  setHandler(aiWake, () => {
    wakes += 1;
  });
  setHandler(aiStop, ({ reason }) => {
    stopped = reason;
  });
  let turns = 0;
  for (;;) {
    if (stopped !== null) return `stopped: ${stopped}`;
    if (wakes === 0) return `done after ${turns} turn(s)`;
    if (turns >= TURNS_PER_RUN) return `handed on after ${turns} turns`; // the next wake-up starts a fresh run
    wakes = 0;
    const look = await local.aiLook(input).catch(endsRun);
    if (look === null) return 'ended: the ticket cannot be read';
    if (look.step === 'stop') continue;
    let decision: OwnerDecision;
    if (look.step === 'handoff') decision = { action: 'handoff', code: look.code, reason: look.reason, model: null };
    else if (look.decision) decision = look.decision;
    else {
      const asked = await Promise.race([ask(input, look), condition(() => stopped !== null).then(() => null)]);
      if (asked === null) continue; // a person took the ticket over meanwhile
      decision = asked;
    }
    const acted = await local.aiAct({ ...input, messageId: look.messageId, decision }).catch(endsRun);
    if (acted === null) return 'ended: the decision could not be written';
    turns += 1;
  }
}

/** A broken rule (the ticket gone) ends the run: the local activities retry everything else until it works. */
function endsRun(err: unknown): null {
  if (isCancellation(err)) throw err;
  return null;
}

/** The model's decision: asked once more after an unusable answer, handed off when it stays unusable, is refused or cannot be reached in time. */
async function ask(input: OwnerInput, look: Extract<OwnerLook, { step: 'answer' }>): Promise<OwnerDecision> {
  const started = Date.now();
  const name = look.model;
  let problem: string | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const budget = MODEL_BUDGET_MS - (Date.now() - started);
    if (budget < 1_000) break;
    try {
      const answer = await model(budget).aiAskModel({ ...input, messageId: look.messageId, articleIds: look.articles.map((a) => a.id), ...(problem ? { retryBecause: problem } : {}) });
      if (!answer.ok) {
        problem = answer.problem;
        continue;
      }
      if (answer.action === 'handoff') return { action: 'handoff', code: 'model_handoff', detail: answer.reason, model: answer.model };
      return { action: look.autoSend ? 'reply' : 'draft', body: answer.body, citations: answer.citations, model: answer.model };
    } catch (err) {
      if (isCancellation(err)) throw err;
      const refused = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'ModelRefused';
      return { action: 'handoff', code: refused ? 'model_refused' : 'model_unreachable', detail: failureMessage(err), model: name };
    }
  }
  return problem ? { action: 'handoff', code: 'model_invalid', detail: problem, model: name } : { action: 'handoff', code: 'model_unreachable', model: name };
}
