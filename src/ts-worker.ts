// A worker thread running a TypeScript module of this project: the service runs under tsx, whose loader a worker
// thread does not inherit from `--import tsx`, so the thread registers it before importing the module.
import { Worker, type WorkerOptions } from 'node:worker_threads';

const TSX_API = import.meta.resolve('tsx/esm/api');

export function tsWorker(module: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const boot = `import(${JSON.stringify(TSX_API)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
