// The part of a run that needs no I/O: from the trigger through the conditions, up to the
// first action. Whoever creates an execution can walk it on the spot; when no action is
// reachable (every path ends at a condition that does not hold), the run is complete already
// and needs no workflow engine at all.

import { CalendarError } from './business-time.ts';
import { evaluateCondition, PatternError, type EvaluationOptions } from './conditions.ts';
import type { RunContext, WorkflowGraph } from './types.ts';
import { GraphWalker, nodeById } from './walker.ts';

/** A step of the trigger or of a condition: always `passed`, with the condition's outcome. */
export type PassedStep = { nodeId: string; status: 'passed'; result?: boolean };

/**
 * Walks the trigger and the conditions reachable without running an action. Returns their
 * steps in the order a run visits them, and whether some action became ready (then a run is
 * needed, and it walks the same nodes again itself). A condition whose `matches` pattern cannot
 * run, or whose calendar cannot be read, also needs the run: it fails the execution there,
 * saying why, where here it would fail whoever creates the execution (a relay delivering a
 * batch of events). `now` is the moment the execution is created.
 */
export function walkToFirstAction(graph: WorkflowGraph, context: RunContext, options: Pick<EvaluationOptions, 'now' | 'calendars'> = {}): { steps: PassedStep[]; reachesAction: boolean } {
  const nodes = nodeById(graph);
  const walker = new GraphWalker(graph);
  const steps: PassedStep[] = [];
  const ready = walker.start();
  while (ready.length > 0) {
    const node = nodes.get(ready.shift() as string)!;
    if (node.type === 'action') return { steps, reachesAction: true };
    if (node.type === 'condition') {
      let result: boolean;
      try {
        result = evaluateCondition(node.data, context, options);
      } catch (err) {
        if (err instanceof PatternError || err instanceof CalendarError) return { steps, reachesAction: true };
        throw err;
      }
      steps.push({ nodeId: node.id, status: 'passed', result });
      ready.push(...walker.complete(node.id, result));
    } else {
      steps.push({ nodeId: node.id, status: 'passed' });
      ready.push(...walker.complete(node.id));
    }
  }
  return { steps, reachesAction: false };
}
