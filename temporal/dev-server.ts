import fs from 'node:fs';
import path from 'node:path';
import { findEarlierChild, forgetChild, recordChild, stopLeftover } from '../src/lifecycle/children.ts';
import { canConnect, findInstalled, findOnPath, spawnService, waitUntilReady } from './processes.ts';
import { SEARCH_ATTRIBUTES } from './search-attributes.ts';

export type DevServer = { address: string; uiUrl: string | null; stop: () => Promise<void> };

export type DevServerOptions = {
  port: number;
  /** null: headless. */
  uiPort: number | null;
  /** SQLite file for state that survives restarts; omitted: in memory. */
  dbFile?: string;
  /**
   * Where to note the running server's pid (with `dbFile`): a server that a killed Deskflow left
   * running on the same file is then stopped before this one starts, instead of holding the port.
   */
  recordFile?: string;
  /** The `temporal` CLI; found on PATH when not given. */
  cliPath?: string;
  namespace?: string;
  /** The server's own output. */
  log?: (line: string) => void;
  /** What the operator should hear of (a left-over server stopped). */
  note?: (line: string) => void;
};

/**
 * A local Temporal dev server (the Temporal CLI's `server start-dev`) with Deskflow's search
 * attributes registered. Uses the `temporal` binary at `cliPath`, on PATH or where `go install`
 * puts it; where there is none, the Temporal SDK downloads the dev server (needs internet).
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const binary = options.cliPath ?? findOnPath('temporal') ?? findInstalled('temporal');
  if (!binary) return startDownloadedDevServer(options);
  if (options.dbFile) fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
  if (options.recordFile && options.dbFile) await stopLeftoverServer(options.recordFile, options.dbFile, options.note);
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(options.port),
    '--namespace', options.namespace ?? 'default',
    '--log-level', 'error',
    ...(options.uiPort === null ? ['--headless'] : ['--ui-port', String(options.uiPort)]),
    ...(options.dbFile ? ['--db-filename', options.dbFile] : []),
    '--sqlite-pragma', 'journal_mode=WAL',
    '--sqlite-pragma', 'synchronous=OFF',
    ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
  ];
  // Its own session and a parent-death signal: see src/lifecycle/children.ts.
  const service = spawnService(binary, args, { log: options.log, asChild: { stopSignal: 'SIGTERM' } });
  const recordFile = options.recordFile;
  if (recordFile && service.pid) recordChild(recordFile, service.pid);
  try {
    await waitUntilReady(service, () => canConnect(options.port), 60_000);
  } catch (err) {
    await service.stop();
    if (recordFile && service.pid) forgetChild(recordFile, service.pid);
    throw new Error(`The Temporal dev server did not start on port ${options.port}: ${(err as Error).message}\n${service.output()}`);
  }
  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.uiPort === null ? null : `http://localhost:${options.uiPort}`,
    stop: async () => {
      await service.stop();
      if (recordFile && service.pid) forgetChild(recordFile, service.pid);
    },
  };
}

/** One dev server per SQLite file: a left-over one is stopped; one another live process runs is an error. */
async function stopLeftoverServer(recordFile: string, dbFile: string, note?: (line: string) => void): Promise<void> {
  const earlier = findEarlierChild(recordFile, (command) => command.includes(' start-dev ') && command.includes(` --db-filename ${dbFile} `));
  if (!earlier) return;
  if (earlier.state === 'in use') {
    throw new Error(
      `another process (pid ${earlier.process.parent}) runs the Temporal dev server of ${dbFile} (pid ${earlier.process.pid}); ` +
        'stop that Deskflow first, or give this one its own DESKFLOW_DATA_DIR',
    );
  }
  const outcome = await stopLeftover(recordFile, earlier, 'SIGTERM', 15_000);
  note?.(`${outcome} the Temporal dev server (pid ${earlier.process.pid}) that an earlier Deskflow left running`);
}

async function startDownloadedDevServer(options: DevServerOptions): Promise<DevServer> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download' },
      ip: '127.0.0.1',
      port: options.port,
      ...(options.uiPort === null ? { ui: false } : { ui: true, uiPort: options.uiPort }),
      ...(options.dbFile ? { dbFilename: options.dbFile } : {}),
      namespace: options.namespace ?? 'default',
      searchAttributes: SEARCH_ATTRIBUTES,
    },
  });
  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.uiPort === null ? null : `http://localhost:${options.uiPort}`,
    stop: () => env.teardown(),
  };
}
