import { randomUUID } from 'node:crypto';
import { Client, isGrpcServiceError } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import { TICKET_ID, WORKSPACE_ID } from '../../temporal/search-attributes.ts';
import { jsonOutput, runNode } from '../cli/run-cli.ts';
import { useTemporalConnection } from '../helpers/engine.ts';
import { eventually } from '../helpers/poll.ts';

/**
 * `npm run temporal:setup` as an operator runs it against a cluster, here the run's Temporal
 * server, on a namespace of its own that does not exist yet.
 */
const connection = useTemporalConnection();

const setup = (namespace: string, ...args: string[]) =>
  runNode('src/cli/temporal-setup.ts', args, { TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: namespace }, 90_000);

const namespaceExists = (namespace: string) =>
  connection.workflowService.describeNamespace({ namespace }).then(
    () => true,
    (err) => (isGrpcServiceError(err) && err.code === 5 ? false : Promise.reject(err)),
  );

describe('npm run temporal:setup', () => {
  it('registers a missing namespace with the search attributes, so runs can be found by workspace and ticket', async () => {
    const namespace = `setup-${randomUUID().slice(0, 8)}`;
    const first = jsonOutput(await setup(namespace, '--retention-days', '3', '--json'));
    expect(first).toEqual({ namespace, namespaceCreated: true, added: expect.arrayContaining(['DeskflowWorkspaceId', 'DeskflowWorkflowId', 'DeskflowTicketId']) });
    const described = await connection.workflowService.describeNamespace({ namespace });
    expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(3 * 24 * 60 * 60);

    // A run tagged the way Deskflow tags its runs is found by the attributes (no worker needed).
    const client = new Client({ connection, namespace });
    const ticketId = randomUUID();
    const handle = await client.workflow.start('runGraph', {
      workflowId: `setup-probe-${ticketId}`,
      taskQueue: `setup-probe-${ticketId}`,
      typedSearchAttributes: [
        { key: WORKSPACE_ID, value: 'ws-probe' },
        { key: TICKET_ID, value: ticketId },
      ],
    });
    try {
      const found = await eventually(async () => {
        const ids: string[] = [];
        for await (const run of client.workflow.list({ query: `DeskflowTicketId = '${ticketId}' AND DeskflowWorkspaceId = 'ws-probe'` })) ids.push(run.workflowId);
        return ids.length > 0 ? ids : undefined;
      }, 30_000, 'the probe run in visibility');
      expect(found).toEqual([handle.workflowId]);
    } finally {
      await handle.terminate();
    }

    const again = await setup(namespace);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`Namespace ${namespace} has Deskflow's search attributes already.\n`);
  }, 120_000);

  it('refuses a bad option with exit code 2 and changes nothing', async () => {
    const namespace = `setup-${randomUUID().slice(0, 8)}`;
    const result = await setup(namespace, '--retention-days', '0');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--retention-days must be a positive whole number/);
    expect(await namespaceExists(namespace)).toBe(false);
  }, 60_000);
});
