// Runs before every npm entry point, on whatever Node the shell has: plain JavaScript, no
// TypeScript, so that an older Node prints this instead of ERR_UNKNOWN_FILE_EXTENSION ".ts".
import fs from 'node:fs';

const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const required = Number(/\d+/.exec(pkg.engines.node)[0]);
const actual = Number(process.versions.node.split('.')[0]);
if (actual < required) {
  console.error(
    `Deskflow needs Node.js ${required} or newer; this is Node.js ${process.version}.\n` +
      `Switch with \`nvm use\` (the version is in .nvmrc) or install Node.js ${required} LTS from https://nodejs.org.`,
  );
  process.exit(1);
}
