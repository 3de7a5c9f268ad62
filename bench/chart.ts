import { describeRun, TARGETS, type Results, type SummaryRow } from './results.ts';

/**
 * The results as one hand-drawn SVG (no library, no script, no web font): request throughput
 * relative to the ceilings, list latency against workspace size, automation rates against
 * the plain-Temporal baselines, and every target met or not.
 */
const W = 1000;
const BLUE = '#2563eb';
const LIGHT = '#93c5fd';
const ORANGE = '#ea580c';
const GREY = '#6b7280';
const RED = '#dc2626';
const GREEN = '#16a34a';

type Box = { x: number; y: number; w: number; h: number };
const TARGET_ROW = 34;

export function renderChart(r: Results, rows: SummaryRow[]): string {
  const targetRows = rows.filter((row) => row.met !== null);
  const bottomY = 400;
  const targetsHeight = 40 + targetRows.length * TARGET_ROW;
  const height = bottomY + Math.max(250, targetsHeight) + 70;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${height}" fill="#ffffff"/>`,
    text(20, 32, `Deskflow performance${r.profile === 'quick' ? ' (quick run: figures mean nothing)' : ''}`, { size: 20, weight: 'bold' }),
    text(20, 52, `${r.startedAt.slice(0, 10)} · commit ${r.machine.commit} · ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGb} GB · Node ${r.machine.node}`, { fill: GREY }),
    requestsPanel(r, { x: 20, y: 80, w: 470, h: 290 }),
    listPanel(r, { x: 520, y: 80, w: 460, h: 290 }),
    enginePanel(r, { x: 20, y: bottomY, w: 470, h: 250 }),
    targetsPanel(targetRows, { x: 520, y: bottomY, w: 460, h: targetsHeight }),
    ...wrap(describeRun(r), 150).map((line, i) => text(20, height - 40 + i * 15, line, { fill: GREY, size: 11 })),
    '</svg>',
  ];
  return parts.join('\n') + '\n';
}

function requestsPanel(r: Results, b: Box): string {
  const out = [title(b, `Requests/s relative to the ceilings (${r.setup.concurrency} callers)`)];
  if (r.requests.length === 0) return out.concat(text(b.x, b.y + 40, 'not measured', { fill: GREY })).join('\n');
  const labelW = 150;
  const barX = b.x + labelW;
  const barW = b.w - labelW - 50;
  const ratios = r.requests.flatMap((q) => [q.deskflow.max.rps / q.sql.max.rps, q.deskflow.max.rps / q.bareHttp.max.rps]);
  const scale = Math.max(1, ...ratios.filter(Number.isFinite)) * 1.05;
  const px = (v: number) => barX + (Math.min(v, scale) / scale) * barW;
  const rowH = (b.h - 70) / r.requests.length;
  r.requests.forEach((q, i) => {
    const y = b.y + 34 + i * rowH;
    const vsSql = q.deskflow.max.rps / q.sql.max.rps;
    const vsHttp = q.deskflow.max.rps / q.bareHttp.max.rps;
    out.push(text(b.x, y + 13, q.label));
    out.push(text(b.x, y + 27, `${Math.round(q.deskflow.max.rps)} of ${Math.round(q.sql.max.rps)} req/s`, { fill: GREY, size: 11 }));
    out.push(rect(barX, y + 3, px(vsSql) - barX, 13, BLUE), text(px(vsSql) + 4, y + 14, `${vsSql.toFixed(2)}×`, { size: 11 }));
    out.push(rect(barX, y + 18, px(vsHttp) - barX, 9, LIGHT), text(px(vsHttp) + 4, y + 27, `${vsHttp.toFixed(2)}×`, { size: 10, fill: GREY }));
  });
  const top = b.y + 30;
  const bottom = b.y + 34 + r.requests.length * rowH;
  out.push(line(barX, top, barX, bottom, '#9ca3af'));
  out.push(line(px(1), top, px(1), bottom, '#d1d5db', '2 3'));
  out.push(line(px(TARGETS.requestsVsSql), top, px(TARGETS.requestsVsSql), bottom, RED, '5 3'));
  out.push(text(px(TARGETS.requestsVsSql) + 3, bottom + 14, `target ${TARGETS.requestsVsSql}× (create, list)`, { fill: RED, size: 11 }));
  out.push(text(px(1), top - 4, '1×', { fill: GREY, size: 11, anchor: 'middle' }));
  out.push(legend(b.x, b.y + b.h - 12, [[BLUE, 'vs the same SQL via pg, no HTTP'], [LIGHT, 'vs a bare node:http server running it']]));
  return out.join('\n');
}

