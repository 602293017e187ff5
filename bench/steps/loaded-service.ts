/**
 * The steps `backoffice`, `bidding`, `push`, `prints` and `accounts` on the first start's service after its loads,
 * and its memory and heap between them.
 */
import { accounts, type AccountsResult } from '../accounts.ts';
import { backOfficeBench, type BackOfficeResult } from '../backoffice.ts';
import { biddingBench, type BiddingResult } from '../bidding.ts';
import { readHeap, type HeapReading } from '../heap.ts';
import { loadOptions, opts } from '../options.ts';
import { prints, type PrintsResult } from '../prints.ts';
import { memoryOf, say, type Memory } from '../processes.ts';
import { pushBench, PUSH_MEMBERS, type PushResult } from '../push.ts';
import { showHeap } from '../show-heap.ts';
import { fmt } from '../stats.ts';
import type { FirstService } from './first-start.ts';

/** The back office's feed, stream and webhooks (BACKOFFICE.md). */
export async function backOfficeStep({ client, memberHeaders, svcTarget }: FirstService): Promise<BackOfficeResult> {
  say('back office: feed pages, 500 streams, 10 webhooks, and the watchlist PUT with streams and webhooks attached');
  return backOfficeBench(client, memberHeaders, loadOptions, opts.rounds, svcTarget, opts.lots);
}

/** Timed bidding (bench/bidding.ts). */
export async function biddingStep(first: FirstService): Promise<BiddingResult> {
  say('timed bidding: a hot lot, 1,000 lots, the lot page with bids arriving, 1,000 auction streams, a closing storm');
  return biddingBench(
    first.client,
    first.dataset,
    first.biddingFixture!,
    first.catalogueHeaders,
    loadOptions,
    opts.rounds,
    first.svcTarget,
  );
}

/** One lot's close told to 5,000 push subscriptions (bench/push.ts). */
export async function pushStep(first: FirstService): Promise<PushResult> {
  say(`push: ${fmt(PUSH_MEMBERS)} subscriptions told of one lot's close (won and lost)`);
  const pushes = await pushBench(first.client, first.dataset, first.pushFixture!, first.svc.pid);
  say(
    `  ${fmt(pushes.pushes)} pushes: the last ${pushes.secondsToLast.toFixed(1)} s after the lot's end (first ${pushes.secondsToFirst.toFixed(1)} s), ` +
      `${fmt(pushes.pushesPerSecond)}/s; service CPU ${pushes.cpuMsPerPush.toFixed(2)} ms a push (encryption alone ${pushes.encryptMsPerPush.toFixed(2)} ms)`,
  );
  return pushes;
}

/** The service's memory (VmHWM, VmRSS) and V8 heap after the loads. */
export async function memoryAfterLoads({ svc }: FirstService): Promise<{ memory: Memory | null; heapAfterLoads: HeapReading }> {
  const memory = memoryOf(svc.pid);
  say(`service memory: VmHWM ${fmt((memory?.vmHwmBytes ?? NaN) / 1048576)} MiB, VmRSS ${fmt((memory?.vmRssBytes ?? NaN) / 1048576)} MiB`);
  const heapAfterLoads = await readHeap(opts.port, svc.pid);
  say(`  heap used after the loads: ${showHeap(heapAfterLoads)}`);
  return { memory, heapAfterLoads };
}

/** The catalogue PDF and the spreadsheet export (bench/prints.ts). */
export const printsStep = ({ client, anon, svc }: FirstService): Promise<PrintsResult> => prints(client, anon, svc.pid);

/** Sign-up flows beside the lot page (bench/accounts.ts). */
export const accountsStep = ({ client, anon, dataset }: FirstService): Promise<AccountsResult> =>
  accounts(client, anon, opts.duration, dataset.dataDir);
