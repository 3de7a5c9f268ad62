// Installs what a test suite starts besides Node, before the suite runs (npm test, test:cluster,
// test:faults and bench call it first; `npm run provision` does all of them):
//   the Temporal CLI, server, SQL tool and Web UI server, and Mailpit: built with Go into
//   ~/.cache/deskflow-ci/go/bin (DESKFLOW_CI_TOOLS), once, and reused by every clone;
//   Dovecot and Chromium: Debian's packages, installed when this runs as root or with sudo.
// What it cannot install (no Go, not root and no sudo) stops it at once, before any build, with
// the one command that installs it. A tool named by its environment variable (TEMPORAL_CLI_PATH,
// MAILPIT_PATH, CHROMIUM_PATH, …) is used as it is.
//
//   node scripts/provision.ts [test|cluster|faults|bench …]   (none: every suite)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { onPath, SUITES, toolsDir, TOOLS, type DebianTool, type GoTool, type Suite } from './test-tools.ts';

function say(line: string): void {
  process.stderr.write(`provision: ${line}\n`);
}

function suitesOf(args: string[]): Suite[] {
  for (const arg of args) {
    if (!(SUITES as readonly string[]).includes(arg)) {
      say(`unknown suite "${arg}"; suites: ${SUITES.join(', ')}`);
      process.exit(2);
    }
  }
  return args.length === 0 ? [...SUITES] : (args as Suite[]);
}

/** How apt-get may run here: directly as root, through sudo without a password, or not at all. */
function aptRunner(): string[] | null {
  if (!onPath('apt-get')) return null;
  if (process.getuid?.() === 0) return [];
  if (onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo'];
  return null;
}

const SUITE_COMMAND: Record<Suite, string> = { test: 'npm test', cluster: 'npm run test:cluster', faults: 'npm run test:faults', bench: 'npm run bench' };

/** The one command a person runs to install what this process may not, then the suite again. */
function installCommand(packages: string[], suites: Suite[]): string {
  const again = suites.length === 1 ? SUITE_COMMAND[suites[0]] : `npm run provision${suites.length === SUITES.length ? '' : ` -- ${suites.join(' ')}`}`;
  if (!onPath('apt-get')) {
    return `install ${packages.join(', ')} with the system's package manager (Go 1.21 or newer: https://go.dev/dl), then run ${again}`;
  }
  const apt = `apt-get install -y ${packages.join(' ')}`;
  const asRoot = process.getuid?.() === 0 ? apt : onPath('sudo') ? `sudo ${apt}` : `su -c '${apt}'`;
  return `${asRoot} && ${again}`;
}

/** Says what is missing and the command that installs it, and exits 1 before anything is built. */
function stopWithCommand(debian: DebianTool[], go: GoTool[], suites: Suite[]): never {
  const needsGo = go.length > 0;
  const packages = [...debian.map((t) => t.package), ...(needsGo ? ['golang-go'] : [])];
  const lacking = [...debian.map((t) => t.what), ...(needsGo ? [`Go, to build ${go.map((t) => t.what).join(', ')}`] : [])];
  const why = !onPath('apt-get') ? 'there is no apt-get' : 'not root, and no sudo without a password';
  process.stderr.write(
    [
      `The tests need what this machine lacks, and this user cannot install it (${why}):`,
      ...lacking.map((what) => `  - ${what}`),
      'Install it with:',
      `  ${installCommand(packages, suites)}`,
      '',
    ].join('\n'),
  );
  process.exit(1);
}

function installPackages(packages: string[], runner: string[]): void {
  say(`installing Debian's ${packages.join(', ')}`);
  const apt = (...args: string[]) => {
    const [command, ...rest] = [...runner, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args];
    const result = spawnSync(command, rest, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status})`);
  };
  apt('update', '-qq');
  apt('install', '-y', '-qq', ...packages);
}

function build(tool: GoTool): void {
  say(`building ${tool.what} into ${path.join(toolsDir(), 'go', 'bin')} (the first time takes minutes)`);
  fs.mkdirSync(path.join(toolsDir(), 'go', 'bin'), { recursive: true });
  for (const command of tool.build()) {
    const result = spawnSync('bash', ['-c', command], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) throw new Error(`building ${tool.what} failed (exit ${result.status}): ${command}`);
  }
  tool.after?.();
  if (!tool.find()) throw new Error(`${tool.what} was built but is not found where expected`);
}

/** Go 1.21 and newer fetch the toolchain a module asks for; an older Go (Debian 12's golang-go is 1.19) cannot build the tools. */
function checkGoVersion(): void {
  const version = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  const [major = 0, minor = 0] = (/^go(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  if (major > 1 || (major === 1 && minor >= 21)) return;
  throw new Error(`Go ${version || '(unknown version)'} is older than 1.21, which the tools need: install Go 1.21 or newer (https://go.dev/dl), then run this again`);
}

function main(): void {
  const suites = suitesOf(process.argv.slice(2));
  const missing = TOOLS.filter((tool) => tool.suites.some((s) => suites.includes(s)) && !tool.find());
  if (missing.length === 0) return;
  const debian = missing.filter((t): t is DebianTool => t.kind === 'debian');
  const go = missing.filter((t): t is GoTool => t.kind === 'go');
  // Go itself comes from Debian too (golang-go; 1.21 or newer fetches the toolchain a module asks for).
  const needsGo = go.length > 0 && !onPath('go');
  const packages = [...debian.map((t) => t.package), ...(needsGo ? ['golang-go'] : [])];
  const runner = packages.length > 0 ? aptRunner() : [];
  if (runner === null) stopWithCommand(debian, needsGo ? go : [], suites);
  try {
    if (packages.length > 0) installPackages(packages, runner);
    if (go.length > 0) checkGoVersion();
    for (const tool of go) build(tool);
  } catch (err) {
    say(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}

main();
