// Counters of what the service decided (bids by outcome, lots closed), declared by the feature that counts
// them and exported on /metrics (src/http/metrics.ts); counting does nothing when metrics are off.

export interface CounterSpec<L extends string = string> {
  /** The Prometheus name (`bidder_…_total`). */
  name: string;
  help: string;
  labelNames: readonly L[];
}

/** Declares a counter (in the feature that counts it). */
export const defineCounter = <L extends string>(spec: CounterSpec<L>): CounterSpec<L> => spec;

export interface Counters {
  inc<L extends string>(counter: CounterSpec<L>, labels?: Partial<Record<L, string>>): void;
}

/** Where metrics are off. */
export const noCounters: Counters = { inc() {} };
