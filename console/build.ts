// Builds the console into console/dist at install (npm's prepare script, like the workflow
// bundle) or by hand (`npm run build:console`), and reports the size a browser downloads.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));

let vite: typeof import('vite');
try {
  vite = await import('vite');
} catch {
  // A production install without dev dependencies (npm ci --omit=dev): the image builds the
  // console in a stage of its own (see the Dockerfile); /console answers 503 until it is built.
  console.log('Console not built: its build tools (dev dependencies) are not installed.');
  process.exit(0);
}

// Always the production build (React's, minified), also when started from a test run that set NODE_ENV=test.
process.env.NODE_ENV = 'production';
await vite.build({ configFile: path.join(here, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });

const assets = path.join(here, 'dist', 'assets');
let raw = 0;
let gzipped = 0;
for (const file of readdirSync(assets)) {
  if (!/\.(js|css)$/.test(file)) continue;
  const content = readFileSync(path.join(assets, file));
  raw += content.length;
  gzipped += gzipSync(content, { level: 9 }).length;
}
const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`;
console.log(`Console built to ${path.relative(process.cwd(), path.join(here, 'dist'))}: ${kB(raw)} of script and style, ${kB(gzipped)} gzipped`);
