import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { UsageError } from './errors.ts';
import { runEntry, sentence, type Resources } from './process.ts';

/**
 * `npm run migrate`: applies every pending migration to DATABASE_URL, or to the embedded
 * PostgreSQL of the data directory (stopped again if this process started it), and prints the
 * names applied. The server also migrates at start; this is for deploys that migrate first.
 */
const USAGE = [
  'Usage: npm run migrate -- [--json]',
  '  Applies pending migrations and prints the names of those applied.',
  '  --json       print {"applied":[...names]} on stdout',
  '  -h, --help   show help',
].join('\n');

async function main(resources: Resources): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError(`${sentence((err as Error).message)} ${USAGE.split('\n')[0]}`);
  }
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const config = loadConfig();
  const { openDatabase } = await import('./session.ts');
  const { applied } = await openDatabase(config, createLogger(config.logLevel), resources);
  if (values.json) process.stdout.write(JSON.stringify({ applied }) + '\n');
  else if (applied.length === 0) process.stdout.write('No pending migrations; the schema is up to date.\n');
  else process.stdout.write(`Applied ${applied.length} migration(s):\n${applied.map((name) => `  ${name}`).join('\n')}\n`);
}

await runEntry(main);
