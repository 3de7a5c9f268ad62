// Graphs the console's unit tests share.
import type { WorkflowGraph } from '../../../src/graph/index.ts';
import { escalateUrgent } from '../../helpers/graphs.ts';

/** The tutorial's "Escalate urgent tickets" (docs/automations-tutorial.md), as the API stores it (no positions, unlabelled join edges). */
export const urgent = (): WorkflowGraph => escalateUrgent().workflowJson as unknown as WorkflowGraph;
