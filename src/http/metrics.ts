import { JobDeferred } from '../ports/jobs.ts';
import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ProjectionStatus } from '../projector/status.ts';
import type { Counters } from '../counters.ts';
import type { StorageRoom } from '../storage-room.ts';
import type { ParkedSummary } from './ops-routes.ts';
import type { RoundTrips } from '../round-trips.ts';

/** What the metrics read when scraped. */
export interface MetricSources {
  role: string;
  projections?: () => Promise<Record<string, ProjectionStatus>>;
  /** What the projections and the job queue parked (`npm run parked`). */
  parked?: () => Promise<ParkedSummary>;
  /** The projections reported with a 0 while they have nothing parked. */
  projectionNames?: readonly string[];
}

/**
 * Prometheus metrics of one process (API.md "Running"): requests by operation and status, their
 * durations, projection lag, and jobs run by name and outcome, plus Node's own process metrics. Labels are
 * bounded: the operation id (or `none` for routes outside the table), never a path with ids in it.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'operation' | 'method' | 'status'>;
  private readonly duration: Histogram<'operation' | 'method'>;
  private readonly roundTrips: Counter<'operation' | 'engine'>;
  private readonly jobs: Counter<'job' | 'outcome'>;
  private readonly jobDuration: Histogram<'job'>;
  private readonly deliveries: Counter<'outcome'>;
  private readonly deliveryLag: Gauge<'webhook'>;
  private feedReadersOf: () => number = () => 0;
  private auctionStreamsOf: () => number = () => 0;
  private memberStreamsOf: () => number = () => 0;
  /** What the webhook dispatcher reports (its deliveries by outcome, and the lag of each webhook as `tenant/id`). */
  readonly webhooks = {
    delivery: (outcome: 'delivered' | 'failed') => this.deliveries.inc({ outcome }),
    lag: (webhook: string, seconds: number | null) => {
      if (seconds === null) this.deliveryLag.remove({ webhook });
      else this.deliveryLag.set({ webhook }, seconds);
    },
  };

  /** The counters features declare (src/counters.ts), made on first use. */
  private readonly declared = new Map<string, Counter<string>>();
  readonly counters: Counters = {
    inc: (spec, labels) => {
      let counter = this.declared.get(spec.name);
      if (!counter) {
        counter = new Counter({ name: spec.name, help: spec.help, labelNames: [...spec.labelNames], registers: [this.registry] });
        this.declared.set(spec.name, counter);
      }
      counter.inc((labels ?? {}) as Record<string, string>);
    },
  };

  /** Where the auction-streams gauge reads from (the open GET /v1/auctions/{id}/stream of this process). */
  auctionStreams(count: () => number): void {
    this.auctionStreamsOf = count;
  }

  /** Where the member-streams gauge reads from (the open GET /v1/me/stream of this process). */
  memberStreams(count: () => number): void {
    this.memberStreamsOf = count;
  }

  /** The storage-full episode of the process (src/storage-room.ts): a gauge of it, and a count of the writes it refused. */
  storage(room: StorageRoom): void {
    new Gauge({
      name: 'bidder_storage_full',
      help: '1 while a store has no room for writes (a full disk): writes are answered 503 storage-full, reads go on.',
      registers: [this.registry],
      collect() {
        this.set(room.full ? 1 : 0);
      },
    });
    const refused = new Counter({
      name: 'bidder_storage_full_writes_total',
      help: 'Writes refused because a store had no room, by who asked (request, projection, job, search, lease).',
      labelNames: ['source'],
      registers: [this.registry],
    });
    room.onRefused((source) => refused.inc({ source }));
  }

  /** The delivery channels of a process that sends (src/adapters/delivery/channel-states.ts): 1 while a channel is down. */
  deliveryChannels(states: () => Record<string, { state: 'up' | 'down' }>): void {
    new Gauge({
      name: 'bidder_delivery_channel_down',
      help: '1 while a delivery channel (mail, sms) is down: a failure of its set-up (a refused password or sender, no connection); its messages wait.',
      labelNames: ['channel'],
      registers: [this.registry],
      collect() {
        for (const [channel, status] of Object.entries(states())) this.set({ channel }, status.state === 'down' ? 1 : 0);
      },
    });
  }

  /** Where the feed-readers gauge reads from (the process's event feed). */
  feedReaders(count: () => number): void {
    this.feedReadersOf = count;
  }

  constructor(sources: MetricSources) {
    this.registry.setDefaultLabels({ role: sources.role });
    collectDefaultMetrics({ register: this.registry, prefix: 'bidder_' });
    const requests = requestMetrics(this.registry);
    this.requests = requests.count;
    this.duration = requests.duration;
    this.roundTrips = requests.roundTrips;
    const jobs = jobMetrics(this.registry);
    this.jobs = jobs.count;
    this.jobDuration = jobs.duration;
    const webhooks = webhookMetrics(this.registry);
    this.deliveries = webhooks.deliveries;
    this.deliveryLag = webhooks.lag;
    this.streamGauges();
    if (sources.projections) this.projectionGauges(sources.projections);
    if (sources.parked) this.parkedGauges(sources.parked, sources.projectionNames ?? []);
  }

  /** The streams and feed readers open in this process, read when scraped from where they were last set. */
  private streamGauges(): void {
    const readers = () => this.feedReadersOf();
    const auctionStreams = () => this.auctionStreamsOf();
    new Gauge({
      name: 'bidder_auction_streams',
      help: 'Auction streams (GET /v1/auctions/{id}/stream) open in this process.',
      registers: [this.registry],
      collect() {
        this.set(auctionStreams());
      },
    });
    const memberStreams = () => this.memberStreamsOf();
    new Gauge({
      name: 'bidder_member_streams',
      help: 'Member streams (GET /v1/me/stream) open in this process.',
      registers: [this.registry],
      collect() {
        this.set(memberStreams());
      },
    });
    new Gauge({
      name: 'bidder_feed_readers',
      help: 'Back-office event streams open and long-polls waiting in this process.',
      registers: [this.registry],
      collect() {
        this.set(readers());
      },
    });
  }

  /** Each projection's lag, whether it caught up, and whether it is failing. */
  private projectionGauges(projections: () => Promise<Record<string, ProjectionStatus>>): void {
    let last: Promise<Record<string, ProjectionStatus>> | null = null;
    // One status read per scrape serves the three gauges.
    const read = () => (last ??= projections().finally(() => setTimeout(() => (last = null), 100)));
    new Gauge({
      name: 'bidder_projection_lag_seconds',
      help: 'Age of the oldest event a projection has not applied yet (0 when caught up).',
      labelNames: ['projection'],
      registers: [this.registry],
      async collect() {
        for (const [name, s] of Object.entries(await read())) this.set({ projection: name }, s.lagSeconds);
      },
    });
    new Gauge({
      name: 'bidder_projection_caught_up',
      help: '1 when the projection has reached the head of the event log.',
      labelNames: ['projection'],
      registers: [this.registry],
      async collect() {
        for (const [name, s] of Object.entries(await read())) this.set({ projection: name }, s.caughtUp ? 1 : 0);
      },
    });
    new Gauge({
      name: 'bidder_projection_failing',
      help: '1 while the projection retries after an error.',
      labelNames: ['projection'],
      registers: [this.registry],
      async collect() {
        for (const [name, s] of Object.entries(await read())) this.set({ projection: name }, s.error ? 1 : 0);
      },
    });
  }

  /** Events parked and held per projection, jobs parked per job name: 0 for projections with none, jobs only once parked. */
  private parkedGauges(parked: () => Promise<ParkedSummary>, projections: readonly string[]): void {
    let last: Promise<ParkedSummary> | null = null;
    // One read per scrape serves the three gauges.
    const read = () => (last ??= parked().finally(() => setTimeout(() => (last = null), 100)));
    const gauge = (name: string, help: string, label: 'projection' | 'queue', values: (s: ParkedSummary) => Record<string, number>) =>
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers: [this.registry],
        async collect() {
          const counts = values(await read());
          this.reset();
          const names = label === 'projection' ? new Set([...projections, ...Object.keys(counts)]) : Object.keys(counts);
          for (const key of names) this.set({ [label]: key }, counts[key] ?? 0);
        },
      });
    const of = (field: 'parked' | 'held') => (s: ParkedSummary) =>
      Object.fromEntries(Object.entries(s.projections).map(([name, tally]) => [name, tally[field]]));
    gauge(
      'bidder_projection_parked',
      'Events a projection parked: its tries failed; not applied until `npm run parked -- retry`.',
      'projection',
      of('parked'),
    );
    gauge(
      'bidder_projection_held',
      'Events a projection holds behind a parked event of their stream (not applied either).',
      'projection',
      of('held'),
    );
    gauge(
      'bidder_jobs_parked',
      'Background jobs parked, by job name (queue): their tries are spent; `npm run parked` lists them.',
      'queue',
      (s) => s.jobs,
    );
  }

  /**
   * Labelled series by operation, method and status, looked up once per combination rather than hashed
   * from their labels (or from a key built of them) on every request.
   */
  private readonly series = new Map<
    string,
    Map<string, { timer: { observe(seconds: number): void }; counters: Map<number, { inc(): void }> }>
  >();
  private readonly tripSeries = new Map<string, Record<keyof RoundTrips, { inc(n: number): void }>>();

  /** Counts and times one answered request; `operation` is the operation id, or `none` outside the table. */
  observe(operation: string, method: string, status: number, seconds: number, trips?: RoundTrips): void {
    if (trips && (trips.postgres > 0 || trips.redis > 0)) this.countRoundTrips(operation, trips);
    let byMethod = this.series.get(operation);
    if (!byMethod) this.series.set(operation, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) byMethod.set(method, (series = { timer: this.duration.labels({ operation, method }), counters: new Map() }));
    series.timer.observe(seconds);
    let counter = series.counters.get(status);
    if (!counter) series.counters.set(status, (counter = this.requests.labels({ operation, method, status: String(status) })));
    counter.inc();
  }

  private countRoundTrips(operation: string, trips: RoundTrips): void {
    let series = this.tripSeries.get(operation);
    if (!series) {
      const of = (engine: keyof RoundTrips) => this.roundTrips.labels({ operation, engine });
      this.tripSeries.set(operation, (series = { postgres: of('postgres'), redis: of('redis') }));
    }
    if (trips.postgres > 0) series.postgres.inc(trips.postgres);
    if (trips.redis > 0) series.redis.inc(trips.redis);
  }

  /** Counts and times every request; the operation id is set by the route that answered (res.locals.operationId). */
  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const operation = typeof res.locals.operationId === 'string' ? res.locals.operationId : 'none';
        this.observe(operation, req.method, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
      });
      next();
    };
  }

  /** Wraps a job processor so each try is counted and timed. */
  job<J>(name: string, processor: (job: J) => Promise<void>): (job: J) => Promise<void> {
    return async (job: J) => {
      const end = this.jobDuration.startTimer({ job: name });
      try {
        await processor(job);
        this.jobs.inc({ job: name, outcome: 'completed' });
      } catch (error) {
        this.jobs.inc({ job: name, outcome: error instanceof JobDeferred ? 'deferred' : 'failed' });
        throw error;
      } finally {
        end();
      }
    };
  }

  async answer(_req: Request, res: Response): Promise<void> {
    res.setHeader('Content-Type', this.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(await this.registry.metrics());
  }
}

