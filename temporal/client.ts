import fs from 'node:fs';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  isGrpcServiceError,
  makeGrpcRetryInterceptor,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import type { Config } from '../src/config.ts';
import { unavailable } from '../src/errors.ts';
import type { WorkflowEngine } from '../src/executions/engine.ts';
import type { RunGraphInput } from '../src/executions/run-input.ts';
import { TICKET_ID, WORKFLOW_ID, WORKFLOW_NAME, WORKSPACE_ID } from './search-attributes.ts';
import type { SlaTimerEngine, TimerUpdate } from '../src/sla/timers.ts';
import { approvalDecided, customerReplied, slaInstantsChanged } from './workflows/signals.ts';
import { aiStop, aiWake } from './workflows/ai-owner.ts';
import { aiOwnerWorkflowId, type AiOwnerEngine } from '../src/ai/engine.ts';

export type TemporalSettings = Pick<Config['temporal'], 'namespace' | 'apiKey' | 'tls' | 'tlsCertPath' | 'tlsKeyPath' | 'tlsCaPath'> & { address: string };

/**
 * A connection to a Temporal cluster (the local dev server, or Temporal Cloud with an API key
 * or mTLS). It connects on first use, so the API starts and serves tickets while the cluster
 * is unreachable. Calls made meanwhile fail within a second (a few quick retries, not the
 * SDK's default of ten over twenty seconds): what could not be started stays pending in the
 * database and the relay tries again on its next pass. Once the cluster is back the channel
 * reconnects within a second, not after gRPC's default backoff of up to two minutes.
 */
export async function connectTemporal(settings: TemporalSettings): Promise<Connection> {
  return Connection.lazy({
    address: settings.address,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    tls: settings.tls ? tlsOptions(settings) : false,
    connectTimeout: '10 seconds',
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 1_000 },
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 3, maxIntervalMs: () => 300 }))],
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
export class TemporalEngine implements WorkflowEngine, SlaTimerEngine, AiOwnerEngine {
  readonly client: Client;
  private readonly connection: Connection;
  private readonly taskQueue: string;

  constructor(connection: Connection, opts: { namespace: string; taskQueue: string }) {
    this.connection = connection;
    this.client = new Client({ connection, namespace: opts.namespace });
    this.taskQueue = opts.taskQueue;
  }

