import type { Connection } from '@temporalio/client';
import { errorFields, type Logger } from '../src/logger.ts';
import { inspectNamespace, setUpNamespace, type NamespaceLack } from './namespace-setup.ts';
import { SEARCH_ATTRIBUTES } from './search-attributes.ts';

/** One thing the namespace lacks, as /readyz names it: `{ path, message }`. */
export type NamespaceProblem = { path: string; message: string };

/** Thrown by the readiness check: one detail per thing the namespace lacks. */
export class NamespaceNotReady extends Error {
  readonly details: NamespaceProblem[];
  constructor(details: NamespaceProblem[]) {
    super(details.map((d) => d.message).join('; '));
    this.details = details;
  }
}

export type NamespaceReadinessOptions = {
  connection: Connection;
  namespace: string;
  /** `host:port` of the cluster, for the commands the log and /readyz suggest. */
  address: string;
  /** Deskflow may add what is missing: the dev server it runs itself, or TEMPORAL_SETUP_ON_START=true. */
  mayRegister: boolean;
  logger: Logger;
  /** How often a namespace found lacking is looked at again (default 10 s), so that a fix is noticed without a restart. */
  recheckMs?: number;
};

/**
 * Every run Deskflow starts carries its search attributes, and Temporal refuses to start a run
 * with one the namespace does not know: a namespace set up by an older release (or a cluster
 * where `npm run temporal:setup` was not run again) would leave every automation pending with
 * no word. So each process looks at the namespace when it starts. What is missing is added
 * where Deskflow may (`mayRegister`); otherwise the log says once, at `error`, what is missing
 * and the command that adds it, /readyz answers 503 naming each missing attribute, and the
 * relay leaves runs pending instead of failing to start them on every pass. The namespace is
 * looked at again every `recheckMs` until it has what Deskflow needs, then once more on each
 * readiness probe at most every two seconds while it does not.
 */
export class NamespaceReadiness {
  private readonly options: Required<NamespaceReadinessOptions>;
  /** null: fine; undefined: not known yet (Temporal not reached). */
  private lack: NamespaceLack | null | undefined = undefined;
  private lastInspection = 0;
  private inspecting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(options: NamespaceReadinessOptions) {
    this.options = { recheckMs: 10_000, ...options };
  }

