/** The step `postgres`: the same loads on PostgreSQL beside the embedded service still running, rounds interleaved. */
import path from 'node:path';
import { has, loadOptions, opts } from '../options.ts';
import { postgresColumn, shownUrl, unreachable, type PostgresColumn } from '../postgres.ts';
import { say } from '../processes.ts';
import { startService } from '../service-process.ts';
import type { FirstService } from './first-start.ts';
import { profileOfWindows, type LoadProfiles } from './profile.ts';

/** The PostgreSQL column, or why it was skipped (its URL cannot be reached). */
export interface PostgresStepResult {
  postgres: PostgresColumn | null;
  skipped: string | null;
  /** --profile: the PostgreSQL service's own .cpuprofile, cut into its loads' windows. */
  profile?: LoadProfiles;
}

export async function postgresStep(first: FirstService): Promise<PostgresStepResult> {
  const skipped = await unreachable(opts.postgresUrl);
  if (skipped) {
    say(`postgres: ${shownUrl(opts.postgresUrl)} cannot be reached (${skipped}): the step is skipped`);
    return { postgres: null, skipped };
  }
  say('postgres: appends, replay, the lot page, the watchlist PUT and a hot lot on PostgreSQL beside the embedded default');
  const fixture = first.biddingFixture!;
  // The timed bidding step's hot lots are the fixture's first ones: this step takes those after them.
  const hotTaken = has('bidding') ? Math.min(opts.rounds, fixture.hotLots.length) : 0;
  const profileDir = path.join(first.profileDir, 'postgres');
  const flags = opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const postgres = await postgresColumn({
    url: opts.postgresUrl,
    port: opts.postgresPort,
    dataset: first.dataset,
    embedded: { client: first.client, target: first.svcTarget },
    startService: (name, ds, env) => startService(name, ds, flags, opts.apiProcesses, env),
    memberEmail: first.pgMember!.email,
    bidders: fixture.members,
    hotLots: fixture.hotLots.slice(hotTaken, hotTaken + opts.rounds),
    loadOptions,
    rounds: opts.rounds,
    appendSeconds: opts.duration,
  });
  if (!opts.profile) return { postgres, skipped: null };
  const { lots, watch, hot } = postgres.postgres;
  return { postgres, skipped: null, profile: profileOfWindows(profileDir, [...lots, ...watch, ...hot]) };
}
