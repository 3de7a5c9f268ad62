// The programs the test suites start besides Node (npm test, test:cluster, test:faults, bench):
// where each is found, which suites need it and how it is installed. scripts/provision.ts installs
// what is missing; the vitest configs read `toolEnv()` so that the tests find what it built.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Suite = 'test' | 'cluster' | 'faults' | 'bench';
export const SUITES: readonly Suite[] = ['test', 'cluster', 'faults', 'bench'];

/** Where the Go-built binaries are cached, shared by every clone: DESKFLOW_CI_TOOLS, else ~/.cache/deskflow-ci. */
export const toolsDir = (): string => process.env.DESKFLOW_CI_TOOLS || path.join(os.homedir(), '.cache', 'deskflow-ci');
const goBin = (name: string) => path.join(toolsDir(), 'go', 'bin', name);

const TEMPORAL_CLI_VERSION = 'v1.5.1';
const TEMPORAL_SERVER_VERSION = '1.29.1';
const MAILPIT_VERSION = 'v1.27.11';

/** Built with Go into the cache folder; `build` gives the shell commands (GOBIN set in them). */
export type GoTool = {
  kind: 'go';
  what: string;
  env: string;
  suites: readonly Suite[];
  /** The usable binary, or undefined when it is missing (or of another version). */
  find: () => string | undefined;
  /** The shell commands that build it (shown, then run). */
  build: () => string[];
  /** Written after a successful build (a version stamp). */
  after?: () => void;
  /** The command a person runs to install it by hand. */
  manual: string;
};

/** A Debian package, installed with apt-get as root (or with sudo). */
export type DebianTool = { kind: 'debian'; what: string; env: string; suites: readonly Suite[]; find: () => string | undefined; package: string };

/** The command a person runs to install `tool` by hand (what the mail sandbox and provision say). */
export const manualInstall = (tool: Tool): string => (tool.kind === 'go' ? tool.manual : `sudo apt-get install -y ${tool.package}`);

/** The tool the tests find through the environment variable `env` (MAILPIT_PATH, …). */
export const toolOf = (env: string): Tool => TOOLS.find((t) => t.env === env)!;

export type Tool = GoTool | DebianTool;

function isExecutable(file: string | undefined): file is string {
  if (!file) return false;
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function onPath(name: string): string | undefined {
  return (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name)).find(isExecutable);
}

/** What the user set in the environment wins; a name set to a missing file counts as missing. */
const configured = (env: string): string | undefined | null => (process.env[env] ? (isExecutable(process.env[env]) ? process.env[env] : null) : undefined);

function firstFound(env: string, candidates: Array<() => string | undefined>): string | undefined {
  const set = configured(env);
  if (set !== undefined) return set ?? undefined;
  for (const candidate of candidates) {
    const found = candidate();
    if (isExecutable(found)) return found;
  }
  return undefined;
}

/** A Temporal server binary (`server`, `sql`) of the version the Compose file runs; `go install` builds carry it in --version. */
function temporalServerBinary(name: string, env: string): string | undefined {
  const ofVersion = (file: string) => {
    if (!isExecutable(file)) return undefined;
    const out = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 20_000 }).stdout ?? '';
    return out.split('\n').some((line) => line.endsWith(` version ${TEMPORAL_SERVER_VERSION}`)) ? file : undefined;
  };
  return firstFound(env, [() => ofVersion(goBin(name)), () => ofVersion(goPathBin(name))]);
}

/** The Temporal Web UI version of docker-compose.yml (`temporalio/ui:<version>`). */
export function composeUiVersion(): string {
  const compose = fs.readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8');
  const version = /^\s*image: temporalio\/ui:([0-9.]+)\s*$/m.exec(compose)?.[1];
  if (!version) throw new Error('docker-compose.yml names no temporalio/ui:<version> image');
  return version;
}

const goInstall = (module: string) => [`GOBIN="${goBin('')}" go install ${module}`];
const goPathBin = (name: string) => path.join(process.env.GOPATH ?? path.join(os.homedir(), 'go'), 'bin', name);

