/**
 * The bench's child processes: the service, the ceiling server and the CLIs, each `node --import tsx SCRIPT`
 * (no wrapper process, so a pid is the program's own), killed if the bench dies; and what the bench reads
 * of them (readiness, memory, output).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BENCH_DIR = path.join(ROOT, '.bench');

const t0 = Date.now();
export const say = (message: string) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const elapsedSeconds = () => (Date.now() - t0) / 1000;

/** Children started by this run; killed if the run dies. */
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    say(`${signal}: stopping children`);
    process.exit(130);
  });

export function spawnTs(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  stdio: Array<'pipe' | 'ignore' | 'inherit' | number>,
  nodeArgs: string[] = [],
) {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], { cwd: ROOT, env, stdio: stdio as never });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Runs a CLI to completion, capturing its output. */
export function runCli(script: string, args: string[], env: NodeJS.ProcessEnv, input?: string, nodeArgs: string[] = []) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawnTs(script, args, env, [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], nodeArgs);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19));
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
    if (input !== undefined) child.stdin!.end(input);
  });
}

export function lastJsonLine(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    const lines = trimmed.split('\n').filter((l) => l.startsWith('{'));
    return JSON.parse(lines[lines.length - 1]);
  }
}

export function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export interface Memory {
  vmHwmBytes: number;
  vmRssBytes: number;
}

export function memoryOf(pid: number): Memory | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { vmHwmBytes: kb('VmHWM'), vmRssBytes: kb('VmRSS') };
  } catch {
    return null;
  }
}

export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  spawnedAt: number;
  logFile: string;
  exited: Promise<number | null>;
}

/** A long-running child, its output in .bench/NAME.log. */
export function startProcess(name: string, script: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Proc {
  const logFile = path.join(BENCH_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'w');
  const spawnedAt = performance.now();
  const child = spawnTs(script, [], env, ['ignore', fd, fd], nodeArgs);
  fs.closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { name, child, pid: child.pid!, spawnedAt, logFile, exited };
}

/** Polls `url` until it answers 200; the milliseconds since the process was spawned. */
export async function waitFor200(proc: Proc, url: string, timeoutMs: number): Promise<number> {
  let dead = false;
  void proc.exited.then(() => (dead = true));
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (dead) throw new Error(`${proc.name} exited (code ${proc.child.exitCode}) before ${url} answered 200:\n${tail(proc.logFile)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - proc.spawnedAt;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`${proc.name}: ${url} did not answer 200 within ${timeoutMs / 1000} s:\n${tail(proc.logFile)}`);
}

/** SIGTERM, then SIGKILL after the timeout; the milliseconds it took to exit. */
export async function stopProcess(proc: Proc, timeoutMs = 30_000): Promise<number> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return 0;
  const started = performance.now();
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    say(`${proc.name} did not exit ${timeoutMs / 1000} s after SIGTERM: SIGKILL`);
    proc.child.kill('SIGKILL');
  }, timeoutMs);
  await proc.exited;
  clearTimeout(timer);
  return performance.now() - started;
}

/** CPU seconds a process has used so far (user + system, from /proc), or NaN. */
export function cpuSecondsOf(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The processes a process started, and theirs (from /proc: a cluster's workers), at this instant. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** CPU seconds of a process and all its descendants alive now (a cluster: the primary and its workers). */
export function cpuSecondsOfTree(pid: number): number {
  return [pid, ...descendantsOf(pid)].reduce((sum, p) => {
    const s = cpuSecondsOf(p);
    return Number.isFinite(s) ? sum + s : sum;
  }, 0);
}
