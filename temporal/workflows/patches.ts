/**
 * The patch ledger: every `patched()` id the run workflows use, in one place. A patch keeps a
 * run that began before a change replaying on the code path it ran on (docs/automations.md,
 * "What a run sees"); each entry says when the change came, which saved history in
 * test/engine/histories replays the path from before it (test/engine/replay.test.ts), and how
 * an operator knows that no open run can still need that path.
 *
 * Retiring a patch, in two releases:
 *  1. once `openRunsQuery` counts 0 (`temporal workflow count --query '<openRunsQuery>'`; use
 *     the date the release carrying the patch was deployed if it is later than `since`), the
 *     `patched(id)` call becomes `deprecatePatch(id)` and the old path is deleted, with the
 *     history that replays it (its replay would now fail);
 *  2. once no open run began before that release, the `deprecatePatch` call goes too.
 * test/unit/workflows/patches.test.ts holds the ledger to the code and to the histories.
 *
 * The same holds for every workflow type that runs long: a ticket's service-level timers
 * (slaClocks, ./sla-clocks.ts) wait for weeks. They have no patch yet; their saved history is
 * sla-clocks-v1.json (test/engine/fixtures/record-sla-clocks-history.ts). A patch of theirs goes
 * here with an openRunsQuery on `WorkflowType="slaClocks"`; since a run continues as new at
 * least every 2,000 history events and ends when nothing is left to wait for, its older path
 * can be retired once no run older than the patch is open.
 */
export type PatchEntry = {
  /** The marker written into a run's history: never change it. */
  id: string;
  /** What the patched path does, that runs begun before it do not. */
  change: string;
  /** The commit that brought it (`git log -S'<id>'`), and its date (UTC). */
  commit: string;
  since: string;
  /**
   * The saved history (test/engine/histories) whose replay takes the path from before the
   * patch; null when no saved run took the older path (its code is then replayed by no test).
   */
  olderPathHistory: string | null;
  /** The visibility query that counts the open runs that may still take the older path. */
  openRunsQuery: string;
};

const openRunsBefore = (since: string) => `ExecutionStatus="Running" AND WorkflowType="runAutomation" AND StartTime < "${since}"`;

/** After a wait or an outbound request the run reads its ticket afresh. */
export const TICKET_AFTER_WAITS = 'ticket-after-waits';
/** When an action fails, the other branches settle and every node's outcome is recorded. */
export const BRANCHES_SETTLE = 'branches-settle-on-failure';
/** A send_reply delivers its mail (with a mailbox) as part of its step. */
export const REPLIES_BY_MAIL = 'send-reply-delivers-mail';
/** A run whose first effect is a ticket action begins in that action's local activity, not in one of its own. */
export const BEGIN_WITH_ACTION = 'begin-with-first-action';
/** Ticket actions reached at once share one local activity, which also ends the run when they are its last nodes. */
export const ACTIONS_TOGETHER = 'actions-together';

export const PATCHES: readonly PatchEntry[] = [
  {
    id: TICKET_AFTER_WAITS,
    change: 'after a wait or an outbound request the run records its steps and reads its ticket afresh (resumeRun)',
    commit: '28fd84ef56c13e96263a5d04591e1b510c105cb8',
    since: '2026-11-25T00:31:24Z',
    olderPathHistory: 'run-automation-v1.json',
    openRunsQuery: openRunsBefore('2026-11-25T00:31:24Z'),
  },
  {
    id: BRANCHES_SETTLE,
    change: 'a failed node cuts the waits of the other branches short, so that they settle and every step is recorded',
    commit: '28fd84ef56c13e96263a5d04591e1b510c105cb8',
    since: '2026-11-25T00:31:24Z',
    // No saved run failed before the patch; run-automation-v2-failure.json replays the patched path.
    olderPathHistory: null,
    openRunsQuery: openRunsBefore('2026-11-25T00:31:24Z'),
  },
  {
    id: REPLIES_BY_MAIL,
    change: "send_reply delivers its mail as a step of the run (deliverInRun), instead of by a delivery workflow of its own",
    commit: '99555aa082c61e2843368c679caf934c94d7ad6e',
    since: '2026-11-25T00:58:16Z',
    olderPathHistory: 'run-automation-v2.json',
    openRunsQuery: openRunsBefore('2026-11-25T00:58:16Z'),
  },
  {
    id: BEGIN_WITH_ACTION,
    change: 'a run whose first effect is a ticket action begins in that action (no beginRun local activity)',
    commit: '0b87baa443f3b270c51764980d484c6921d06758',
    since: '2026-11-25T03:41:27Z',
    olderPathHistory: 'run-automation-v3-mail.json',
    openRunsQuery: openRunsBefore('2026-11-25T03:41:27Z'),
  },
  {
    id: ACTIONS_TOGETHER,
    change: 'ticket actions reached at once share one runActions local activity, which ends the run when they are its last nodes',
    commit: '29ba0b3bb58790bd8826271056349fbc7a900df6',
    since: '2026-11-25T04:02:18Z',
    olderPathHistory: 'run-automation-v4-begin-with-action.json',
    openRunsQuery: openRunsBefore('2026-11-25T04:02:18Z'),
  },
];
