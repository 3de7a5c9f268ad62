import { z } from 'zod';
import { text } from '../http/validate.ts';
import type { MailboxService } from '../mail/mailboxes.ts';
import { AI_ASSIGNEE } from '../tickets/values.ts';
import { MEMBER_ROLES, type MemberRole } from '../workspaces/entity.ts';
import type { WorkspaceService } from '../workspaces/service.ts';
import { userId } from '../workspaces/user-id.ts';
import { CommandError, UsageError } from './errors.ts';

/**
 * The shape every admin command shares. A command first turns its parsed arguments into a
 * ready-to-run step (`prepare`), so usage and input errors surface before any database is
 * opened; the step then runs against the services and returns both renderings of its result.
 */
export type OptionSpec = { type: 'string' | 'boolean'; short?: string };

export type ParsedArgs = {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
};

/** What a command produced: the `--json` object and the human sentence. */
export type Outcome = { json: Record<string, unknown>; text: string };

export type CommandServices = {
  workspaces: WorkspaceService;
  /** Loaded only by the mailbox commands: the IMAP and SMTP libraries take a while to load. */
  mailboxes?: () => Promise<MailboxService>;
  /** `search rebuild`: rebuilds the stale search documents of a workspace's tickets, or of all. */
  searchDocuments?: () => Promise<(workspaceId?: string) => Promise<{ checked: number; rebuilt: number }>>;
};

export type Command = {
  /** Arguments after `<group> <action>`, e.g. `--name NAME`. */
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Names of the positional arguments, all required. */
  positionals?: readonly string[];
  prepare: (args: ParsedArgs) => (services: CommandServices) => Promise<Outcome>;
};

export type CommandGroup = { name: string; commands: Record<string, Command> };

/** The value of a required string option, or a usage error naming it. */
export function requiredOption(args: ParsedArgs, name: string): string {
  const value = args.values[name];
  if (typeof value !== 'string') throw new UsageError(`--${name} is required.`);
  return value;
}

export function optionalOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

function check<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new CommandError(result.error.issues[0]?.message ?? 'Invalid value.');
}

/** A workspace or key name: 1-200 code points, not blank (the column holds 200). */
export const checkName = (value: string, label: string): string =>
  check(text({ min: 1, max: 200, nonBlank: true, label }), value);

/** A member's user id: the rule every user id follows (so that every member can be assigned), and not the AI sentinel. */
const memberUserId = userId('--user').refine((s) => s !== AI_ASSIGNEE, `--user "${AI_ASSIGNEE}" is reserved for the AI agent.`);

export const checkUserId = (value: string): string => check(memberUserId, value);

export function checkRole(value: string | undefined): MemberRole {
  if (value === undefined) return 'member';
  if ((MEMBER_ROLES as readonly string[]).includes(value)) return value as MemberRole;
  throw new CommandError(`--role must be one of: ${MEMBER_ROLES.join(', ')} (got "${value}").`);
}

/**
 * The workspace a `--workspace` names: its id, or its name where no other workspace has it.
 * A name several workspaces share is refused with their ids, so that the operator picks one.
 */
export async function requireWorkspace(workspaces: WorkspaceService, idOrName: string): Promise<string> {
  const lookup = await workspaces.lookUpWorkspace(idOrName);
  if (lookup.found) return lookup.found.id;
  if (lookup.sameName.length > 1) {
    throw new CommandError(`${lookup.sameName.length} workspaces are named "${idOrName}" (${lookup.sameName.map((w) => w.id).join(', ')}); give the id of one`);
  }
  throw new CommandError(`workspace not found: ${idOrName}`);
}

/** A command whose only argument is the workspace it reads (`--workspace ID|NAME`): `run` gets the workspace's id. */
export function workspaceCommand(spec: { summary: string; run: (services: CommandServices, workspaceId: string) => Promise<Outcome> }): Command {
  return {
    usage: '--workspace ID|NAME',
    summary: spec.summary,
    options: { workspace: { type: 'string' } },
    prepare(args) {
      const workspaceArg = requiredOption(args, 'workspace');
      return async (services) => spec.run(services, await requireWorkspace(services.workspaces, workspaceArg));
    },
  };
}
