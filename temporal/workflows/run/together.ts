import { ApplicationFailure } from '@temporalio/workflow';
import type { GraphWalker, WorkflowGraph } from '../../../src/graph/index.ts';
import type { ActionInput, ActionOutcome, BatchAnswer, StepInput } from '../../activities/types.ts';
import { local } from './proxies.ts';
import { NotRunning } from './start.ts';

type Queued = { request: ActionInput; resolve: (outcome: ActionOutcome) => void; reject: (err: unknown) => void };

/** The run's unwritten steps, which the batch takes with it (and gives back when it did not commit). */
type Walked = { take(): StepInput[]; record(...steps: StepInput[]): void };

/**
 * Ticket actions reached in the same moment (parallel branches) go to the worker together, in
 * one local activity (runActions, since ACTIONS_TOGETHER), once the walk has started all of
 * them. When nothing else is running and nothing follows them, that activity also ends the run
 * (`ended`), its last write.
 */
export class Together {
  private readonly graph: WorkflowGraph;
  private readonly walker: GraphWalker;
  private readonly walked: Walked;
  private queued: Queued[] = [];
  /** True once runActions ended the run with its last actions: the run has nothing left to write. */
  ended = false;

  constructor(graph: WorkflowGraph, walker: GraphWalker, walked: Walked) {
    this.graph = graph;
    this.walker = walker;
    this.walked = walked;
  }

  /** One ticket action, answered when the batch it joins comes back. */
  take(request: ActionInput): Promise<ActionOutcome> {
    return new Promise<ActionOutcome>((resolve, reject) => {
      if (this.queued.length === 0) void Promise.resolve().then(() => this.send());
      this.queued.push({ request, resolve, reject });
    });
  }

  private async send(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    const ids = new Set(batch.map((q) => q.request.nodeId));
    const last = this.walker.running().every((id) => ids.has(id)) && !this.graph.edges.some((e) => ids.has(e.source));
    const begins = batch.some((q) => q.request.begin);
    const walked = this.walked.take();
    const actions = batch.map(({ request: { begin: _, ...request } }, i) => ({ ...request, ...(i === 0 ? { steps: walked, ...(begins ? { begin: true } : {}) } : { steps: [] }) }));
    let answer: BatchAnswer;
    try {
      answer = await local.runActions({ actions, finish: last });
    } catch (err) {
      // Nothing of it committed that a retry would not have found: its steps go with the next write.
      this.walked.record(...walked);
      for (const q of batch) q.reject(err);
      return;
    }
    if (answer.notRunning) {
      for (const q of batch) q.reject(new NotRunning());
      return;
    }
    this.ended = answer.finished;
    const [first] = answer.outcomes;
    if (first && 'failed' in first) this.walked.record(...walked);
    answer.outcomes.forEach((outcome, i) => ('failed' in outcome ? batch[i].reject(ApplicationFailure.nonRetryable(outcome.failed, outcome.failureType)) : batch[i].resolve(outcome)));
  }
}
