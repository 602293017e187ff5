/** --profile: the service's .cpuprofile (node --cpu-prof) cut into the measured window of each load. */
import fs from 'node:fs';
import path from 'node:path';
import type { BiddingResult } from '../bidding.ts';
import { summariseProfile, type ProfileSummary } from '../cpuprofile.ts';
import type { LoadResult } from '../loads.ts';
import type { SingleProcessLoads } from './single-process-loads.ts';
import { say } from '../processes.ts';

export interface LoadProfiles {
  file: string | null;
  perLoad: Array<{ name: string; round: number; profile: ProfileSummary }>;
}

function newestProfile(dir: string): string | null {
  if (!fs.existsSync(dir)) return null;
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (tsx's loader runs in another).
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
    .map((f) => path.join(dir, f));
  files.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0] ?? null;
}

/** The top self-time functions of each load of the first start (not the ceiling's), once its service stopped. */
export function profileOfLoads(profileDir: string, single: SingleProcessLoads, bidding: BiddingResult | null): LoadProfiles {
  // The sale day's paced kinds alone, each as a load of its own (only its name, round and window are read).
  const saleDay = single.saleDay.flatMap((d) => [
    { ...d.page, name: 'sale day: watchlist PUTs paced alone', window: d.alone.watch.window },
    { ...d.page, name: 'sale day: distinct searches paced alone', window: d.alone.distinct.window },
    d.page,
  ]);
  return profileOfWindows(profileDir, [
    ...Object.values(single.loads).flat(),
    ...saleDay,
    ...(bidding ? [...bidding.hot, ...bidding.spread, ...bidding.page.alone, ...bidding.page.withBids] : []),
  ]);
}

/** The top self-time functions of the newest profile in `profileDir`, cut into each load's measured window. */
export function profileOfWindows(profileDir: string, loads: LoadResult[]): LoadProfiles {
  const perLoad: LoadProfiles['perLoad'] = [];
  const file = newestProfile(profileDir);
  if (!file) say('no .cpuprofile was written');
  else
    for (const l of loads.filter((x) => x.window && !x.name.startsWith('ceiling')))
      perLoad.push({
        name: l.name,
        round: l.round,
        profile: summariseProfile(file, { top: 12, sinceSec: l.window!.fromMs / 1000, untilSec: l.window!.toMs / 1000 }),
      });
  return { file, perLoad };
}
