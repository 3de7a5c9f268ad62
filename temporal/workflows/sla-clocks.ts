import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { SlaActivities } from '../activities/types.ts';
import { slaInstantsChanged, type SlaInstant } from './signals.ts';

const { slaInstantsDue } = proxyActivities<SlaActivities>({
  startToCloseTimeout: '1 minute',
  // The database away is waited out: an instant fires late, never not at all.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  summary: 'write the sla_warning / sla_breached events that are due',
});

export type SlaClocksInput = { ticketId: string; workspaceId: string; revision: number; instants: SlaInstant[] };

/** History events after which the run goes on as a new one (with what it still waits for). */
const HISTORY_LIMIT = 2_000;

const key = (i: SlaInstant) => `${i.at} ${i.kind} ${i.metric} ${i.cycle}`;
const nearestFirst = (a: SlaInstant, b: SlaInstant) => Date.parse(a.at) - Date.parse(b.at);

/**
 * The service-level timers of one ticket (docs/sla.md, "Timers"), id `SLA clocks · ticket <id>`.
 * It holds the instants the ticket's running targets fire at, as the relay last signalled them
 * (slaInstantsChanged, the newest revision wins), sleeps on one durable timer until the nearest,
 * and then asks the activity slaInstantsDue to act on those that have come: the activity checks
 * each against PostgreSQL and writes its event once. A new signal wakes it to look again. It
 * ends when nothing is left to wait for (the relay starts it again when a target starts), and
 * goes on as a new run before its history grows long. Deadlines in open time come computed from
 * outside: the workflow only waits.
 */
export async function slaClocks(input: SlaClocksInput): Promise<string> {
  let revision = input.revision;
  let pending = [...input.instants];
  let changed = false;
  setHandler(slaInstantsChanged, (update) => {
    if (update.revision < revision) return;
    revision = update.revision;
    pending = [...update.instants];
    changed = true;
  });
  let fired = 0;
  for (;;) {
    if (pending.length === 0) return `${fired} instant(s) acted on; nothing left to wait for`;
    pending.sort(nearestFirst);
    const wait = Date.parse(pending[0].at) - Date.now();
    changed = false;
    // Woken by a signal, look again at what it brought.
    if (wait > 0 && (await condition(() => changed, wait))) continue;
    const due = pending.filter((i) => Date.parse(i.at) <= Date.now());
    await slaInstantsDue({ ticketId: input.ticketId, instants: due });
    const done = new Set(due.map(key));
    pending = pending.filter((i) => !done.has(key(i)));
    fired += due.length;
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > HISTORY_LIMIT) {
      return continueAsNew<typeof slaClocks>({ ticketId: input.ticketId, workspaceId: input.workspaceId, revision, instants: pending });
    }
  }
}
