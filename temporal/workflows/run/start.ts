import { patched } from '@temporalio/workflow';
import { BEGIN_WITH_ACTION } from '../patches.ts';
import type { StepInput } from '../../activities/types.ts';
import { local } from './proxies.ts';

/** The execution ended before it began (cancelled meanwhile): nothing to run, nothing to record. */
export class NotRunning extends Error {}

/**
 * How a run begins: pending → running once, with the steps walked so far, before its first
 * effect. Either in a local activity of its own (beginRun), or, since BEGIN_WITH_ACTION, in the
 * local activity of its first ticket action. A run that was cancelled before it began does
 * nothing (NotRunning).
 */
export class RunStart {
  private readonly executionId: string;
  /** The steps walked so far, which the beginning records. */
  private readonly walked: () => StepInput[];
  private beginning: Promise<void> | null = null;
  /**
   * The ticket actions about to run are to begin the run themselves: the run has not begun (nor
   * is beginning), and it is not a run that began the older way. Every action started before
   * one of them came back running carries it (parallel branches), each harmlessly.
   */
  private withAction = false;

  constructor(executionId: string, walked: () => StepInput[]) {
    this.executionId = executionId;
    this.walked = walked;
  }

  /**
   * Before a node's first effect. A ticket action (`ticketAction`) of a run not yet begun begins
   * it itself: the answer is 'with-action', and the action carries `begin`. Otherwise the run
   * begins now, in its own local activity, unless it has begun: the answer is that promise.
   */
  before(ticketAction: boolean): 'with-action' | Promise<void> {
    if (ticketAction && this.beginsWithAction()) return 'with-action';
    return this.begin();
  }

  /** The run begins in its own local activity (once), unless it began already. */
  begin(): Promise<void> {
    return (this.beginning ??= local.beginRun({ executionId: this.executionId, steps: this.walked() }).then((status) => {
      if (status !== 'running') throw new NotRunning();
    }));
  }

  /** An action that carried `begin` came back: the run is running. */
  begunByAction(): void {
    this.withAction = false;
    this.beginning ??= Promise.resolve();
  }

  /** Nothing has begun the run yet, nor is about to: the walk is still deciding. */
  get undecided(): boolean {
    return this.beginning === null && !this.withAction;
  }

  private beginsWithAction(): boolean {
    return this.withAction || (this.beginning === null && (this.withAction = patched(BEGIN_WITH_ACTION)));
  }
}
