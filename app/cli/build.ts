// `npm run build`: the service compiled to JavaScript under dist/ (what the image runs: `node dist/app/main.js`,
// the tools as `node dist/app/cli/<tool>.js`), with no TypeScript left to compile at a start.
//
//   npm run build [-- --out DIR] [--no-check]
//
// tsc (tsconfig.build.json) type-checks (unless --no-check: `npm run typecheck` does it apart) and writes each module to the same place under DIR, its relative imports'
// `.ts` rewritten to `.js`; what a module reads beside itself (the front end's page and style sheet) is copied, and
// the front end's TypeScript (its page's code and service worker) is bundled once, here, as it otherwise is at its first request.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BadInput, runTool } from '../../src/cli/tool.ts';
import { BROWSER_CODE, bundleBrowserCode, type BrowserFile } from '../../examples/bidder-web/server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Files modules read beside themselves at run time, copied to the same place under the output. */
const ASSETS = ['examples/bidder-web/index.html', 'examples/bidder-web/styles.css'];

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const check = !args.includes('--no-check');
  const rest = args.filter((a) => a !== '--no-check');
  if (rest.length > 0 && !(rest.length === 2 && rest[0] === '--out'))
    throw new BadInput('usage: npm run build [-- --out DIR] [--no-check]');
  const out = path.resolve(rest[1] ?? path.join(ROOT, 'dist'));
  const started = Date.now();
  fs.rmSync(out, { recursive: true, force: true });
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const options = ['-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out, ...(check ? [] : ['--noCheck'])];
  const compiled = spawnSync(process.execPath, [tsc, ...options], { stdio: 'inherit' });
  if (compiled.status !== 0) return 1;
  for (const file of ASSETS) fs.copyFileSync(path.join(ROOT, file), path.join(out, file));
  for (const file of Object.keys(BROWSER_CODE) as BrowserFile[])
    fs.writeFileSync(path.join(out, 'examples/bidder-web', file), await bundleBrowserCode(file));
  process.stdout.write(`built ${path.relative(process.cwd(), out) || '.'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return 0;
}

runTool('build', main);
