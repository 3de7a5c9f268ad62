import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { parseEntryArgs, runEntry, type Resources } from './process.ts';

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
  const values = parseEntryArgs({ json: { type: 'boolean' } }, USAGE);
  if (!values) return;
  const config = loadConfig();
  const { openDatabase } = await import('./session.ts');
  const { applied } = await openDatabase(config, createLogger(config.logLevel), resources);
  if (values.json) process.stdout.write(JSON.stringify({ applied }) + '\n');
  else if (applied.length === 0) process.stdout.write('No pending migrations; the schema is up to date.\n');
  else process.stdout.write(`Applied ${applied.length} migration(s):\n${applied.map((name) => `  ${name}`).join('\n')}\n`);
}

await runEntry(main);
