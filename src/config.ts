import path from 'node:path';
import { z } from 'zod';

/**
 * The only reader of process.env. Everything else receives a typed Config.
 */
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const envSchema = z.object({
  PORT: port(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: optionalString,
  DESKFLOW_DATA_DIR: z.string().default('.data'),
  EMBEDDED_PG_PORT: port(54329),
  TEMPORAL_ADDRESS: optionalString,
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('deskflow'),
  TEMPORAL_API_KEY: optionalString,
  TEMPORAL_TLS: z.enum(['true', 'false', '']).optional(),
  TEMPORAL_TLS_CERT_PATH: optionalString,
  TEMPORAL_TLS_KEY_PATH: optionalString,
  TEMPORAL_TLS_CA_PATH: optionalString,
  TEMPORAL_CLI_PATH: optionalString,
  TEMPORAL_DEV_PORT: port(7233),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_UI_URL: optionalString.pipe(
    z
      .string()
      .regex(/^https?:\/\/[^\s"'<>]+$/, 'must be an http:// or https:// address, like http://temporal-ui.internal:8080')
      .transform((v) => v.replace(/\/+$/, ''))
      .optional(),
  ),
  TEMPORAL_METRICS_PORT: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.coerce.number().int().min(1).max(65535).optional()),
  TEMPORAL_METRICS_HOST: z.string().trim().min(1).default('127.0.0.1'),
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(200),
  RATE_LIMIT_BURST: z.coerce.number().min(0).default(2000),
  EVENT_STREAMS_PER_WORKSPACE: z.coerce.number().int().min(1).max(100_000).default(100),
  DB_POOL_MAX: z.coerce.number().int().min(1).default(10),
  OUTBOX_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  EXECUTION_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().min(0).max(3_600).default(5),
  TEMPORAL_SETUP_ON_START: z.enum(['true', 'false', '']).optional(),
  DESKFLOW_HTTP_ALLOW: z.string().default(''),
  METRICS_TOKEN: optionalString,
  DESKFLOW_SECRET_KEY: optionalString,
  MAIL_POLL_SECONDS: z.coerce.number().min(1).max(86_400).default(60),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  temporal: {
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    apiKey: string | undefined;
    tls: boolean;
    tlsCertPath: string | undefined;
    tlsKeyPath: string | undefined;
    tlsCaPath: string | undefined;
    cliPath: string | undefined;
    devPort: number;
    uiPort: number;
    /** Address of a Temporal Web UI the console links runs to; unset, `npm start` uses its dev server's. */
    uiUrl: string | undefined;
    /** `host:port` of the Temporal SDK's Prometheus exporter (worker metrics); unset, it is off. */
    metricsAddress: string | undefined;
    /** Deskflow may add the search attributes its runs need to the namespace at start (operator rights on the cluster). */
    setupOnStart: boolean;
  };
  rateLimit: { perSecond: number; burst: number };
  /** Open GET /api/v1/events streams a workspace may have on one API process. */
  eventStreamsPerWorkspace: number;
  dbPoolMax: number;
  /** Days a delivered event is kept (backtests replay them) before the relay purges it. */
  outboxRetentionDays: number;
  /** Days a finished execution (with its steps) is kept before the relay purges it. */
  executionRetentionDays: number;
  /** Seconds a stopping API process keeps serving while /readyz already answers 503. */
  shutdownDrainSeconds: number;
  httpAllow: string[];
  /** Bearer token that GET /metrics requires; unset, /metrics is not served. */
  metricsToken: string | undefined;
  /** Key that seals mailbox credentials (src/mail/secrets.ts); unset on the embedded defaults, a key file of the data directory. */
  secretKey: string | undefined;
  mail: {
    /** How often a watched mailbox is read even when IDLE told nothing: the safety net. */
    pollMs: number;
  };
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DESKFLOW_DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      apiKey: e.TEMPORAL_API_KEY,
      tls: e.TEMPORAL_TLS === 'true' || e.TEMPORAL_API_KEY !== undefined || e.TEMPORAL_TLS_CERT_PATH !== undefined,
      tlsCertPath: e.TEMPORAL_TLS_CERT_PATH,
      tlsKeyPath: e.TEMPORAL_TLS_KEY_PATH,
      tlsCaPath: e.TEMPORAL_TLS_CA_PATH,
      cliPath: e.TEMPORAL_CLI_PATH,
      devPort: e.TEMPORAL_DEV_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: e.TEMPORAL_UI_URL,
      metricsAddress: e.TEMPORAL_METRICS_PORT === undefined ? undefined : `${hostPart(e.TEMPORAL_METRICS_HOST)}:${e.TEMPORAL_METRICS_PORT}`,
      setupOnStart: e.TEMPORAL_SETUP_ON_START === 'true',
    },
    rateLimit: { perSecond: e.RATE_LIMIT_PER_SECOND, burst: e.RATE_LIMIT_BURST },
    eventStreamsPerWorkspace: e.EVENT_STREAMS_PER_WORKSPACE,
    dbPoolMax: e.DB_POOL_MAX,
    outboxRetentionDays: e.OUTBOX_RETENTION_DAYS,
    executionRetentionDays: e.EXECUTION_RETENTION_DAYS,
    shutdownDrainSeconds: e.SHUTDOWN_DRAIN_SECONDS,
    httpAllow: e.DESKFLOW_HTTP_ALLOW.split(',').map((s) => s.trim()).filter(Boolean),
    metricsToken: e.METRICS_TOKEN,
    secretKey: e.DESKFLOW_SECRET_KEY,
    mail: { pollMs: e.MAIL_POLL_SECONDS * 1000 },
    logLevel: e.LOG_LEVEL,
  };
}

/** An IPv6 address goes in brackets before a port. */
const hostPart = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
