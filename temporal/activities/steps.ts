import type { StepRecord } from '../../src/executions/bookkeeping.ts';
import type { StepInput } from './types.ts';

/** A step as the bookkeeping records it (the workflow passes dates as ISO strings once serialized). */
export const toRecord = (step: StepInput): StepRecord => ({
  ...step,
  startedAt: new Date(step.startedAt),
  completedAt: step.completedAt === null ? null : new Date(step.completedAt),
  until: step.until ? new Date(step.until) : null,
});
