/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time, self time
 * per file or package, and the project functions with the most inclusive time.
 *
 *   npx tsx bench/cpuprofile.ts FILE.cpuprofile [--top 20] [--since SECONDS] [--until SECONDS]
 *
 * --since/--until keep only the samples in that window (seconds from the profile's start), e.g. one load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Time outside JavaScript idle: everything but (idle). */
  busyMs: number;
  selfByFunction: ProfileRow[];
  selfByFile: ProfileRow[];
  inclusiveProject: ProfileRow[];
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function shortUrl(url: string): string {
  if (!url) return '';
  let p = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const nm = p.lastIndexOf('/node_modules/');
  if (nm >= 0) return p.slice(nm + '/node_modules/'.length);
  if (p.startsWith(ROOT + '/')) p = p.slice(ROOT.length + 1);
  return p;
}

/** The package (node_modules/<pkg>) or project file a frame belongs to. */
function fileKey(frame: CallFrame): string {
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const s = shortUrl(frame.url);
  const full = frame.url.startsWith('file://') ? decodeURIComponent(new URL(frame.url).pathname) : frame.url;
  if (full.includes('/node_modules/')) {
    const parts = s.split('/');
    return `[pkg] ${parts[0].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]}`;
  }
  return s;
}

function functionKey(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  // tsx's compiled line numbers do not match the .ts sources (no source maps in the profile): file only.
  if (/\.[cm]?tsx?$/.test(frame.url)) return `${name} ${shortUrl(frame.url)}`;
  return `${name} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
}

function isProject(frame: CallFrame): boolean {
  return frame.url.startsWith('file://') && !frame.url.includes('/node_modules/');
}

export function summariseProfile(file: string, options: { top?: number; sinceSec?: number; untilSec?: number } = {}): ProfileSummary {
  const top = options.top ?? 20;
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) byId.set(node.id, node);
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<string, number>();
  const selfFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let t = 0;
  const since = (options.sinceSec ?? 0) * 1e6;
  const until = options.untilSec === undefined ? Infinity : options.untilSec * 1e6;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < since || t > until) continue;
    // A sample stands for the time until the next one.
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    total += dt;
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    const key = functionKey(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + dt);
    const fk = fileKey(node.callFrame);
    selfFile.set(fk, (selfFile.get(fk) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (!isProject(frame)) continue;
      const k = functionKey(frame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
    }
  }
  const busy = total - idle;
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), share: busy > 0 ? ms / busy : 0 }));
  return {
    file,
    totalMs: Math.round(total),
    busyMs: Math.round(busy),
    selfByFunction: rows(self),
    selfByFile: rows(selfFile),
    inclusiveProject: rows(inclusive),
  };
}

export function formatProfile(s: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)}%`;
  const block = (title: string, rows: ProfileRow[]) =>
    [`  ${title}`, ...rows.map((r) => `    ${String(r.ms).padStart(7)} ms ${pct(r.share)}  ${r.name}`)].join('\n');
  return [
    `profile ${path.relative(process.cwd(), s.file)}: ${s.totalMs} ms sampled, ${s.busyMs} ms busy (shares are of busy time)`,
    block('self time by function', s.selfByFunction),
    block('self time by file / package', s.selfByFile),
    block('inclusive time, project functions', s.inclusiveProject),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: npx tsx bench/cpuprofile.ts FILE.cpuprofile [--top 20] [--since S] [--until S]\n');
    process.exit(2);
  }
  const opt = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : undefined;
  };
  process.stdout.write(formatProfile(summariseProfile(file, { top: opt('top'), sinceSec: opt('since'), untilSec: opt('until') })) + '\n');
}
