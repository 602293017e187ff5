// A worker thread running a module of this project. Under tsx (`npm start`, the specs) the module is TypeScript, and
// a worker thread does not inherit the loader of `--import tsx`, so the thread registers it before importing the
// module; compiled (`npm run build`, the image), the module is JavaScript and the thread runs it as it is.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A module beside `base` (an `import.meta.url`) named by its `.ts` file: `.js` when `base` itself is compiled. */
export function siblingModule(file: string, base: string): URL {
  return new URL(new URL(base).pathname.endsWith('.ts') ? file : file.replace(/\.ts$/, '.js'), base);
}

/**
 * tsx's ESM API. Where this module itself came through tsx's CommonJS hooks (mocha requires the specs) `import.meta`
 * has no `resolve`: then the package's exports map names it (require would give its CommonJS build).
 */
function tsxApi(): string {
  if (typeof import.meta.resolve === 'function') return import.meta.resolve('tsx/esm/api');
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(path.join(path.dirname(manifest), exports['./esm/api'].import.default)).href;
}

export function moduleWorker(module: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  if (!module.pathname.endsWith('.ts')) return new Worker(module, options);
  const boot = `import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