/** Requests answered by operation, method and status, their durations, and their round trips to PostgreSQL and Redis. */
function requestMetrics(registry: Registry) {
  const count = new Counter({
    name: 'bidder_http_requests_total',
    help: 'HTTP requests answered, by operation id, method and status code.',
    labelNames: ['operation', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'bidder_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by operation id and method.',
    labelNames: ['operation', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const roundTrips = new Counter({
    name: 'bidder_round_trips_total',
    help: 'Round trips to PostgreSQL and Redis made while answering requests (a statement, a command or a pipeline each), by operation id and engine.',
    labelNames: ['operation', 'engine'] as const,
    registers: [registry],
  });
  return { count, duration, roundTrips };
}

/** Background job tries by name and outcome, and their durations. */
function jobMetrics(registry: Registry) {
  const count = new Counter({
    name: 'bidder_jobs_total',
    help: 'Background job runs in this process, by job name and outcome (completed; failed: a try that threw; deferred: a try given back, a delivery channel down).',
    labelNames: ['job', 'outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'bidder_job_duration_seconds',
    help: 'Time of one background job try, by job name.',
    labelNames: ['job'] as const,
    buckets: [0.005, 0.025, 0.1, 0.5, 2.5, 10, 60],
    registers: [registry],
  });
  return { count, duration };
}

/** Webhook delivery tries by outcome, and each webhook's lag. */
function webhookMetrics(registry: Registry) {
  const deliveries = new Counter({
    name: 'bidder_webhook_deliveries_total',
    help: 'Webhook delivery tries, by outcome (delivered: a 2xx within 10 s; failed: anything else).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'bidder_webhook_delivery_lag_seconds',
    help: 'Age of the event a webhook was last tried with, at that try (0 once caught up; kept while disabled), by webhook (tenant/id).',
    labelNames: ['webhook'] as const,
    registers: [registry],
  });
  return { deliveries, lag };
}
