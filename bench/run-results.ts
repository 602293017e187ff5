/** What one run of the bench measured, step by step: the input of its printed report and of bench/results.json. */
import type { AccountsResult } from './accounts.ts';
import type { BackOfficeResult } from './backoffice.ts';
import type { BiddingResult } from './bidding.ts';
import type { HeapReading } from './heap.ts';
import type { PrintsResult } from './prints.ts';
import type { Memory } from './processes.ts';
import type { PushResult } from './push.ts';
import type { AllCoresResult } from './steps/all-cores.ts';
import type { FirstService } from './steps/first-start.ts';
import type { MillionResult } from './steps/million.ts';
import type { PostgresStepResult } from './steps/postgres.ts';
import type { Probes } from './steps/probes.ts';
import type { LoadProfiles } from './steps/profile.ts';
import type { ServiceStoppedResult } from './steps/service-stopped.ts';
import type { SingleProcessLoads } from './steps/single-process-loads.ts';

export interface RunResults {
  first: FirstService;
  probes: Probes;
  single: SingleProcessLoads;
  /** Distinct queries sent by both starts, per mix, and those skipped as asked before. */
  distinctUsed: number;
  typosUsed: number;
  skippedAsAsked: number;
  backOffice: BackOfficeResult | null;
  bidding: BiddingResult | null;
  pushes: PushResult | null;
  /** The first start's service after its loads. */
  memory: Memory | null;
  heapAfterLoads: HeapReading;
  printed: PrintsResult | null;
  accountFlows: AccountsResult | null;
  postgres: PostgresStepResult;
  shutdownMs: number;
  profile: LoadProfiles;
  allCoresResult: AllCoresResult | null;
  stopped: ServiceStoppedResult;
  millionResult: MillionResult | null;
}
