import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { openOrm } from '../src/db/orm.ts';
import { WorkspaceService } from '../src/workspaces/service.ts';
import { measureEngine, type EngineFigures } from './engine-section.ts';
import { startEnvironment, type Environment } from './environment.ts';
import { measureRequests, type RequestFigures } from './http-section.ts';
import { measureListGrowth, type ListPoint } from './list-section.ts';
import { measureOneProcess, type OneProcessFigures } from './one-process-section.ts';
import { sleep } from './load.ts';
import { freePort } from '../test/helpers/ports.ts';
import { RssSampler } from './processes.ts';
import { FULL, QUICK } from './profile.ts';
import { writeResults } from './report.ts';
import { machineInfo, type Results } from './results.ts';
import { sampleTickets, seedTickets, settleTickets } from './seed.ts';
import { scenarios } from './scenarios.ts';

/**
 * `npm run bench [-- --quick] [-- --only requests,engine,list,one-process]`: Deskflow's API and
 * worker as real processes against their ceilings on one PostgreSQL and one Temporal server,
 * then `npm start`'s single process on the same servers, then a table on stdout, JSON and an SVG chart under bench/results/. Progress goes to stderr.
 */
const SECTIONS = ['requests', 'engine', 'list', 'one-process'] as const;
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log('Usage: npm run bench [-- --quick] [-- --only requests,engine,list,one-process]');
  process.exit(0);
}
const only = values.only?.split(',').map((s) => s.trim()) ?? [...SECTIONS];
const unknown = only.filter((s) => !(SECTIONS as readonly string[]).includes(s));
if (unknown.length > 0) {
  console.error(`Unknown section ${unknown.join(', ')}; sections are ${SECTIONS.join(', ')}.`);
  process.exit(2);
}
const selected = (s: Section) => only.includes(s);
const profile = values.quick ? QUICK : FULL;

const began = performance.now();
const progress = (line: string) => process.stderr.write(`[${String(Math.round((performance.now() - began) / 1000)).padStart(3)} s] ${line}\n`);

