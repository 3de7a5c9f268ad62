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
  const { missing, mistyped } = compareSearchAttributes(customAttributes ?? {});
  if (mistyped.length > 0) throw new Error(mistyped.map((m) => `search attribute ${m.name} exists on namespace ${namespace} with another type than ${m.expected}`).join('; '));
  const added = missing.map((key) => key.name);
  if (added.length > 0) {
    const searchAttributes = Object.fromEntries(missing.map((key) => [key.name, encodeSearchAttributeIndexedValueType(key.type)!]));
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  }

  const query = SEARCH_ATTRIBUTES.map((key) => `${key.name} = ''`).join(' AND ');
  await retryUntil(Math.max(deadline, Date.now() + 30_000), 'the search attributes to become usable', () =>
    connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 }),
  );
  return { namespaceCreated, added };
}

type SearchAttributeKey = (typeof SEARCH_ATTRIBUTES)[number];

/** Which of Deskflow's search attributes a namespace lacks, and which it has with another type. */
export function compareSearchAttributes(customAttributes: Record<string, unknown>): {
  missing: SearchAttributeKey[];
  mistyped: Array<{ name: string; expected: string }>;
} {
  const missing: SearchAttributeKey[] = [];
  const mistyped: Array<{ name: string; expected: string }> = [];
  for (const key of SEARCH_ATTRIBUTES) {
    const existing = customAttributes[key.name];
    if (existing === undefined || existing === null) missing.push(key);
    else if (existing !== encodeSearchAttributeIndexedValueType(key.type)) mistyped.push({ name: key.name, expected: key.type });
  }
  return { missing, mistyped };
}

/** What Deskflow needs of a namespace that it lacks, as a Temporal operator would find it. */
export type NamespaceLack = { namespaceMissing: true } | { namespaceMissing: false; missing: string[]; mistyped: Array<{ name: string; expected: string }> };

/** Whether the namespace exists and has Deskflow's search attributes, with their types; null when it has all it needs. */
export async function inspectNamespace(connection: Connection, namespace: string): Promise<NamespaceLack | null> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === NOT_FOUND) return { namespaceMissing: true };
    throw err;
  }
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const { missing, mistyped } = compareSearchAttributes(customAttributes ?? {});
  return missing.length === 0 && mistyped.length === 0 ? null : { namespaceMissing: false, missing: missing.map((key) => key.name), mistyped };
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
