// Bundles prebid-uid2.js into one script for a page: node build.mjs [outfile]
// (default: dist/prebid-uid2.js beside this file). Prebid's npm package ships its modules
// already compiled to ES modules, so bundling them is all a build needs.
import { build } from 'esbuild';
import path from 'node:path';

const here = import.meta.dirname;
const outfile = path.resolve(process.argv[2] ?? path.join(here, 'dist', 'prebid-uid2.js'));
const started = Date.now();
await build({
  absWorkingDir: here, // the same bytes from wherever it runs
  entryPoints: [path.join(here, 'prebid-uid2.js')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  outfile,
  logLevel: 'warning',
});
console.log(`built ${outfile} in ${Date.now() - started} ms`);
