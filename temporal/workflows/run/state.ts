import { CancellationScope } from '@temporalio/workflow';
import { GraphWalker, nodeById, type GraphNode, type RunContext } from '../../../src/graph/index.ts';
import type { RunGraphInput, StepInput } from '../../activities/types.ts';
import { RunStart } from './start.ts';
import { Together } from './together.ts';

/** A node as the run visits it: when it started and its place in the walk. */
export type Visit = { node: GraphNode; startedAt: Date; seq: number };

/**
 * What one run of runAutomation knows while it walks its graph: its input, its ticket as last
 * read, the steps not yet written, its clock, its waits, the node that failed, the nodes it
 * visited, how it begins and the actions it takes together. Parallel branches share it.
 */
export class RunState {
  readonly input: RunGraphInput;
  readonly executionId: string;
  readonly nodes: Map<string, GraphNode>;
  readonly walker: GraphWalker;
  /** The run's own scope: a cancellation of the run itself, not of one wait. */
  readonly root = CancellationScope.current();
  /** What templates and conditions read; the ticket is replaced by each action and after waits. */
  context: RunContext;
  /** Customer replies signalled so far (message id → when written, if said). */
  readonly replies = new Map<string, number | undefined>();
  /** Approvals whose decision was signalled (request_approval then reads the outcome). */
  readonly approvalsDecided = new Set<string>();
  /** Steps walked since the run's last write: they go with the next write that happens anyway. */
  private readonly unrecorded: StepInput[] = [];
  /**
   * Workflow time stands still while local activities of one task run; their completion
   * times come from the worker's clock. A step never starts before what led to it ended.
   */
  clock = 0;
  /** The node whose failure ends the run, once one failed; waits elsewhere are then cut short. */
  failedNode: string | null = null;
  /**
   * What the run waits for, shown as its current details in the Web UI (branches may wait at
   * once), each with the scope that a failure elsewhere cancels (null: never cut short).
   */
  readonly waits = new Map<string, CancellationScope | null>();
  /** Nodes visited so far. */
  readonly visited = new Set<string>();
  /** How many visits so far: a node's `seq` is its place in the walk. */
  private visits = 0;
  /** How the run begins (once, before its first effect). */
  readonly start: RunStart;
  /** Ticket actions reached at once, taken together (and, when they are its last nodes, ending the run). */
  readonly together: Together;

  constructor(input: RunGraphInput) {
    this.input = input;
    this.executionId = input.executionId;
    this.context = input.context;
    this.nodes = nodeById(input.graph);
    this.walker = new GraphWalker(input.graph);
    this.start = new RunStart(input.executionId, () => this.take());
    this.together = new Together(input.graph, this.walker, this);
  }

  /** The run's time: the workflow's, never before the last write it saw complete. */
  now(): Date {
    return new Date(Math.max(Date.now(), this.clock));
  }

  /** A node is visited: its place in the walk. */
  visit(nodeId: string): number {
    this.visited.add(nodeId);
    return ++this.visits;
  }

  /** A step to go with the next write. */
  record(...steps: StepInput[]): void {
    this.unrecorded.push(...steps);
  }

  /** The steps walked since the last write, handed to the write about to happen. */
  take(): StepInput[] {
    return this.unrecorded.splice(0);
  }

  /** The ticket as an action or a read after a wait answered it. */
  ticketIs(ticket: Record<string, unknown> | null | undefined): void {
    if (ticket) this.context = { ...this.context, ticket };
  }
}
