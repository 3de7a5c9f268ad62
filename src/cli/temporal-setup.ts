import { loadConfig } from '../config.ts';
import { UsageError } from './errors.ts';
import { parseEntryArgs, runEntry, type Resources } from './process.ts';

/**
 * `npm run temporal:setup`: prepares a Temporal cluster other than the dev server for Deskflow
 * (the namespace and Deskflow's search attributes), once per cluster and again after an
 * upgrade that adds attributes. The dev server that `npm start` runs needs none of it.
 */
const USAGE = [
  'Usage: npm run temporal:setup -- [--retention-days N] [--wait-seconds N] [--json]',
  '  Registers TEMPORAL_NAMESPACE on TEMPORAL_ADDRESS when missing and adds the search',
  '  attributes Deskflow sets on its runs. Safe to run again.',
  '  --retention-days N  how long a new namespace keeps closed runs (default 7)',
  '  --wait-seconds N    how long to wait for the cluster to answer (default 60)',
  '  --json              print {"namespace","namespaceCreated","added":[...]} on stdout',
  '  -h, --help          show help',
].join('\n');

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a positive whole number. ${USAGE.split('\n')[0]}`);
  return Number(value);
}

async function main(resources: Resources): Promise<void> {
  const values = parseEntryArgs(
    {
      'retention-days': { type: 'string' },
      'wait-seconds': { type: 'string' },
      json: { type: 'boolean' },
    },
    USAGE,
  );
  if (!values) return;
  const retentionDays = positiveInteger(values['retention-days'], 7, 'retention-days');
  const waitSeconds = positiveInteger(values['wait-seconds'], 60, 'wait-seconds');
  const config = loadConfig();
  const { connectTemporal } = await import('../../temporal/client.ts');
  const { setUpNamespace } = await import('../../temporal/namespace-setup.ts');
  const settings = { ...config.temporal, address: config.temporal.address ?? '127.0.0.1:7233' };
  const connection = await resources.acquire(() => connectTemporal(settings), (c) => c.close());
  const { namespace } = settings;
  const result = await setUpNamespace(connection, { namespace, retentionDays, waitMs: waitSeconds * 1000 });
  if (values.json) {
    process.stdout.write(JSON.stringify({ namespace, ...result }) + '\n');
    return;
  }
  const created = result.namespaceCreated ? `Registered namespace ${namespace} (closed runs kept ${retentionDays} days). ` : '';
  const added = result.added.length > 0 ? `Added search attributes ${result.added.join(', ')}.` : `Namespace ${namespace} has Deskflow's search attributes already.`;
  process.stdout.write(`${created}${added}\n`);
}

await runEntry(main);