  async start(temporalWorkflowId: string, input: RunGraphInput): Promise<void> {
    try {
      await this.withDeadline(() =>
        this.client.workflow.start('runAutomation', {
          workflowId: temporalWorkflowId,
          taskQueue: this.taskQueue,
          args: [input],
          // The id is fixed per execution: a second start (redelivery, a second relay) is harmless.
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: WORKSPACE_ID, value: input.workspaceId },
            { key: WORKFLOW_ID, value: input.workflowId },
            { key: WORKFLOW_NAME, value: input.workflowName },
            ...(input.ticketId ? [{ key: TICKET_ID, value: input.ticketId }] : []),
          ],
          ...runDescription(input),
          memo: { executionId: input.executionId },
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return; // it ran already
      throw asUnavailable(err);
    }
  }

  /** Starts the delivery workflow of an outbound message written outside a run (src/mail/outbound.ts); a second start is harmless. */
  async startMailDelivery(messageId: string, about: { to: string; subject: string }): Promise<void> {
    try {
      await this.withDeadline(() =>
        this.client.workflow.start('deliverMail', {
          workflowId: `mail-delivery-${messageId}`,
          taskQueue: this.taskQueue,
          args: [{ messageId }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          staticSummary: `Mail to ${about.to}: ${about.subject}`.slice(0, 160),
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      throw asUnavailable(err);
    }
  }

  /**
   * Hands a ticket's timer instants to its slaClocks workflow, starting it when it is not running
   * (signalWithStart); with nothing to wait for, only tells a running one. Safe to repeat.
   */
  async signalSlaClocks(update: TimerUpdate): Promise<void> {
    const workflowId = slaClocksId(update.ticketId);
    const signal = { revision: update.revision, instants: update.instants };
    if (update.instants.length === 0) {
      await this.ignoreFinished(() => this.client.workflow.getHandle(workflowId).signal(slaInstantsChanged, signal));
      return;
    }
    try {
      await this.withDeadline(() =>
        this.client.workflow.signalWithStart('slaClocks', {
          workflowId,
          taskQueue: this.taskQueue,
          args: [{ ticketId: update.ticketId, workspaceId: update.workspaceId, revision: update.revision, instants: update.instants }],
          signal: slaInstantsChanged,
          signalArgs: [signal],
          typedSearchAttributes: [
            { key: WORKSPACE_ID, value: update.workspaceId },
            { key: TICKET_ID, value: update.ticketId },
          ],
          staticSummary: `Service-level timers of ticket ${update.ticketId}`,
        }),
      );
    } catch (err) {
      throw asUnavailable(err);
    }
  }

  async cancel(temporalWorkflowId: string): Promise<void> {
    await this.ignoreFinished(() => this.client.workflow.getHandle(temporalWorkflowId).cancel());
  }

  async signalCustomerReply(temporalWorkflowId: string, reply: { messageId: string; at: string }): Promise<void> {
    await this.ignoreFinished(() => this.client.workflow.getHandle(temporalWorkflowId).signal(customerReplied, reply));
  }

  async signalApprovalDecided(temporalWorkflowId: string, decided: { approvalId: string }): Promise<void> {
    await this.ignoreFinished(() => this.client.workflow.getHandle(temporalWorkflowId).signal(approvalDecided, decided));
  }

  /** Wakes the ticket's AI owner run (src/ai/), starting it when none runs. */
  async wakeAiOwner(run: { workspaceId: string; ticketId: string; reason: string }): Promise<void> {
    try {
      await this.withDeadline(() =>
        this.client.workflow.signalWithStart('aiOwner', {
          workflowId: aiOwnerWorkflowId(run.ticketId),
          taskQueue: this.taskQueue,
          args: [{ workspaceId: run.workspaceId, ticketId: run.ticketId }],
          signal: aiWake,
          signalArgs: [{ reason: run.reason }],
          typedSearchAttributes: [
            { key: WORKSPACE_ID, value: run.workspaceId },
            { key: TICKET_ID, value: run.ticketId },
          ],
          staticSummary: `AI owner · ticket ${run.ticketId}`,
          staticDetails: `The AI owner answers ticket ${run.ticketId} from the knowledge, or hands it to a person (docs/ai.md).\nWoken: ${run.reason}`,
        }),
      );
    } catch (err) {
      throw asUnavailable(err);
    }
  }

  async stopAiOwner(ticketId: string, reason: string): Promise<void> {
    await this.ignoreFinished(() => this.client.workflow.getHandle(aiOwnerWorkflowId(ticketId)).signal(aiStop, { reason }));
  }

  async ping(): Promise<void> {
    await this.withDeadline(() => this.connection.workflowService.getSystemInfo({})).catch((err) => {
      throw asUnavailable(err);
    });
  }

  private withDeadline<T>(fn: () => Promise<T>): Promise<T> {
    return this.connection.withDeadline(Date.now() + CALL_DEADLINE_MS, fn);
  }

  private async ignoreFinished(fn: () => Promise<unknown>): Promise<void> {
    try {
      await this.withDeadline(fn);
    } catch (err) {
      // The server answers NOT_FOUND for a run that is unknown or already completed.
      if (err instanceof WorkflowNotFoundError) return;
      throw asUnavailable(err);
    }
  }
}

/** gRPC statuses of a server that is away, overloaded or too slow: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED. */
const UNAVAILABLE_STATUSES = new Set([14, 4, 8]);

/** A call that failed because Temporal did not answer becomes a 503 (for a request); anything else stays as it is. */
function asUnavailable(err: unknown): unknown {
  const cause = err instanceof ServiceError ? err.cause : err;
  if (isGrpcServiceError(cause) && UNAVAILABLE_STATUSES.has(cause.code)) {
    return Object.assign(unavailable('The workflow engine is unavailable; retry later.'), { cause: err });
  }
  return err;
}

/** Temporal shows a run's summary in its list; kept to one short line. */
const SUMMARY_MAX = 160;

/**
 * What the Web UI shows of a run without opening it: the summary names the automation and the
 * ticket's subject (`Escalate urgent tickets · Printer on fire`); the details say the rest.
 */
export function runDescription(input: RunGraphInput): { staticSummary: string; staticDetails: string } {
  const subject = (input.context as { ticket?: { subject?: unknown } }).ticket?.subject;
  const summary = [input.workflowName || 'Workflow', typeof subject === 'string' ? subject : input.triggeredBy].join(' · ');
  const chars = [...summary];
  return {
    staticSummary: chars.length > SUMMARY_MAX ? `${chars.slice(0, SUMMARY_MAX - 1).join('')}…` : summary,
    staticDetails: [
      `Automation: ${input.workflowName} (${input.workflowId}), version ${input.workflowVersion}`,
      `Triggered by: ${input.triggeredBy}`,
      `Ticket: ${input.ticketId ?? 'none'}`,
      `Execution: ${input.executionId}`,
    ].join('\n'),
  };
}

/** The Temporal workflow id of a ticket's service-level timers. */
export const slaClocksId = (ticketId: string) => `SLA clocks · ticket ${ticketId}`;