function listPanel(r: Results, b: Box): string {
  const out = [title(b, 'List latency (p50, one caller) as the workspace grows')];
  if (r.list.length === 0) return out.concat(text(b.x, b.y + 40, 'not measured', { fill: GREY })).join('\n');
  const plot = { x: b.x + 50, y: b.y + 40, w: b.w - 120, h: b.h - 105 };
  const series: Array<{ name: string; color: string; dash?: string; values: number[] }> = [
    { name: 'Deskflow, page 1', color: BLUE, values: r.list.map((p) => p.firstPage.deskflow.p50Ms) },
    { name: `Deskflow, page ${r.setup.profile.deepPage}`, color: ORANGE, values: r.list.map((p) => p.deepPage.deskflow.p50Ms) },
    { name: 'SQL via pg, page 1', color: BLUE, dash: '4 3', values: r.list.map((p) => p.firstPage.sql.p50Ms) },
    { name: `SQL via pg, page ${r.setup.profile.deepPage}`, color: ORANGE, dash: '4 3', values: r.list.map((p) => p.deepPage.sql.p50Ms) },
  ];
  const limit = TARGETS.listGrowth * r.list[0].firstPage.deskflow.p50Ms;
  const max = Math.max(limit, ...series.flatMap((s) => s.values)) * 1.1;
  const logs = r.list.map((p) => Math.log10(p.tickets));
  const xOf = (i: number) => plot.x + (logs.length === 1 ? plot.w / 2 : ((logs[i] - logs[0]) / (logs.at(-1)! - logs[0])) * plot.w);
  const yOf = (v: number) => plot.y + plot.h - (v / max) * plot.h;
  out.push(line(plot.x, plot.y, plot.x, plot.y + plot.h, '#9ca3af'), line(plot.x, plot.y + plot.h, plot.x + plot.w, plot.y + plot.h, '#9ca3af'));
  for (const v of [0, max / 2, max]) out.push(text(plot.x - 6, yOf(v) + 4, `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`, { anchor: 'end', size: 10, fill: GREY }));
  r.list.forEach((p, i) => out.push(text(xOf(i), plot.y + plot.h + 16, `${p.tickets.toLocaleString('en')}`, { anchor: 'middle', size: 11 })));
  out.push(text(plot.x + plot.w / 2, plot.y + plot.h + 30, 'tickets in the workspace (log scale)', { anchor: 'middle', size: 11, fill: GREY }));
  out.push(line(plot.x, yOf(limit), plot.x + plot.w, yOf(limit), RED, '5 3'));
  out.push(text(plot.x + 4, yOf(limit) - 4, `target for page 1: ≤ ${TARGETS.listGrowth}× its p50 at ${r.list[0].tickets.toLocaleString('en')}`, { size: 11, fill: RED }));
  for (const s of series) {
    const points = s.values.map((v, i) => `${xOf(i).toFixed(1)},${yOf(v).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    s.values.forEach((v, i) => out.push(`<circle cx="${xOf(i).toFixed(1)}" cy="${yOf(v).toFixed(1)}" r="3" fill="${s.color}"/>`));
  }
  const lastI = r.list.length - 1;
  for (const s of series.slice(0, 2)) out.push(text(xOf(lastI) + 6, yOf(s.values[lastI]) + 4, `${Math.round(s.values[lastI])} ms`, { size: 11, fill: s.color }));
  out.push(legend(b.x, b.y + b.h - 12, series.slice(0, 2).map((s) => [s.color, s.name] as [string, string]).concat([[GREY, 'dashed: SQL via pg']])));
  return out.join('\n');
}

function enginePanel(r: Results, b: Box): string {
  const out = [title(b, 'Automations: executions/s on the same Temporal server')];
  const e = r.engine;
  if (!e) return out.concat(text(b.x, b.y + 40, 'not measured', { fill: GREY })).join('\n');
  const bars: Array<[string, number, string]> = [
    [`Deskflow, burst of ${e.burst.tickets}`, e.burst.executionsPerSecond, BLUE],
    [`Deskflow, ${e.sustained.offeredRate}/s offered`, e.sustained.completionRate, BLUE],
    ['one activity per action', e.baselines.activityPerAction.burst.perSecond, LIGHT],
    ['do-nothing workflow', e.baselines.doNothing.burst.perSecond, LIGHT],
  ];
  const labelW = 170;
  const barX = b.x + labelW;
  const barW = b.w - labelW - 60;
  const scale = Math.max(TARGETS.sustainedPerSecond, ...bars.map(([, v]) => v)) * 1.05;
  const px = (v: number) => barX + (v / scale) * barW;
  bars.forEach(([label, value, color], i) => {
    const y = b.y + 40 + i * 34;
    out.push(text(b.x, y + 14, label), rect(barX, y, px(value) - barX, 20, color), text(px(value) + 4, y + 14, `${value.toFixed(1)}/s`, { size: 11 }));
  });
  const bottom = b.y + 40 + bars.length * 34;
  out.push(line(barX, b.y + 34, barX, bottom, '#9ca3af'));
  out.push(line(px(TARGETS.sustainedPerSecond), b.y + 34, px(TARGETS.sustainedPerSecond), bottom, RED, '5 3'));
  out.push(text(px(TARGETS.sustainedPerSecond), bottom + 14, `target ${TARGETS.sustainedPerSecond}/s sustained`, { fill: RED, size: 11, anchor: 'middle' }));
  const half = TARGETS.engineVsDoNothing * e.baselines.doNothing.burst.perSecond;
  out.push(line(px(half), b.y + 34, px(half), bottom, ORANGE, '2 3'));
  out.push(text(px(half), b.y + 30, `${TARGETS.engineVsDoNothing}× do-nothing`, { fill: ORANGE, size: 11, anchor: 'middle' }));
  out.push(
    text(
      b.x,
      bottom + 36,
      `ticket → completed at ${e.latency.offeredRate}/s: ${
        e.latency.completed === 0 ? 'none completed' : `p50 ${Math.round(e.latency.latency.p50Ms)} ms, p99 ${Math.round(e.latency.latency.p99Ms)} ms`
      } (target p50 ≤ ${TARGETS.ticketToCompletedP50Ms} ms)`,
      { size: 11 },
    ),
    text(b.x, bottom + 52, `worker ready ${(e.workerStart.readyMs / 1000).toFixed(1)} s, after SIGKILL ${(e.workerRestart.readyMs / 1000).toFixed(1)} s (target ≤ ${TARGETS.workerReadyMs / 1000} s)`, { size: 11 }),
  );
  return out.join('\n');
}

function targetsPanel(rows: SummaryRow[], b: Box): string {
  const out = [title(b, 'Targets')];
  rows.forEach((row, i) => {
    const y = b.y + 38 + i * TARGET_ROW;
    out.push(`<circle cx="${b.x + 6}" cy="${y - 4}" r="5" fill="${row.met ? GREEN : RED}"/>`);
    out.push(text(b.x + 18, y, row.measure));
    out.push(text(b.x + b.w, y, row.target, { size: 11, fill: GREY, anchor: 'end' }));
    out.push(text(b.x + 18, y + 14, row.brief ?? row.deskflow, { size: 11, fill: GREY }));
  });
  return out.join('\n');
}

function title(b: Box, t: string): string {
  return text(b.x, b.y + 12, t, { size: 14, weight: 'bold' });
}

function legend(x: number, y: number, items: Array<[string, string]>): string {
  let at = x;
  return items
    .map(([color, label]) => {
      const svg = `${rect(at, y - 9, 12, 10, color)}${text(at + 16, y, label, { size: 11, fill: GREY })}`;
      at += 24 + label.length * 6;
      return svg;
    })
    .join('');
}

function rect(x: number, y: number, w: number, h: number, fill: string): string {
  return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(0, w).toFixed(1)}" height="${h}" fill="${fill}"/>`;
}

function line(x1: number, y1: number, x2: number, y2: number, stroke: string, dash?: string): string {
  return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="${stroke}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
}

function text(x: number, y: number, content: string, o: { size?: number; weight?: string; fill?: string; anchor?: string } = {}): string {
  const attrs = [
    `x="${x.toFixed(1)}"`,
    `y="${y.toFixed(1)}"`,
    o.size ? `font-size="${o.size}"` : '',
    o.weight ? `font-weight="${o.weight}"` : '',
    `fill="${o.fill ?? '#111827'}"`,
    o.anchor ? `text-anchor="${o.anchor}"` : '',
  ].filter(Boolean);
  return `<text ${attrs.join(' ')}>${escape(content)}</text>`;
}

function escape(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function wrap(s: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of s.split(' ')) {
    if (current && current.length + word.length + 1 > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  if (current) lines.push(current);
  return lines;
}
