import { pino, stdTimeFunctions, type DestinationStream } from 'pino';

/**
 * Structured logs: one JSON line per entry on stderr (stdout stays for program output), written
 * by pino. Every line has `level` (its name), `time` (ISO 8601), `pid`, `hostname` and `msg`,
 * then the entry's own fields. Credentials never reach a line: see REDACTED_PATHS.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;
export type Logger = Record<'debug' | 'info' | 'warn' | 'error', (msg: string, fields?: LogFields) => void>;

/**
 * Fields replaced by "[redacted]" wherever a caller passes them, at the top level or one level
 * down (e.g. `headers.authorization`): request headers that carry credentials, API keys and
 * tokens, webhook secrets and signatures.
 */
const SECRET_FIELDS = [
  'authorization',
  '"x-deskflow-signature"',
  'cookie',
  'apiKey',
  'key',
  'token',
  'secret',
  'webhookSecret',
  'password',
] as const;
export const REDACTED_PATHS: string[] = SECRET_FIELDS.flatMap((f) => {
  const at = f.startsWith('"') ? `[${f}]` : `.${f}`;
  return [f.startsWith('"') ? `[${f}]` : f, `*${at}`, `*.headers${at}`];
});

/**
 * A logger at `level`. Lines go to stderr, or to `write` (one line without its newline per call)
 * when given, as tests do.
 */
export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const destination: DestinationStream = write
    ? { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) }
    : // Synchronous: the last lines before an exit (a shutdown's "stopped") are never lost.
      pino.destination({ fd: 2, sync: true });
  const log = pino(
    {
      level,
      messageKey: 'msg',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination,
  );
  // The message goes first among the entry's fields, so a line reads `"msg":"…","field":…`.
  const at = (entry: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: LogFields) => {
    if (log.isLevelEnabled(entry)) log[entry]({ msg, ...fields });
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** gRPC status names by code (Temporal answers in gRPC). */
const GRPC_STATUSES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED',
] as const;

export type ErrorFields = { error: string; grpcCode?: number; grpcStatus?: string; grpcDetails?: string };

/**
 * The fields that describe an error in a log line: `error`, its message and every cause's
 * (`ServiceError: Failed to start Workflow; cause: 3 INVALID_ARGUMENT: …`), and where a gRPC
 * call failed (a Temporal client's ServiceError wraps one) its status as `grpcCode`,
 * `grpcStatus` and `grpcDetails`, the server's own words. `String(err)` keeps only the outermost
 * message, which for Temporal's errors rarely says what went wrong.
 */
export function errorFields(err: unknown): ErrorFields {
  const parts: string[] = [];
  const fields: Omit<ErrorFields, 'error'> = {};
  const seen = new Set<unknown>();
  for (let current: unknown = err; current !== undefined && current !== null && !seen.has(current) && parts.length < 5; ) {
    seen.add(current);
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    const named = current.name && current.name !== 'Error' && !current.message.startsWith(current.name) ? `${current.name}: ${current.message}` : current.message;
    parts.push(named || current.name);
    const grpc = current as { code?: unknown; details?: unknown };
    if (fields.grpcCode === undefined && typeof grpc.code === 'number' && typeof grpc.details === 'string') {
      fields.grpcCode = grpc.code;
      fields.grpcStatus = GRPC_STATUSES[grpc.code] ?? String(grpc.code);
      fields.grpcDetails = grpc.details;
    }
    current = current.cause;
  }
  return { error: parts.join('; cause: '), ...fields };
}
