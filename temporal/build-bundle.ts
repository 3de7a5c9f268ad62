// Builds the workflow bundle once, at install (npm's prepare script), so that workers start
// without bundling: `npm run build:workflows` does the same by hand.
import { prebuiltBundleDir, writePrebuiltBundle } from './bundle.ts';

const { codePath } = await writePrebuiltBundle(prebuiltBundleDir);
console.log(`Workflow bundle written to ${codePath}`);
