import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const workflowsPath = path.join(root, 'temporal', 'workflows', 'index.ts');

/** Where `npm ci` (the prepare script) leaves the bundle for workers to start from. */
export const prebuiltBundleDir = path.join(root, 'node_modules', '.cache', 'deskflow');

/**
 * Pure modules the workflows use, loaded once per worker thread instead of once per run: the
 * sandbox gives every run fresh copies of the modules it imports, and evaluating the graph
 * module with its regular-expression engine (re2js) for each run cost more CPU than the run
 * itself. They keep no state between calls (no module-level variables), so sharing them cannot
 * make one run see another's.
 */
const sharedModules = [path.join(root, 'src', 'graph', 'index.ts')];

/**
 * Bundles the workflow code for the Temporal sandbox. It fails on a module the sandbox must
 * not load (Node built-ins, I/O libraries), which keeps the workflows deterministic.
 */
export async function bundleWorkflows(): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath,
    preloadModules: sharedModules,
    logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: (m: string) => console.error(m) },
    webpackConfigHook: (config) => ({
      ...config,
      // Relative imports carry their .ts extension (the code runs on Node's type stripping).
      resolve: { ...config.resolve, extensionAlias: { '.js': ['.ts', '.js'] } },
    }),
  });
}

/**
 * A fingerprint of everything the bundle is made of: the workflow code, the pure graph module
 * it imports, and the locked dependency versions. Reading these files takes milliseconds;
 * bundling takes seconds.
 */
export async function workflowSourceHash(): Promise<string> {
  const hash = createHash('sha256');
  const files = [
    ...(await sourcesUnder(path.join(root, 'temporal', 'workflows'))),
    ...(await sourcesUnder(path.join(root, 'src', 'graph'))),
    // How it is bundled (the modules shared between runs) is part of it too.
    fileURLToPath(import.meta.url),
    path.join(root, 'package-lock.json'),
  ].sort();
  for (const file of files) hash.update(path.relative(root, file)).update('\0').update(await fs.readFile(file)).update('\0');
  return hash.digest('hex');
}

async function sourcesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.join(e.parentPath, e.name));
}

/** Builds the bundle and stores it with the fingerprint of its sources. */
export async function writePrebuiltBundle(dir = prebuiltBundleDir): Promise<{ codePath: string }> {
  const [hash, bundle] = await Promise.all([workflowSourceHash(), bundleWorkflows()]);
  await fs.mkdir(dir, { recursive: true });
  const codePath = path.join(dir, 'workflows.js');
  await fs.writeFile(codePath, bundle.code);
  await fs.writeFile(path.join(dir, 'workflows.json'), JSON.stringify({ hash }) + '\n');
  return { codePath };
}

/**
 * The bundle a worker starts from: the one built at install time when it matches the sources
 * (the usual case: no bundling at start), else a fresh one, stored for the next start.
 */
export async function prebuiltBundle(onRebuild: (reason: string) => void, dir = prebuiltBundleDir): Promise<{ codePath: string }> {
  const codePath = path.join(dir, 'workflows.js');
  const [hash, stored] = await Promise.all([
    workflowSourceHash(),
    fs.readFile(path.join(dir, 'workflows.json'), 'utf8').then((text) => (JSON.parse(text) as { hash?: string }).hash, () => undefined),
  ]);
  if (stored === hash && (await fs.access(codePath).then(() => true, () => false))) return { codePath };
  onRebuild(stored === undefined ? 'no workflow bundle was built at install' : 'the workflow code changed since its bundle was built');
  return writePrebuiltBundle(dir);
}
