import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { msToTs } from '@temporalio/common/lib/time.js';
import { SEARCH_ATTRIBUTES } from './search-attributes.ts';

const NOT_FOUND = 5; // gRPC status code

export type NamespaceSetup = {
  /** True when the namespace did not exist and was registered. */
  namespaceCreated: boolean;
  /** The search attributes that were missing on the namespace and were added. */
  added: string[];
};

/**
 * What a cluster other than the dev server needs before Deskflow runs on it: the namespace
 * (registered when missing) and Deskflow's search attributes on it (those missing are added;
 * one of the same name but another type is an error). Safe to run again. Waits up to
 * `waitMs` for the cluster to answer, and returns once the frontend accepts queries on the
 * attributes (services pick up namespace changes on their next cache refresh).
 */
export async function setUpNamespace(connection: Connection, opts: { namespace: string; retentionDays: number; waitMs: number }): Promise<NamespaceSetup> {
  const { namespace } = opts;
  const deadline = Date.now() + opts.waitMs;
  await retryUntil(deadline, 'the Temporal cluster to answer', () => connection.workflowService.getSystemInfo({}));

  let namespaceCreated = false;
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    if (!isGrpcServiceError(err) || err.code !== NOT_FOUND) throw err;
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(`${opts.retentionDays} days`),
    });
    namespaceCreated = true;
  }

  const { customAttributes } = await retryUntil(deadline, `namespace ${namespace} to be known`, () =>
    connection.operatorService.listSearchAttributes({ namespace }),
  );
  const missing: Record<string, number> = {};
  for (const key of SEARCH_ATTRIBUTES) {
    const type = encodeSearchAttributeIndexedValueType(key.type)!;
    const existing = customAttributes?.[key.name];
    if (existing === undefined || existing === null) missing[key.name] = type;
    else if (existing !== type) throw new Error(`search attribute ${key.name} exists on namespace ${namespace} with another type than ${key.type}`);
  }
  const added = Object.keys(missing);
  if (added.length > 0) await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });

  const query = SEARCH_ATTRIBUTES.map((key) => `${key.name} = ''`).join(' AND ');
  await retryUntil(Math.max(deadline, Date.now() + 30_000), 'the search attributes to become usable', () =>
    connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 }),
  );
  return { namespaceCreated, added };
}

/** Calls `call` every half second until it succeeds; past `deadline`, its last error is thrown. */
async function retryUntil<T>(deadline: number, what: string, call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (Date.now() >= deadline) throw new Error(`gave up waiting for ${what}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
