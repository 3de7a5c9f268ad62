import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type CliResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/**
 * Runs a CLI entry as its own process, the way `npm run admin -- …` does, and waits for it to
 * exit by itself. `env` entries replace the inherited ones; `undefined` removes one. A process
 * still running after `timeoutMs` is killed and the call fails: the CLI must never hang.
 */
export function runNode(
  entry: 'src/cli/admin.ts' | 'src/cli/migrate.ts' | 'src/cli/temporal-setup.ts' | 'src/server.ts',
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
  /** Called on each stderr chunk with all stderr so far: lets a test signal the process mid-run. */
  onStderr?: (stderrSoFar: string, child: ChildProcess) => void,
): Promise<CliResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} ${args.join(' ')} did not exit within ${timeoutMs} ms. stderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export const admin = (args: string[], env?: Record<string, string | undefined>, timeoutMs?: number) =>
  runNode('src/cli/admin.ts', args, env, timeoutMs);

export const migrateCli = (args: string[], env?: Record<string, string | undefined>, timeoutMs?: number) =>
  runNode('src/cli/migrate.ts', args, env, timeoutMs);

/**
 * The one JSON object a `--json` run printed: stdout must be exactly that object and a newline,
 * nothing else (no logs).
 */
export function jsonOutput(result: CliResult): Record<string, unknown> {
  if (result.code !== 0) throw new Error(`exit ${result.code}; stderr: ${result.stderr}`);
  const parsed: unknown = JSON.parse(result.stdout);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`not a JSON object: ${result.stdout}`);
  if (result.stdout !== JSON.stringify(parsed) + '\n') throw new Error(`stdout holds more than one JSON object: ${JSON.stringify(result.stdout)}`);
  return parsed as Record<string, unknown>;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
