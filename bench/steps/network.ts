/** The steps `pg-network` and `pg-writers` (bench/pg-network.ts, bench/pg-writers.ts): their tables printed as they end. */
import { has, opts } from '../options.ts';
import { pgNetworkReport, pgNetworkStep } from '../pg-network.ts';
import { pgWritersReport, pgWritersStep } from '../pg-writers.ts';
import { shownUrl, unreachable } from '../postgres.ts';
import { say } from '../processes.ts';

export async function networkSteps() {
  const skipped = await unreachable(opts.postgresUrl);
  if (skipped) return say(`pg-network, pg-writers: ${shownUrl(opts.postgresUrl)} cannot be reached (${skipped}): skipped`);
  const lines: string[] = [];
  if (has('pg-network')) {
    const runs = await pgNetworkStep({
      postgresUrl: opts.postgresUrl,
      redisUrl: opts.redisUrl,
      port: opts.postgresPort,
      rttsMs: opts.networkRtts,
      requests: opts.networkRequests,
    });
    lines.push(...pgNetworkReport(runs));
  }
  if (has('pg-writers')) lines.push(...pgWritersReport(await pgWritersStep(opts.postgresUrl, opts.networkRtts.slice(0, 1), opts.duration)));
  process.stdout.write(`${lines.join('\n')}\n`);
}