export const TOOLS: Tool[] = [
  {
    kind: 'go',
    what: `the Temporal CLI ${TEMPORAL_CLI_VERSION} (dev server)`,
    env: 'TEMPORAL_CLI_PATH',
    suites: SUITES,
    find: () =>
      firstFound('TEMPORAL_CLI_PATH', [
        () => onPath('temporal'),
        () => goBin('temporal'),
        () => goPathBin('temporal'),
      ]),
    build: () => goInstall(`github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`),
    manual: `go install github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`,
  },
  {
    kind: 'go',
    what: `the Temporal server ${TEMPORAL_SERVER_VERSION}`,
    env: 'TEMPORAL_SERVER_PATH',
    suites: ['cluster'],
    find: () => temporalServerBinary('server', 'TEMPORAL_SERVER_PATH'),
    build: () => goInstall(`go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`),
    manual: `go install go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
  },
  {
    kind: 'go',
    what: `Temporal's SQL tool ${TEMPORAL_SERVER_VERSION}`,
    env: 'TEMPORAL_SQL_TOOL_PATH',
    suites: ['cluster'],
    find: () => temporalServerBinary('sql', 'TEMPORAL_SQL_TOOL_PATH'),
    build: () => goInstall(`go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`),
    manual: `go install go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
  },
  {
    // For test/engine/web-ui-list.test.ts, beside the dev server's own Web UI. Its module
    // replaces dependencies, so it is built from a copy of its source, not with `go install`.
    kind: 'go',
    what: `the Temporal Web UI server ${composeUiVersion()}`,
    env: 'TEMPORAL_UI_SERVER_PATH',
    suites: ['test', 'cluster'],
    find: () => firstFound('TEMPORAL_UI_SERVER_PATH', [() => goBin(`ui-server-${composeUiVersion()}`)]),
    build: () => {
      const version = composeUiVersion();
      return [
        `src="$(mktemp -d)" && module="$(go mod download -json github.com/temporalio/ui-server/v2@v${version} | sed -n 's/^\\t"Dir": "\\(.*\\)",$/\\1/p')"` +
          ` && [ -n "$module" ] && cp -r "$module/." "$src" && chmod -R u+w "$src" && (cd "$src" && go build -o "${goBin(`ui-server-${version}`)}" ./cmd/server); status=$?; rm -rf "$src"; exit $status`,
      ];
    },
    manual: 'npm run provision -- test',
  },
  {
    // The SMTP server of the mail tests: its REST API shows what was delivered, its chaos mode
    // makes SMTP fail on demand. `go install` builds carry no version: a stamp file does.
    kind: 'go',
    what: `Mailpit ${MAILPIT_VERSION} (SMTP server: the mail tests, the mail sandbox)`,
    env: 'MAILPIT_PATH',
    suites: ['test'],
    find: () =>
      firstFound('MAILPIT_PATH', [
        () => (readStamp(goBin('mailpit.version')) === MAILPIT_VERSION ? goBin('mailpit') : undefined),
        () => onPath('mailpit'),
        () => goPathBin('mailpit'),
      ]),
    build: () => goInstall(`github.com/axllent/mailpit@${MAILPIT_VERSION}`),
    manual: `go install github.com/axllent/mailpit@${MAILPIT_VERSION}`,
    after: () => fs.writeFileSync(goBin('mailpit.version'), `${MAILPIT_VERSION}\n`),
  },
  {
    kind: 'debian',
    what: 'Dovecot (IMAP server: the mail tests, the mail sandbox)',
    env: 'DOVECOT_PATH',
    suites: ['test'],
    find: () => firstFound('DOVECOT_PATH', [() => '/usr/sbin/dovecot', () => onPath('dovecot')]),
    package: 'dovecot-imapd',
  },
  {
    kind: 'debian',
    what: 'Chromium (the tests that open a page)',
    env: 'CHROMIUM_PATH',
    suites: ['test', 'cluster'],
    find: () => firstFound('CHROMIUM_PATH', [() => '/usr/bin/chromium']),
    package: 'chromium',
  },
];

function readStamp(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * The environment that points the tests at the tools found (TEMPORAL_CLI_PATH, MAILPIT_PATH, …),
 * for the names the environment does not set already. Finds, never installs.
 */
export function toolEnv(suite: Suite): Record<string, string> {
  const env: Record<string, string> = {};
  for (const tool of TOOLS.filter((t) => t.suites.includes(suite))) {
    if (process.env[tool.env]) continue;
    const found = tool.find();
    if (found) env[tool.env] = found;
  }
  return env;
}
