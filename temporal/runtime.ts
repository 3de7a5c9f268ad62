import type { LogLevel as SdkLogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger } from '../src/logger.ts';

export type TemporalRuntimeOptions = {
  logger: Logger;
  /** `host:port` for the SDK's Prometheus exporter of worker and connection metrics; unset, none. */
  metricsAddress?: string;
};

/**
 * Installs the Temporal SDK's process-wide Runtime: its own lines and the native core's
 * (forwarded, warnings and errors only) go to the process's logger; with `metricsAddress`, the
 * SDK serves its worker metrics (`temporal_…`) there in Prometheus format. The runtime is
 * installed once per process and cannot be changed afterwards: the SDK creates a default one the
 * first time anything needs it (the dev server, a worker), so the process entry calls this first.
 *
 * By default the runtime also stops workers on SIGINT, SIGTERM, SIGQUIT and SIGUSR2 by itself,
 * racing the process's own ordered shutdown: the process that hosts the worker owns its signals
 * and calls stop(). Returns false when a runtime was already there (its settings stay).
 */
export function installTemporalRuntime(options: TemporalRuntimeOptions): boolean {
  if (Runtime._instance) return false;
  Runtime.install({
    logger: sdkLogger(options.logger),
    shutdownSignals: [],
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(options.metricsAddress ? { metrics: { prometheus: { bindAddress: options.metricsAddress } } } : {}),
    },
  });
  return true;
}

/**
 * The SDK's Logger on top of ours. TRACE becomes debug. Its INFO lines (worker state changes)
 * are kept: they are JSON lines on stderr like every other.
 */
export function sdkLogger(logger: Logger): SdkLogger {
  const write = (level: SdkLogLevel, message: string, meta?: LogMetadata) => {
    const fields = meta ? plain(meta) : undefined;
    if (level === 'ERROR') logger.error(message, fields);
    else if (level === 'WARN') logger.warn(message, fields);
    else if (level === 'INFO') logger.info(message, fields);
    else logger.debug(message, fields);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/** Errors in the SDK's metadata become their stack (JSON would make them `{}`). */
function plain(meta: LogMetadata): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) out[key] = value instanceof Error ? (value.stack ?? value.message) : value;
  return out;
}
