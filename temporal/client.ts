import fs from 'node:fs';
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../src/config.ts';
import type { RunGraphInput, WorkflowEngine } from '../src/executions/run-input.ts';
import { TICKET_ID, WORKFLOW_ID, WORKSPACE_ID } from './search-attributes.ts';
import { customerReplied } from './workflows/signals.ts';

export type TemporalSettings = Pick<Config['temporal'], 'namespace' | 'apiKey' | 'tls' | 'tlsCertPath' | 'tlsKeyPath' | 'tlsCaPath'> & { address: string };

/**
 * A connection to a Temporal cluster (the local dev server, or Temporal Cloud with an API key
 * or mTLS). It connects on first use, so the API starts and serves tickets while the cluster
 * is unreachable; calls made meanwhile fail fast and are retried by the relay.
 */
export async function connectTemporal(settings: TemporalSettings): Promise<Connection> {
  return Connection.lazy({
    address: settings.address,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    tls: settings.tls ? tlsOptions(settings) : false,
    connectTimeout: '10 seconds',
  });
}

export function tlsOptions(settings: TemporalSettings) {
  const read = (path: string | undefined) => (path ? fs.readFileSync(path) : undefined);
  const cert = read(settings.tlsCertPath);
  const key = read(settings.tlsKeyPath);
  return {
    ...(cert && key ? { clientCertPair: { crt: cert, key } } : {}),
    ...(settings.tlsCaPath ? { serverRootCACertificate: read(settings.tlsCaPath) } : {}),
  };
}

/** How long one engine call may take before the caller treats the engine as down. */
const CALL_DEADLINE_MS = 5_000;

/** The WorkflowEngine of the API and the relay, on Temporal. */
export class TemporalEngine implements WorkflowEngine {
  readonly client: Client;
  private readonly connection: Connection;
  private readonly taskQueue: string;

  constructor(connection: Connection, opts: { namespace: string; taskQueue: string }) {
    this.connection = connection;
    this.client = new Client({ connection, namespace: opts.namespace });
    this.taskQueue = opts.taskQueue;
  }

  async start(runId: string, input: RunGraphInput): Promise<void> {
    try {
      await this.withDeadline(() =>
        this.client.workflow.start('runGraph', {
          workflowId: runId,
          taskQueue: this.taskQueue,
          args: [input],
          // The id is fixed per execution: a second start (redelivery, a second relay) is harmless.
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: WORKSPACE_ID, value: input.workspaceId },
            { key: WORKFLOW_ID, value: input.workflowId },
            ...(input.ticketId ? [{ key: TICKET_ID, value: input.ticketId }] : []),
          ],
          staticSummary: `${input.workflowName || 'Workflow'} v${input.workflowVersion} (${input.triggeredBy})${input.ticketId ? ` on ticket ${input.ticketId}` : ''}`,
          memo: { executionId: input.executionId },
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return; // it ran already
      throw err;
    }
  }

  async cancel(runId: string): Promise<void> {
    await this.ignoreFinished(() => this.client.workflow.getHandle(runId).cancel());
  }

  /** Tells a run that its ticket's customer replied (wait_for_reply). Finished runs are skipped. */
  async signalCustomerReply(runId: string, messageId: string): Promise<void> {
    await this.ignoreFinished(() => this.client.workflow.getHandle(runId).signal(customerReplied, { messageId }));
  }

  async ping(): Promise<void> {
    await this.withDeadline(() => this.connection.workflowService.getSystemInfo({}));
  }

  private withDeadline<T>(fn: () => Promise<T>): Promise<T> {
    return this.connection.withDeadline(Date.now() + CALL_DEADLINE_MS, fn);
  }

  private async ignoreFinished(fn: () => Promise<unknown>): Promise<void> {
    try {
      await this.withDeadline(fn);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || /already completed|not found/i.test((err as Error).message)) return;
      throw err;
    }
  }
}
