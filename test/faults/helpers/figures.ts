import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './deskflow.ts';

/** One row of the fault suite's table (docs/reliability.md). */
export type FaultFigures = {
  fault: string;
  accepted: number;
  completed: number;
  doubled: number;
  lost: number;
  stuck: number;
  /** From the part answering again to the first run that ended after it; null when nothing was down. */
  recoverySeconds: number | null;
};

const rowsFile = path.join(repoRoot, 'test/faults/results.jsonl');
const tableFile = path.join(repoRoot, 'test/faults/results.md');

/** Kept across the suite's files (each runs in a process of its own) until the suite ends. */
export function recordFigures(row: FaultFigures): void {
  fs.appendFileSync(rowsFile, JSON.stringify(row) + '\n');
}

export function startFigures(): void {
  fs.rmSync(rowsFile, { force: true });
}

/** The table of every row recorded in this run, printed and written to test/faults/results.md. */
export function finishFigures(): void {
  if (!fs.existsSync(rowsFile)) return;
  const rows: FaultFigures[] = fs.readFileSync(rowsFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  fs.rmSync(rowsFile, { force: true });
  const table = [
    '| Fault | Accepted | Completed | Doubled | Lost | Stuck | Work moves again after |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.fault} | ${r.accepted} | ${r.completed} | ${r.doubled} | ${r.lost} | ${r.stuck} | ${r.recoverySeconds === null ? '—' : `${r.recoverySeconds.toFixed(1)} s`} |`,
    ),
  ].join('\n');
  console.log(`\nFault suite figures:\n\n${table}\n`);
  fs.writeFileSync(tableFile, `${table}\n`);
}
