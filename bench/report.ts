import fs from 'node:fs/promises';
import path from 'node:path';
import { renderChart } from './chart.ts';
import { repoRoot } from './processes.ts';
import { describeRun, TARGETS, type Results, type SummaryRow } from './results.ts';
import { describeCpu } from './engine/cost.ts';

const n0 = (x: number) => x.toLocaleString('en', { maximumFractionDigits: 0 });
const n1 = (x: number) => x.toLocaleString('en', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const ms = (x: number) => (x < 10 ? `${n1(x)} ms` : `${n0(x)} ms`);
const s1 = (x: number) => `${n1(x / 1000)} s`;
const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
const times = (x: number) => `${x.toFixed(2)}×`;
const mb = (x: number | null) => (x === null ? '—' : `${n0(x)} MB`);
const size = (x: number) => (x >= 1_000_000 ? `${x / 1_000_000}M` : x >= 1_000 ? `${x / 1_000}k` : String(x));

export function summarize(r: Results): SummaryRow[] {
  const rows: SummaryRow[] = [];
  for (const q of r.requests) {
    const vsSql = ratio(q.deskflow.max.rps, q.sql.max.rps);
    const hasTarget = q.id === 'create_ticket' || q.id.startsWith('list_');
    rows.push({
      measure: `${q.label}: requests/s (${r.setup.concurrency} callers)`,
      deskflow: n0(q.deskflow.max.rps),
      ceiling: `pg ${n0(q.sql.max.rps)} · http ${n0(q.bareHttp.max.rps)}`,
      ratio: `${times(vsSql)} · ${times(ratio(q.deskflow.max.rps, q.bareHttp.max.rps))}`,
      target: hasTarget ? `≥ ${TARGETS.requestsVsSql}× pg` : '—',
      met: hasTarget ? vsSql >= TARGETS.requestsVsSql : null,
      brief: `${n0(q.deskflow.max.rps)} of ${n0(q.sql.max.rps)} req/s: ${times(vsSql)}`,
    });
    if (q.id === 'create_ticket') {
      rows.push({
        measure: `${q.label}: p99 at half of max (${n0(q.halfRate)}/s)`,
        deskflow: ms(q.deskflow.halfRate.p99Ms),
        ceiling: `pg ${ms(q.sql.halfRate.p99Ms)} · http ${ms(q.bareHttp.halfRate.p99Ms)}`,
        ratio: '',
        target: `≤ ${TARGETS.halfRateP99Ms} ms`,
        met: q.deskflow.halfRate.p99Ms <= TARGETS.halfRateP99Ms,
      });
    }
  }
  if (r.list.length >= 2) {
    const small = r.list[0];
    const big = r.list.at(-1)!;
    for (const page of ['firstPage', 'deepPage'] as const) {
      const growth = ratio(big[page].deskflow.p50Ms, small[page].deskflow.p50Ms);
      rows.push({
        measure: `list ${page === 'firstPage' ? 'page 1' : `page ${r.setup.profile.deepPage}`}: p50 at ${size(big.tickets)} vs ${size(small.tickets)} tickets`,
        deskflow: `${ms(big[page].deskflow.p50Ms)} vs ${ms(small[page].deskflow.p50Ms)}`,
        ceiling: `pg ${ms(big[page].sql.p50Ms)} vs ${ms(small[page].sql.p50Ms)}`,
        ratio: times(growth),
        target: `≤ ${TARGETS.listGrowth}×`,
        met: growth <= TARGETS.listGrowth,
        brief: `${ms(big[page].deskflow.p50Ms)} vs ${ms(small[page].deskflow.p50Ms)}: ${times(growth)}`,
      });
    }
  }
  const filters = r.list.at(-1)?.filters ?? [];
  const held = filters.filter((f) => f.targetMs !== null);
  if (held.length > 0) {
    const worst = held.reduce((a, b) => (b.deskflow.p50Ms > a.deskflow.p50Ms ? b : a));
    rows.push({
      measure: `list page 1 at ${size(r.list.at(-1)!.tickets)} tickets, each filter (${held.length}): slowest p50`,
      deskflow: `${ms(worst.deskflow.p50Ms)} (${worst.label})`,
      ceiling: '',
      ratio: '',
      target: `≤ ${TARGETS.listFilterP50Ms} ms`,
      met: held.every((f) => f.deskflow.p50Ms <= (f.targetMs ?? Infinity)),
      brief: `slowest ${ms(worst.deskflow.p50Ms)}`,
    });
  }
  const e = r.engine;
  if (e) {
    const vsNothing = ratio(e.burst.executionsPerSecond, e.baselines.doNothing.burst.perSecond);
    rows.push({
      measure: `automations: executions/s, burst of ${e.burst.tickets}`,
      deskflow: n1(e.burst.executionsPerSecond),
      ceiling: `do-nothing ${n1(e.baselines.doNothing.burst.perSecond)} · activity/action ${n1(e.baselines.activityPerAction.burst.perSecond)}`,
      ratio: `${times(vsNothing)} · ${times(ratio(e.burst.executionsPerSecond, e.baselines.activityPerAction.burst.perSecond))}`,
      target: `≥ ${TARGETS.engineVsDoNothing}× do-nothing`,
      met: e.burst.completed > 0 && vsNothing >= TARGETS.engineVsDoNothing,
      brief: `${n1(e.burst.executionsPerSecond)} of ${n1(e.baselines.doNothing.burst.perSecond)}/s: ${times(vsNothing)}`,
    });
    rows.push({
      measure: 'automations: CPU per execution of the burst',
      deskflow: describeCpu(e.cost.cpu.msPerExecution, ms),
      ceiling: `do-nothing ${describeCpu(e.baselines.doNothing.burst.cpuMsPerRun, ms)}`,
      ratio: '',
      target: '—',
      met: null,
    });
    const sdk = e.cost.sdk;
    const st = e.cost.stages;
    rows.push({
      measure: 'automations: per execution of the burst, in the worker',
      deskflow:
        `${n1(sdk.workflowTasksPerExecution)} workflow tasks (${ms(sdk.workflowTaskMs)} each), ${n1(sdk.localActivitiesPerExecution)} local activities (${ms(sdk.localActivityMs)} each); ` +
        `${n1(e.cost.db.transactionsPerExecution)} PostgreSQL transactions, ${n1(e.cost.db.rowsWrittenPerExecution)} rows written; ` +
        `p50 ticket → relay ${ms(st.relayP50Ms)} → first action ${ms(st.toFirstActionP50Ms)} → done ${ms(st.actionsP50Ms)}`,
      ceiling: '',
      ratio: '',
      target: '—',
      met: null,
    });
    const s = e.sustained;
    rows.push({
      measure: `automations: ${n0(s.offeredRate)} tickets/s for ${n0(s.seconds)} s`,
      deskflow: `${n1(s.completionRate)}/s, outbox lag ${ms(s.outbox.firstQuarterMs)} → ${ms(s.outbox.lastQuarterMs)}`,
      ceiling: '',
      ratio: '',
      target: `≥ ${TARGETS.sustainedPerSecond}/s, lag flat`,
      // The offered rate is the target: met when (nearly) all of it completes at pace and the lag stays flat.
      met: s.offeredRate >= TARGETS.sustainedPerSecond && s.completionRate >= 0.95 * s.offeredRate && s.unfinished === 0 && !s.outbox.growing,
    });
    rows.push({
      measure: `automations: ticket → completed at ${n0(e.latency.offeredRate)}/s, p50 · p99`,
      deskflow: e.latency.completed === 0 ? 'none completed' : `${ms(e.latency.latency.p50Ms)} · ${ms(e.latency.latency.p99Ms)}`,
      ceiling: `do-nothing ${ms(e.baselines.doNothing.latency.p50Ms)} · activity/action ${ms(e.baselines.activityPerAction.latency.p50Ms)}`,
      ratio: '',
      target: `p50 ≤ ${TARGETS.ticketToCompletedP50Ms} ms`,
      met: e.latency.completed > 0 && e.latency.latency.p50Ms <= TARGETS.ticketToCompletedP50Ms,
    });
    rows.push({
      measure: 'worker ready: first start · after SIGKILL',
      deskflow: `${s1(e.workerStart.readyMs)} · ${s1(e.workerRestart.readyMs)}`,
      ceiling: '',
      ratio: '',
      target: `≤ ${s1(TARGETS.workerReadyMs)}`,
      met: Math.max(e.workerStart.readyMs, e.workerRestart.readyMs) <= TARGETS.workerReadyMs,
    });
    rows.push({
      measure: 'worker spawn → first automation done',
      deskflow: `${s1(e.workerStart.firstAutomationMs)} · ${s1(e.workerRestart.firstAutomationMs)}`,
      ceiling: '',
      ratio: '',
      target: '—',
      met: null,
    });
  }
  const o = r.oneProcess;
  if (o) {
    rows.push({
      measure: `npm start (one process), create ticket: p99 at half of max (${n0(o.halfRate)}/s of ${n0(o.createMax.rps)})`,
      deskflow: ms(o.createHalfRate.p99Ms),
      ceiling: '',
      ratio: '',
      target: `≤ ${TARGETS.halfRateP99Ms} ms`,
      met: o.createHalfRate.requests > 0 && o.createHalfRate.p99Ms <= TARGETS.halfRateP99Ms,
    });
    const vsNothing = e ? ratio(o.burst.executionsPerSecond, e.baselines.doNothing.burst.perSecond) : null;
    rows.push({
      measure: `npm start (one process), automations: executions/s, burst of ${o.burst.tickets}`,
      deskflow: n1(o.burst.executionsPerSecond),
      ceiling: e ? `do-nothing ${n1(e.baselines.doNothing.burst.perSecond)}` : '',
      ratio: vsNothing === null ? '' : times(vsNothing),
      target: '—',
      met: null,
    });
    rows.push({
      measure: `npm start (one process) RSS: idle · during the burst · ${n0(r.setup.profile.settleMs / 1000)} s after`,
      deskflow: `${mb(o.rss.idleMb)} · ${mb(o.rss.peakMb)} · ${mb(o.rss.afterBurstMb)}`,
      ceiling: '',
      ratio: '',
      target: `< ${TARGETS.oneProcessRssMb} MB after`,
      met: o.rss.afterBurstMb === null ? null : o.rss.afterBurstMb < TARGETS.oneProcessRssMb,
    });
  }
  const m = r.memory;
  rows.push({
    measure: 'API RSS: idle · under load',
    deskflow: `${mb(m.apiIdleMb)} · ${mb(m.apiPeakMb)}`,
    ceiling: '',
    ratio: '',
    target: `< ${TARGETS.apiRssMb} MB`,
    met: m.apiPeakMb === null ? null : m.apiPeakMb < TARGETS.apiRssMb,
  });
  if (e) {
    rows.push({
      measure: 'worker RSS: idle · under load · after',
      deskflow: `${mb(m.workerIdleMb)} · ${mb(m.workerPeakMb)} · ${mb(m.workerAfterLoadMb)}`,
      ceiling: '',
      ratio: '',
      target: `< ${TARGETS.workerRssMb} MB`,
      met: m.workerPeakMb === null ? null : m.workerPeakMb < TARGETS.workerRssMb,
    });
  }
  return rows;
}

/** Requests in detail: every target's maximum and its p99 at half of Deskflow's maximum. */
function requestRows(r: Results): string[][] {
  return r.requests.map((q) => [
    q.label,
    `${n0(q.deskflow.max.rps)} (${ms(q.deskflow.max.p50Ms)} · ${ms(q.deskflow.max.p99Ms)})`,
    `${n0(q.sql.max.rps)} (${ms(q.sql.max.p50Ms)} · ${ms(q.sql.max.p99Ms)})`,
    `${n0(q.bareHttp.max.rps)} (${ms(q.bareHttp.max.p50Ms)} · ${ms(q.bareHttp.max.p99Ms)})`,
    `${n0(q.halfRate)}/s: ${ms(q.deskflow.halfRate.p99Ms)} · ${ms(q.sql.halfRate.p99Ms)} · ${ms(q.bareHttp.halfRate.p99Ms)}`,
  ]);
}
const REQUEST_HEADER = ['Request', 'Deskflow req/s (p50 · p99)', 'SQL via pg', 'bare node:http', 'p99 at half of max: Deskflow · pg · http'];

function listRows(r: Results): string[][] {
  return r.list.map((p) => [
    size(p.tickets),
    `${ms(p.firstPage.deskflow.p50Ms)} · ${ms(p.firstPage.deskflow.p99Ms)}`,
    `${ms(p.firstPage.sql.p50Ms)} · ${ms(p.firstPage.sql.p99Ms)}`,
    `${ms(p.deepPage.deskflow.p50Ms)} · ${ms(p.deepPage.deskflow.p99Ms)}`,
    `${ms(p.deepPage.sql.p50Ms)} · ${ms(p.deepPage.sql.p99Ms)}`,
  ]);
}
const listHeader = (r: Results) => ['Tickets', 'page 1: Deskflow p50 · p99', 'page 1: SQL via pg', `page ${r.setup.profile.deepPage}: Deskflow`, `page ${r.setup.profile.deepPage}: SQL via pg`];

function filterRows(r: Results): string[][] {
  return (r.list.at(-1)?.filters ?? []).map((f) => [
    f.label,
    n0(f.total),
    `${ms(f.deskflow.p50Ms)} · ${ms(f.deskflow.p99Ms)}`,
    f.targetMs === null ? '—' : `≤ ${f.targetMs} ms`,
    f.targetMs === null ? '' : metText(f.deskflow.p50Ms <= f.targetMs),
  ]);
}
const filterHeader = (r: Results) => [`Filter, page 1 of ${size(r.list.at(-1)?.tickets ?? 0)}`, 'Total', 'Deskflow p50 · p99', 'Target', 'Met'];

const SUMMARY_HEADER = ['Measure', 'Deskflow', 'Ceiling', 'Ratio', 'Target', 'Met'];
const metText = (met: boolean | null) => (met === null ? '' : met ? 'yes' : 'NO');
const summaryCells = (rows: SummaryRow[]) => rows.map((x) => [x.measure, x.deskflow, x.ceiling, x.ratio, x.target, metText(x.met)]);

function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The text for stdout, and the Markdown docs/performance.md shows. */
export function renderTables(r: Results, rows: SummaryRow[], markdown: boolean): string {
  const table = markdown ? markdownTable : textTable;
  const parts = [markdown ? `_${describeRun(r)}_` : describeRun(r), '', table(SUMMARY_HEADER, summaryCells(rows))];
  if (r.requests.length > 0) parts.push('', table(REQUEST_HEADER, requestRows(r)));
  if (r.list.length > 0) parts.push('', table(listHeader(r), listRows(r)));
  if (r.list.at(-1)?.filters?.length) parts.push('', table(filterHeader(r), filterRows(r)));
  const notes = harnessNotes(r);
  if (notes.length > 0) parts.push('', ...notes.map((n) => (markdown ? `- ${n}` : `Note: ${n}`)));
  if (r.profile === 'quick') parts.push('', 'Quick run: it checks that the harness works; its figures mean nothing.');
  return parts.join('\n');
}

/** What a reader of the figures must know: measures that shared the engine with unfinished work. */
export function harnessNotes(r: Results): string[] {
  const notes: string[] = [];
  if (!r.engine) return notes;
  for (const [name, run] of Object.entries({ burst: r.engine.burst, sustained: r.engine.sustained, latency: r.engine.latency })) {
    if (run.unfinished > 0) notes.push(`${run.unfinished} of ${run.tickets} automations of the ${name} measure had not finished ${r.setup.profile.drainTimeoutMs / 1000} s after their tickets.`);
    if (run.backlogAtStart > 0) notes.push(`The ${name} measure began with ${run.backlogAtStart} executions of the one before still unfinished: its figures are too low.`);
  }
  if (r.engine.baselines.deskflowBacklogAtStart > 0) {
    notes.push(`The baselines ran while ${r.engine.baselines.deskflowBacklogAtStart} Deskflow executions were still unfinished: their figures are too low.`);
  }
  return notes;
}

/** What makes the figures untrustworthy: failed requests or automations (and, in a quick run, automations that never finished). */
export function harnessErrors(r: Results): string[] {
  const errors: string[] = [];
  for (const q of r.requests) {
    for (const [target, f] of Object.entries({ Deskflow: q.deskflow, 'SQL via pg': q.sql, 'bare node:http': q.bareHttp })) {
      for (const run of [f.max, f.halfRate]) if (run.errors > 0) errors.push(`${q.label} on ${target}: ${run.errors} errors, first: ${run.firstError}`);
      // The open loop waits for every request it sent: none answering means the target does not work.
      if (f.halfRate.requests === 0) errors.push(`${q.label} on ${target}: no request answered`);
    }
  }
  for (const p of r.list) {
    for (const run of [p.firstPage.deskflow, p.firstPage.sql, p.deepPage.deskflow, p.deepPage.sql]) {
      if (run.errors > 0) errors.push(`list of ${p.tickets} tickets: ${run.errors} errors, first: ${run.firstError}`);
    }
    for (const f of p.filters ?? []) if (f.deskflow.errors > 0) errors.push(`list of ${p.tickets} tickets, ${f.label}: ${f.deskflow.errors} errors, first: ${f.deskflow.firstError}`);
  }
  if (r.oneProcess) {
    const o = r.oneProcess;
    for (const run of [o.createMax, o.createHalfRate]) if (run.errors > 0) errors.push(`npm start, create ticket: ${run.errors} errors, first: ${run.firstError}`);
    if (o.burst.failed > 0) errors.push(`npm start, automations: ${o.burst.failed} executions failed`);
    if (r.profile === 'quick' && o.burst.unfinished > 0) errors.push(`npm start, automations: ${o.burst.unfinished} executions did not finish`);
  }
  if (r.engine) {
    for (const [name, run] of Object.entries({ burst: r.engine.burst, sustained: r.engine.sustained, latency: r.engine.latency })) {
      if (run.failed > 0) errors.push(`automations (${name}): ${run.failed} executions failed`);
      if (r.profile === 'quick' && run.unfinished > 0) errors.push(`automations (${name}): ${run.unfinished} executions did not finish`);
    }
    const { doNothing, activityPerAction } = r.engine.baselines;
    for (const [name, b] of Object.entries({ doNothing, activityPerAction })) if (b.latency.errors > 0) errors.push(`${name} baseline: ${b.latency.firstError}`);
  }
  return errors;
}

/**
 * Writes the JSON, the Markdown tables and the SVG chart. A full run of every section writes
 * bench/results/<time>.json and the latest.* files docs/performance.md shows; other runs go to
 * bench/results/scratch/ (not committed).
 */
export async function writeResults(r: Results, opts: { latest: boolean }): Promise<{ table: string; files: string[]; errors: string[] }> {
  const rows = summarize(r);
  const results: Results = { ...r, summary: rows };
  const stamp = r.startedAt.replace(/\.\d+Z$/, 'Z').replaceAll(':', '-');
  const dir = path.join(repoRoot, 'bench', 'results', ...(opts.latest ? [] : ['scratch']));
  await fs.mkdir(dir, { recursive: true });
  const json = JSON.stringify(results, null, 2) + '\n';
  const base = path.join(dir, opts.latest ? 'latest' : `${stamp}-${r.profile}`);
  const files: Array<[string, string]> = [
    ...(opts.latest ? [[path.join(dir, `${stamp}.json`), json] as [string, string]] : []),
    [`${base}.json`, json],
    [`${base}.md`, renderTables(results, rows, true) + '\n'],
    [`${base}.svg`, renderChart(results, rows)],
  ];
  for (const [file, text] of files) await fs.writeFile(file, text);
  if (opts.latest && (await updatePerformancePage(results, rows))) files.push([PERFORMANCE_PAGE, '']);
  return { table: renderTables(results, rows, false), files: files.map(([f]) => path.relative(repoRoot, f)), errors: harnessErrors(results) };
}

/** The page whose bench table a full run rewrites. */
const PERFORMANCE_PAGE = path.join(repoRoot, 'docs', 'performance.md');
const TABLE_BEGIN = '<!-- bench:begin (written by npm run bench) -->';
const TABLE_END = '<!-- bench:end -->';

/** Puts the summary of a full run between the bench markers of docs/performance.md; false when it has none. */
async function updatePerformancePage(r: Results, rows: SummaryRow[]): Promise<boolean> {
  const page = await fs.readFile(PERFORMANCE_PAGE, 'utf8').catch(() => '');
  const begin = page.indexOf(TABLE_BEGIN);
  const end = page.indexOf(TABLE_END);
  if (begin < 0 || end < begin) return false;
  const notes = harnessNotes(r).map((n) => `- ${n}`);
  const block = [TABLE_BEGIN, '', `_${describeRun(r)}_`, '', markdownTable(SUMMARY_HEADER, summaryCells(rows)), ...(notes.length ? ['', ...notes] : []), '', TABLE_END];
  await fs.writeFile(PERFORMANCE_PAGE, page.slice(0, begin) + block.join('\n') + page.slice(end + TABLE_END.length));
  return true;
}
