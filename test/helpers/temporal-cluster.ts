import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { findInstalled, spawnService, waitUntilReady, type ServiceProcess } from '../../temporal/processes.ts';
import { setUpNamespace } from '../../temporal/namespace-setup.ts';
import { freePortIn } from './ports.ts';

const run = promisify(execFile);

/** `npm run test:cluster` sets this: the engine tests then run on a real Temporal server on PostgreSQL. */
export const onTemporalCluster = () => process.env.DESKFLOW_TEST_TEMPORAL === 'cluster';

export type TemporalCluster = {
  address: string;
  /** The frontend's gRPC port. */
  port: number;
  /** Stops the server; its state stays in PostgreSQL. */
  stop: () => Promise<void>;
  /** Starts the stopped server again, on the same ports and databases. */
  start: () => Promise<void>;
  /** Stops the server and drops its databases. */
  destroy: () => Promise<void>;
};

const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
type Ports = { http: number } & Record<(typeof SERVICES)[number], { grpc: number; membership: number }>;

/**
 * A real Temporal server (the `server` binary of go.temporal.io/server) with PostgreSQL
 * persistence and visibility on databases of its own (`temporal_<tag>`,
 * `temporal_visibility_<tag>`) on the PostgreSQL server of `postgresUrl` (its database part
 * does not matter), whose user may create databases. Schema by Temporal's SQL tool, 4
 * history shards, every service on free ports of 127.0.0.1, and the `default` namespace with
 * Deskflow's search attributes set up the way `npm run temporal:setup` does it.
 */
export async function startTemporalCluster(postgresUrl: string): Promise<TemporalCluster> {
  const binaries = {
    server: binary('server', process.env.TEMPORAL_SERVER_PATH),
    sql: binary('sql', process.env.TEMPORAL_SQL_TOOL_PATH),
  };
  const pg = new URL(postgresUrl);
  const tag = `${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const databases = { default: `temporal_${tag}`, visibility: `temporal_visibility_${tag}` };
  // The password goes by environment, never on a command line.
  const sqlEnv = { ...process.env, SQL_PASSWORD: decodeURIComponent(pg.password) };
  const sql = (database: string, ...args: string[]) =>
    run(binaries.sql, ['--plugin', 'postgres12', '--ep', pg.hostname, '-p', pg.port || '5432', '-u', decodeURIComponent(pg.username), '--db', database, ...args], { env: sqlEnv }).catch((err) => {
      throw new Error(`temporal sql tool ${args[0]} on ${database} failed: ${err.stderr || err.message}`);
    });

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'deskflow-temporal-'));
  const created: string[] = [];
  const dropDatabases = async () => {
    for (const database of created) await sql(database, 'drop-database', '--force').catch((err) => console.error('temporal cluster teardown:', err));
  };
  let server: ServiceProcess | null = null;
  const stop = async () => {
    await server?.stop();
    server = null;
  };
  const destroy = async () => {
    await stop();
    await dropDatabases();
    await fs.rm(dir, { recursive: true, force: true });
  };

  try {
    await Promise.all(
      Object.entries({ [databases.default]: 'postgresql/v12/temporal', [databases.visibility]: 'postgresql/v12/visibility' }).map(async ([database, schema]) => {
        await sql(database, 'create-database');
        created.push(database);
        await sql(database, 'setup-schema', '--version', '0.0');
        await sql(database, 'update-schema', '--schema-name', schema);
      }),
    );
    const [httpPort, ...rpcPorts] = await distinctFreePorts(1 + 2 * SERVICES.length);
    const ports = { http: httpPort, ...Object.fromEntries(SERVICES.map((service, i) => [service, { grpc: rpcPorts[2 * i], membership: rpcPorts[2 * i + 1] }])) } as Ports;
    const configDir = path.join(dir, 'config');
    await fs.mkdir(configDir);
    await fs.writeFile(path.join(configDir, 'development.yaml'), serverConfig(pg, databases, ports), { mode: 0o600 });
    const address = `127.0.0.1:${ports.frontend.grpc}`;
    const start = async () => {
      const service = spawnService(binaries.server, ['--root', dir, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start']);
      server = service;
      try {
        await untilAnswered(service, address, 'the Temporal server did not start', (connection) => connection.workflowService.getSystemInfo({}));
      } catch (err) {
        await stop();
        throw new Error(`${(err as Error).message}\n${service.output()}`);
      }
    };
    await start();
    const connection = await Connection.connect({ address });
    try {
      await setUpNamespace(connection, { namespace: 'default', retentionDays: 1, waitMs: 60_000 });
    } finally {
      await connection.close();
    }
    return { address, port: ports.frontend.grpc, stop, start, destroy };
  } catch (err) {
    await destroy();
    throw err;
  }
}

function binary(name: string, configured: string | undefined): string {
  const found = configured || findInstalled(name);
  if (!found) {
    throw new Error(
      `Temporal's \`${name}\` binary was not found. Build it with \`npm run provision -- cluster\` or set ` +
        (name === 'server' ? 'TEMPORAL_SERVER_PATH' : 'TEMPORAL_SQL_TOOL_PATH'),
    );
  }
  return found;
}

/** Retries `call` on a fresh connection until it succeeds (a minute at most). */
async function untilAnswered(server: ServiceProcess, address: string, what: string, call: (connection: Connection) => Promise<unknown>): Promise<void> {
  let last: unknown;
  const answered = async () => {
    const connection = await Connection.connect({ address, connectTimeout: 2_000 }).catch((err) => ((last = err), null));
    if (!connection) return false;
    try {
      await call(connection);
      return true;
    } catch (err) {
      last = err;
      return false;
    } finally {
      await connection.close();
    }
  };
  await waitUntilReady(server, answered, 60_000).catch((err) => {
    throw new Error(`${what}: ${(err as Error).message}${last ? ` (last error: ${String(last)})` : ''}`);
  });
}

/** Below the ephemeral range: the cluster_membership table keeps ports as smallint (at most 32767). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePortIn(10_000, 32_767));
  return [...ports];
}

/**
 * The server's configuration: no metrics or pprof listeners; small pools, since the test run's
 * own processes share the PostgreSQL server.
 */
function serverConfig(pg: URL, databases: { default: string; visibility: string }, ports: Ports): string {
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: ${JSON.stringify(`${pg.hostname}:${pg.port || '5432'}`)}
        connectProtocol: tcp
        user: ${JSON.stringify(decodeURIComponent(pg.username))}
        password: ${JSON.stringify(decodeURIComponent(pg.password))}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const services = SERVICES.map((service) => {
    const http = service === 'frontend' ? `, httpPort: ${ports.http}` : '';
    return `  ${service}:\n    rpc: { grpcPort: ${ports[service].grpc}, membershipPort: ${ports[service].membership}, bindOnLocalHost: true${http} }`;
  });
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${store(databases.default, 8)}
    visibility:${store(databases.visibility, 3)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
${services.join('\n')}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${ports.frontend.grpc}
dcRedirectionPolicy:
  policy: noop
`;
}
