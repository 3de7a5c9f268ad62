import type { StepRecord } from '../../src/executions/bookkeeping.ts';
import type { StepStatus } from '../../src/executions/entity.ts';

/** A step as the workflow passes it (dates arrive as ISO strings once serialized). */
export type StepInput = {
  nodeId: string;
  seq?: number;
  status: StepStatus;
  result?: unknown;
  startedAt: Date | string;
  completedAt: Date | string | null;
  error?: string | null;
  /** Of a wait: when it ends. */
  until?: Date | string | null;
};

/** A step as the bookkeeping records it. */
export const toRecord = (step: StepInput): StepRecord => ({
  ...step,
  startedAt: new Date(step.startedAt),
  completedAt: step.completedAt === null ? null : new Date(step.completedAt),
  until: step.until ? new Date(step.until) : null,
});
