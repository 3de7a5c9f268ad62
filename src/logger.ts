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