let env: Environment | undefined;
let closing: Promise<void> | undefined;
let interrupted = false;
const close = () => (closing ??= (env?.close() ?? Promise.resolve()));
// Ctrl-C also reaches the processes we started; close() stops whatever is left, in order.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    progress(`interrupted (${signal}); stopping everything the bench started`);
    void close().finally(() => process.exit(130));
  });
}
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err) => {
    progress(`bench crashed (${event}): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    void close().finally(() => process.exit(1));
  });
}

async function main(): Promise<Results> {
  const startedAt = new Date();
  const machine = machineInfo();
  progress(`${profile.name} run on ${machine.cpu} (${machine.cores} cores, ${machine.memoryGb} GB), Node ${machine.node}`);
  if (machine.loadAverage[0] > machine.cores) {
    progress(`the machine is busy (load average ${machine.loadAverage[0]} on ${machine.cores} cores): expect lower figures than on an idle machine`);
  }
  env = await startEnvironment(progress);
  const sampler = new RssSampler();
  try {
    const [requestsWs, listWs, engineWs, oneProcessWs] = await createWorkspaces(env, ['bench-requests', 'bench-list', 'bench-engine', 'bench-one-process']);
    await seedTickets(env.db, requestsWs.id, 0, profile.seedTickets);
    await settleTickets(env.db);
    const tickets = await sampleTickets(env.db, requestsWs.id, profile.sampleTickets);
    progress(`seeded ${profile.seedTickets.toLocaleString('en')} tickets for the request measures`);

    const apiPort = await freePort();
    const api = env.spawnNode('api', env.serverArgs('api'), env.deskflowEnv({ PORT: String(apiPort) }));
    await api.waitForLine(/Deskflow API listening/, 120_000);
    sampler.watch('api', api);
    await sleep(1_000);
    const apiIdleMb = api.rssMb();
    progress(`API up (pid ${api.pid}, ${apiIdleMb?.toFixed(0)} MB)`);

    let requests: RequestFigures[] = [];
    let apiPeakMb: number | null = null;
    if (selected('requests')) {
      progress(`requests: Deskflow vs SQL via pg vs bare node:http, ${profile.concurrency} callers, then open loop at half of Deskflow's max`);
      const barePort = await freePort();
      const bare = env.spawnNode('ceiling-server', ['bench/ceiling-server.ts'], {
        ...process.env,
        DATABASE_URL: env.databaseUrl,
        PORT: String(barePort),
        POOL_MAX: String(env.poolMax),
      });
      await bare.waitForLine(/^listening$/, 60_000);
      const from = performance.now();
      const list = scenarios({ key: requestsWs.key, tickets, perPage: profile.perPage, deepPage: profile.deepPage });
      requests = await measureRequests(profile, { apiPort, barePort, key: requestsWs.key, databaseUrl: env.databaseUrl, poolMax: env.poolMax }, list, progress);
      apiPeakMb = sampler.peak('api', from);
      await bare.stop();
    }

    let engine: EngineFigures | null = null;
    if (selected('engine')) {
      progress('engine: 3-node automation (condition → add_tag ∥ set_priority) vs plain Temporal workflows');
      engine = await measureEngine(profile, env, { apiPort, apiPid: api.pid, key: engineWs.key, workspaceId: engineWs.id }, sampler, progress);
    }

    let list: ListPoint[] = [];
    if (selected('list')) {
      progress(`list: latency as one workspace grows to ${profile.listSizes.map((n) => n.toLocaleString('en')).join(' → ')} tickets`);
      list = await measureListGrowth(profile, { apiPort, key: listWs.key, workspaceId: listWs.id, databaseUrl: env.databaseUrl, poolMax: env.poolMax }, env.db, progress);
    }

    let oneProcess: OneProcessFigures | null = null;
    if (selected('one-process')) {
      // The split API stops first: the one process takes the machine (and the task queue) alone.
      await api.stop();
      progress("one process: `npm start`'s layout (API, relay and worker in one process), creates then a burst of automations");
      oneProcess = await measureOneProcess(profile, env, { key: oneProcessWs.key, workspaceId: oneProcessWs.id }, sampler, progress);
    }

    return {
      version: 1,
      profile: profile.name,
      sections: only,
      startedAt: startedAt.toISOString(),
      durationSeconds: Math.round((performance.now() - began) / 1000),
      machine: { ...machine, loadAverageAtEnd: os.loadavg().map((l) => Math.round(l * 100) / 100) },
      setup: {
        database: env.databaseLabel,
        temporal: env.temporalLabel,
        poolMax: env.poolMax,
        concurrency: profile.concurrency,
        profile,
      },
      requests,
      list,
      engine,
      oneProcess,
      memory: {
        apiIdleMb,
        apiPeakMb: maxOf(apiPeakMb, engine?.rss.apiPeakMb ?? null),
        workerIdleMb: engine?.rss.workerIdleMb ?? null,
        workerPeakMb: engine?.rss.workerPeakMb ?? null,
        workerAfterLoadMb: engine?.rss.workerAfterLoadMb ?? null,
      },
    };
  } finally {
    sampler.stop();
  }
}

async function createWorkspaces(env: Environment, names: string[]): Promise<Array<{ id: string; key: string }>> {
  const orm = await openOrm({ databaseUrl: env.databaseUrl });
  try {
    const created = [];
    for (const name of names) {
      const workspaces = new WorkspaceService(orm.em.fork());
      const workspace = await workspaces.createWorkspace(name);
      created.push({ id: workspace.id, key: (await workspaces.createKey(workspace.id, name)).key });
    }
    return created;
  } finally {
    await orm.close();
  }
}

function maxOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

try {
  const results = await main();
  await close();
  const { table, files, errors } = await writeResults(results, { latest: profile.name === 'full' && only.length === SECTIONS.length });
  console.log(table);
  progress(`done in ${Math.round((performance.now() - began) / 1000)} s; ${files.join(', ')}`);
  if (errors.length > 0) {
    progress(`the harness saw errors, the figures are not to be trusted:\n  ${errors.join('\n  ')}`);
    process.exitCode = 1;
  }
} catch (err) {
  // Once interrupted, the processes stopped by Ctrl-C make the measure in progress fail: not news.
  if (!interrupted) progress(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await close();
  process.exitCode = 1;
}
// Everything started is stopped by now; a timer left by a measure cut short must not keep the bench alive.
process.exit();
