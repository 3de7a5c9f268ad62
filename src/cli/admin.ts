import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import type { Command, CommandGroup, Outcome, ParsedArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { keyCommands } from './key.ts';
import { mailboxCommands } from './mailbox.ts';
import { memberCommands } from './member.ts';
import { runEntry, sentence, type Resources } from './process.ts';
import { searchCommands } from './search.ts';
import { workspaceCommands } from './workspace.ts';

/**
 * `npm run admin -- <group> <action> [options] [--json]` (docs/contract.md §7). Arguments are checked
 * before any database is opened; the command then runs on its own EntityManager fork, with
 * pending migrations applied first. With `--json`, stdout carries exactly one JSON object.
 * The database modules load only once a command is about to run, so help and usage errors
 * answer at once.
 */
const GROUPS: CommandGroup[] = [workspaceCommands, keyCommands, memberCommands, mailboxCommands, searchCommands];

const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const PROGRAM = 'npm run admin --';

type Invocation =
  | { kind: 'help'; text: string }
  | { kind: 'run'; run: ReturnType<Command['prepare']>; json: boolean };

function commandLine(group: CommandGroup, action: string, command: Command): string {
  return [group.name, action, command.usage, '[--json]'].filter(Boolean).join(' ');
}

function usage(groups: CommandGroup[] = GROUPS): string {
  const lines = groups.flatMap((group) =>
    Object.entries(group.commands).map(([action, command]) => `  ${commandLine(group, action, command)}\n      ${command.summary}`),
  );
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    '  --json       print exactly one JSON object on stdout (messages go to stderr)',
    '  -h, --help   show help',
    '',
    'Database: DATABASE_URL when set, else the embedded PostgreSQL under DESKFLOW_DATA_DIR: the',
    'running one on its port (the server\'s), else started on EMBEDDED_PG_PORT for the command;',
    'stderr says which. Pending migrations apply first.',
    'Exit codes: 0 done, 1 failed (invalid value, unknown id), 2 usage error.',
  ].join('\n');
}

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';

/** Turns argv into help text or a prepared command; throws UsageError / CommandError. */
function resolveInvocation(argv: string[]): Invocation {
  const [groupName, action, ...rest] = argv;
  if (groupName === undefined) throw new UsageError(`a command is required.\n${usage()}`);
  if (isHelp(groupName)) return { kind: 'help', text: usage() };
  const group = GROUPS.find((g) => g.name === groupName);
  if (!group) {
    throw new UsageError(`unknown command "${groupName}"; commands: ${GROUPS.map((g) => g.name).join(', ')}. See --help.`);
  }
  const actions = Object.keys(group.commands);
  if (isHelp(action)) return { kind: 'help', text: usage([group]) };
  if (action === undefined) throw new UsageError(`"${group.name}" needs an action: ${actions.join(', ')}.`);
  const command = Object.hasOwn(group.commands, action) ? group.commands[action] : undefined;
  if (!command) throw new UsageError(`unknown action "${group.name} ${action}"; actions: ${actions.join(', ')}.`);

  const hint = `Usage: ${PROGRAM} ${commandLine(group, action, command)}`;
  const args = parseCommandArgs(rest, command, hint);
  if (args.values.help === true) return { kind: 'help', text: `${hint}\n  ${command.summary}` };
  try {
    return { kind: 'run', run: command.prepare(args), json: args.values.json === true };
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${err.message} ${hint}`);
    throw err;
  }
}

function parseCommandArgs(args: string[], command: Command, hint: string): ParsedArgs {
  const names = command.positionals ?? [];
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, ...COMMON_OPTIONS },
      allowPositionals: names.length > 0,
      strict: true,
      tokens: true,
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError(`${sentence((err as Error).message)} ${hint}`);
    throw err;
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once. ${hint}`);
    seen.add(token.name);
  }
  if (parsed.values.help !== true) {
    if (parsed.positionals.length < names.length) throw new UsageError(`${names[parsed.positionals.length]} is required. ${hint}`);
    if (parsed.positionals.length > names.length) {
      throw new UsageError(`unexpected argument "${parsed.positionals[names.length]}". ${hint}`);
    }
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

function print(outcome: Outcome, json: boolean): void {
  process.stdout.write((json ? JSON.stringify(outcome.json) : outcome.text) + '\n');
}

async function main(resources: Resources): Promise<void> {
  const invocation = resolveInvocation(process.argv.slice(2));
  if (invocation.kind === 'help') {
    process.stdout.write(invocation.text + '\n');
    return;
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const [{ openDatabase }, { WorkspaceService }] = await Promise.all([
    import('./session.ts'),
    import('../workspaces/service.ts'),
  ]);
  const { orm, applied } = await openDatabase(config, logger, resources);
  if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
  const outcome = await invocation.run({
    workspaces: new WorkspaceService(orm.em.fork()),
    mailboxes: async () => {
      const [{ MailboxService }, { secretsFor }] = await Promise.all([import('../mail/mailboxes.ts'), import('../mail/secrets.ts')]);
      return new MailboxService(orm.em.fork(), { secrets: secretsFor(config) });
    },
    searchDocuments: async () => {
      const { rebuildStaleSearchDocuments } = await import('../tickets/search-index.ts');
      return (workspaceId) => rebuildStaleSearchDocuments(orm.em.fork(), { workspaceId });
    },
  });
  print(outcome, invocation.json);
}

await runEntry(main);