  /** Looks at the namespace (adding what is missing where allowed), then keeps looking in the background until it is fine. */
  async start(): Promise<void> {
    await this.inspect();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /**
   * Why runs cannot start now (the namespace lacks what they need), or null: fine, or not known
   * (Temporal unreachable: that is reported and retried as such).
   */
  get blockedBecause(): string | null {
    return this.lack ? describeLack(this.lack, this.options.namespace) : null;
  }

  /** For /readyz: throws NamespaceNotReady naming each thing missing and how to add it. */
  async check(): Promise<void> {
    if (this.lack && Date.now() - this.lastInspection > 2_000) await this.inspect();
    if (this.lack) throw new NamespaceNotReady(problems(this.lack, this.options));
  }

  private schedule(): void {
    if (this.stopped || this.lack === null) return;
    const delay = this.lack === undefined ? Math.min(this.options.recheckMs, 5_000) : this.options.recheckMs;
    this.timer = setTimeout(() => void this.inspect().finally(() => this.schedule()), delay);
    this.timer.unref();
  }

  private inspect(): Promise<void> {
    this.inspecting ??= this.inspectOnce().finally(() => (this.inspecting = null));
    return this.inspecting;
  }

  private async inspectOnce(): Promise<void> {
    const { connection, namespace, logger } = this.options;
    const before = this.lack;
    let lack: NamespaceLack | null;
    try {
      lack = await connection.withDeadline(Date.now() + 5_000, () => inspectNamespace(connection, namespace));
    } catch (err) {
      // Temporal away: the worker and readiness say so on their own; nothing known of the namespace.
      logger.debug('temporal namespace not inspected', { namespace, ...errorFields(err) });
      return;
    } finally {
      this.lastInspection = Date.now();
    }
    if (lack && this.options.mayRegister && (lack.namespaceMissing || lack.missing.length > 0)) lack = await this.register(lack);
    this.lack = lack;
    if (lack && !sameLack(before, lack)) {
      logger.error(`Temporal namespace "${namespace}" ${describeLack(lack, namespace)}: automations stay pending until it is fixed, and /readyz answers 503`, {
        namespace,
        ...(lack.namespaceMissing ? { namespaceMissing: true } : { missingSearchAttributes: lack.missing, mistypedSearchAttributes: lack.mistyped.map((m) => m.name) }),
        fix: fixes(lack, this.options).join(' | '),
      });
    } else if (!lack && before) {
      logger.info(`Temporal namespace "${namespace}" has Deskflow's search attributes now; pending automations start`, { namespace });
    }
  }

  /** Adds what is missing (the namespace too); on failure (no rights, say) the lack stays as found. */
  private async register(lack: NamespaceLack): Promise<NamespaceLack | null> {
    const { connection, namespace, logger } = this.options;
    try {
      const result = await setUpNamespace(connection, { namespace, retentionDays: 7, waitMs: 10_000 });
      if (result.namespaceCreated) logger.info(`registered Temporal namespace "${namespace}"`, { namespace });
      if (result.added.length > 0) logger.info(`added search attributes to Temporal namespace "${namespace}"`, { namespace, added: result.added });
      return await inspectNamespace(connection, namespace);
    } catch (err) {
      // Another process starting at the same moment may have added them first.
      const now = await inspectNamespace(connection, namespace).catch(() => lack);
      if (now) logger.warn(`could not add Deskflow's search attributes to Temporal namespace "${namespace}"`, { namespace, ...errorFields(err) });
      return now;
    }
  }
}

const sameLack = (a: NamespaceLack | null | undefined, b: NamespaceLack) => JSON.stringify(a) === JSON.stringify(b);

function describeLack(lack: NamespaceLack, namespace: string): string {
  if (lack.namespaceMissing) return 'does not exist';
  const parts = [];
  if (lack.missing.length > 0) parts.push(`lacks the search attribute${lack.missing.length > 1 ? 's' : ''} ${lack.missing.join(', ')} that Deskflow sets on every run`);
  for (const m of lack.mistyped) parts.push(`has the search attribute ${m.name} with another type than ${m.expected}`);
  return parts.join(' and ') || `is not usable (${namespace})`;
}

const typeOf = (name: string) => SEARCH_ATTRIBUTES.find((key) => key.name === name)?.type ?? 'KEYWORD';
const cliType = (type: string) => type.charAt(0) + type.slice(1).toLowerCase();

/** The commands that fix it, for the log line and /readyz. */
function fixes(lack: NamespaceLack, options: Pick<NamespaceReadinessOptions, 'namespace' | 'address'>): string[] {
  const setup = `TEMPORAL_ADDRESS=${options.address} TEMPORAL_NAMESPACE=${options.namespace} npm run temporal:setup`;
  if (lack.namespaceMissing) return [setup];
  if (lack.missing.length === 0) return [`the attribute's type cannot be changed: remove it with temporal operator search-attribute remove, then run ${setup}`];
  const cli = `temporal operator search-attribute create --address ${options.address} --namespace ${options.namespace} ${lack.missing.map((name) => `--name ${name} --type ${cliType(typeOf(name))}`).join(' ')}`;
  return [setup, cli, 'or set TEMPORAL_SETUP_ON_START=true where Deskflow may change the namespace'];
}

function problems(lack: NamespaceLack, options: Pick<NamespaceReadinessOptions, 'namespace' | 'address'>): NamespaceProblem[] {
  const setup = `TEMPORAL_ADDRESS=${options.address} TEMPORAL_NAMESPACE=${options.namespace} npm run temporal:setup`;
  if (lack.namespaceMissing) return [{ path: 'temporal.namespace', message: `namespace ${options.namespace} does not exist; register it with: ${setup}` }];
  return [
    ...lack.missing.map((name) => ({
      path: `temporal.searchAttributes.${name}`,
      message: `search attribute ${name} (${cliType(typeOf(name))}) is missing on namespace ${options.namespace}; add it with: ${setup} (or: temporal operator search-attribute create --namespace ${options.namespace} --name ${name} --type ${cliType(typeOf(name))})`,
    })),
    ...lack.mistyped.map((m) => ({
      path: `temporal.searchAttributes.${m.name}`,
      message: `search attribute ${m.name} has another type than ${cliType(m.expected)} on namespace ${options.namespace}; remove it (temporal operator search-attribute remove --namespace ${options.namespace} --name ${m.name}) and run: ${setup}`,
    })),
  ];
}
