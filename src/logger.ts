/** A small structured logger: one JSON line per entry on stderr, so stdout stays for program output. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type Logger = Record<'debug' | 'info' | 'warn' | 'error', (msg: string, fields?: Record<string, unknown>) => void>;

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const at = (entry: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[entry] < ORDER[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: entry, msg, ...fields }));
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
