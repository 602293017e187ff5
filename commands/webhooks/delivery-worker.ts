// The webhooks' delivery worker (BACKOFFICE.md "Webhooks"), run by the worker role: one loop per webhook, in log
// order, one delivery at a time, retried on the contract's schedule; where each webhook stands is stored after every
// try, so a restart or a kill -9 goes on from the event that was not yet delivered (at least once, never skipped).
// Not a reactor: a reactor has one checkpoint and reacts to one event after another, while each webhook has its own
// cursor, its own retries (hours apart) and its own replays, and one failing receiver must not hold the others.
import type { FeatureWorker, WorkerDeps } from '../../src/feature.ts';
import type { WriteOp } from '../../src/ports/read-models.ts';
import { feedItemJson, type FeedEvent } from '../../src/events/feed-items.ts';
import { runCommand } from '../../src/command-runner.ts';
import { operatorScope, tenantsCollection } from '../../projections/access/index.ts';
import { webhooks, type WebhookDoc } from '../../projections/webhooks/index.ts';
import {
  deliveryLineId,
  DELIVERIES_KEPT,
  webhookCursors,
  WEBHOOK_CURSORS,
  WEBHOOK_DELIVERIES,
  type WebhookCursorDoc,
  type WebhookDeliveryDoc,
} from './collections.ts';
import { webhooksDecider } from './decide.ts';
import { webhooksStreamId } from './events.ts';
import { deliver, type DeliveryResult } from './delivery.ts';

/** Waits before the retries of a failed event (BACKOFFICE.md): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then disabled. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
/**
 * The checkpoint the worker's writes move (one step per write): a second worker's write then fails. Its stored
 * name is the one it had when the worker was called the dispatcher (a store keeps its fence across the rename).
 */
const FENCE = 'webhook-dispatcher';
/** How often the webhooks' read model is looked at for new, changed and deleted webhooks. */
const SYNC_MS = 500;
/** How long a caught-up webhook waits for a new event before looking at its webhook again. */
const WAIT_MS = 1000;
const PAGE = 100;

/**
 * The webhooks' delivery worker, registered by webhooksCommands. Its metrics: tries by outcome, and each webhook's
 * lag (`tenant/id`): seconds between the event's time and its last try (0: caught up; null: the webhook is gone).
 */
export class WebhookDeliveryWorker implements FeatureWorker {
  readonly name = 'webhook-deliveries';
  private readonly runners = new Map<string, Runner>();
  private readonly stopping = new AbortController();
  private fence = 0;
  private writes: Promise<unknown> = Promise.resolve();
  /** Writes asked for and not yet committed: the next commit takes them all. */
  private pending: Array<{ ops: WriteOp[]; done: (error?: unknown) => void }> = [];
  private syncing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: WorkerDeps) {}

  async start(): Promise<void> {
    this.fence = await this.deps.documents.getCheckpoint(FENCE);
    await this.sync();
    const tick = () => {
      this.timer = setTimeout(() => {
        this.syncing = this.sync()
          .catch((error) => this.deps.logger.error({ err: String(error) }, 'webhooks: reading the webhooks failed; retrying'))
          .finally(() => {
            this.syncing = null;
            if (!this.stopping.signal.aborted) tick();
          });
      }, SYNC_MS);
    };
    tick();
  }

  /** Stops taking new tries and waits for the ones in flight (at most graceMs: a delivery takes at most 10 s). */
  async stop(graceMs = 11_000): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.syncing;
    const done = Promise.all([...this.runners.values()].map((r) => r.done));
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
  }

  /** Starts a loop for each active webhook, hands changed ones to their loops, ends the loops of deleted ones. */
  private async sync(): Promise<void> {
    const { documents } = this.deps;
    const seen = new Set<string>();
    for (const tenant of await tenantsCollection(operatorScope(documents)).find({})) {
      for (const hook of await webhooks(documents.forTenant(tenant.Tenant)).find({})) {
        const key = `${tenant.Tenant}/${hook.Id}`;
        seen.add(key);
        const runner = this.runners.get(key);
        // A loop is told only of a change (it stops its page then, to read its webhook again).
        if (runner) {
          if (runner.hook && changed(runner.hook, hook)) runner.hook = hook;
        } else if (!this.stopping.signal.aborted) {
          const created = new Runner(this, this.deps, tenant.Tenant, hook, this.stopping.signal);
          this.runners.set(key, created);
          // A loop that failed (a store briefly unavailable) is dropped: the next sync starts another from its cursor.
          created.done = created.run().catch((error) => {
            this.deps.logger.error({ webhook: key, err: String(error) }, 'webhooks: loop failed; starting again');
            if (this.runners.get(key) === created) this.runners.delete(key);
          });
        }
      }
    }
    for (const [key, runner] of this.runners)
      if (!seen.has(key)) {
        runner.hook = null;
        this.runners.delete(key);
        this.deps.metrics?.lag(key, null);
      }
  }

  /**
   * Writes the worker's documents of one tenant. The writes the loops ask for during one turn of the event loop
   * (webhooks whose answers came together) are committed together, one commit at a time, each moving the fence;
   * every loop still waits for its own write before its next delivery.
   */
  write(tenant: string, cursor: WebhookCursorDoc, lines: WebhookDeliveryDoc[]): Promise<void> {
    const ops: WriteOp[] = [{ op: 'put', collection: WEBHOOK_CURSORS, tenant, doc: cursor }];
    for (const line of lines) {
      ops.push({ op: 'put', collection: WEBHOOK_DELIVERIES, tenant, doc: line });
      if (line.Line >= DELIVERIES_KEPT)
        ops.push({ op: 'delete', collection: WEBHOOK_DELIVERIES, tenant, id: deliveryLineId(line.WebhookId, line.Line - DELIVERIES_KEPT) });
    }
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ ops, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (this.pending.length === 1) setImmediate(() => (this.writes = this.writes.then(() => this.commitPending())));
    });
  }

  private async commitPending(): Promise<void> {
    const group = this.pending;
    this.pending = [];
    try {
      await this.deps.documents.live().commit(
        group.flatMap((write) => write.ops),
        { projection: FENCE, expected: this.fence, position: this.fence + 1 },
      );
      this.fence += 1;
      for (const write of group) write.done();
    } catch (error) {
      for (const write of group) write.done(error);
    }
  }
}

/** One webhook's loop: deliveries in log order, one at a time. */
class Runner {
  done: Promise<unknown> = Promise.resolve();
  private cursor: WebhookCursorDoc | null = null;

  constructor(
    private readonly worker: WebhookDeliveryWorker,
    private readonly deps: WorkerDeps,
    readonly tenant: string,
    /** The webhook as last read (null: deleted: the loop ends). */
    public hook: WebhookDoc | null,
    private readonly stopping: AbortSignal,
  ) {}

  private get key() {
    return `${this.tenant}/${this.hook?.Id}`;
  }

  async run(): Promise<void> {
    const db = this.deps.documents.forTenant(this.tenant);
    const id = this.hook!.Id;
    const stored = await webhookCursors(db).findById(String(id));
    this.cursor = stored ?? {
      _id: String(id),
      WebhookId: id,
      After: this.hook!.StartAfter,
      ReplaySeq: 0,
      Attempt: 0,
      NextAttemptAt: null,
      PendingEventId: null,
      PendingType: null,
      PendingPosition: null,
      LastDeliveredPosition: null,
      Lines: 0,
    };
    while (!this.stopping.aborted && this.hook) {
      const hook = this.hook;
      let cursor: WebhookCursorDoc = this.cursor;
      if (hook.ReplaySeq > cursor.ReplaySeq) {
        cursor = this.cursor = { ...cursor, After: hook.ReplayAfter, ReplaySeq: hook.ReplaySeq, ...notWaiting };
        await this.worker.write(this.tenant, cursor, []);
      }
      if (hook.Status !== 'active') {
        await sleep(WAIT_MS, this.stopping);
        continue;
      }
      const now = this.deps.now().getTime();
      if (cursor.NextAttemptAt !== null && cursor.NextAttemptAt > now) {
        await sleep(Math.min(cursor.NextAttemptAt - now, WAIT_MS), this.stopping);
        continue;
      }
      const page = await this.deps.feed.forTenant(this.tenant).page({
        after: cursor.After,
        types: hook.Types ? new Set(hook.Types) : null,
        limit: PAGE,
        waitMs: WAIT_MS,
        signal: this.stopping,
      });
      if (page.events.length === 0) {
        // Nothing for this webhook up to there: kept in memory (written with the next delivery).
        this.cursor = { ...cursor, After: Math.max(cursor.After, page.through) };
        this.deps.metrics?.lag(this.key, 0);
        continue;
      }
      for (const event of page.events) {
        if (this.stopping.aborted || this.hook !== hook) break;
        if (!(await this.deliverOne(hook, event))) break;
      }
    }
  }

  /**
   * Whether the webhook, read again, is still the one this delivery is for: after `DELETE` (or a change) has answered,
   * no delivery to it starts. The worker's sync learns of deletions only every SYNC_MS; this read is the last
   * step before the request is sent. A deleted webhook ends the loop, a changed one goes on as it now is.
   */
  private async stillDue(hook: WebhookDoc): Promise<boolean> {
    const now = await webhooks(this.deps.documents.forTenant(this.tenant)).findById(String(hook.Id));
    if (now && !changed(hook, now)) return true;
    if (this.hook === hook) this.hook = now;
    return false;
  }

  /** One try of one event; true when it was delivered (the loop goes on to the next). */
  private async deliverOne(hook: WebhookDoc, event: FeedEvent): Promise<boolean> {
    const cursor = this.cursor!;
    const attempt = cursor.Attempt + 1;
    const result: DeliveryResult = await deliver(
      this.deps.urls,
      { url: hook.Url, secret: hook.Secret },
      { id: event.id, body: feedItemJson(event) },
      this.deps.now,
      () => this.stillDue(hook),
    );
    if (result.cancelled) return false;
    const at = this.deps.now();
    this.deps.metrics?.delivery(result.delivered ? 'delivered' : 'failed');
    const line: WebhookDeliveryDoc = {
      _id: deliveryLineId(hook.Id, cursor.Lines),
      WebhookId: hook.Id,
      Line: cursor.Lines,
      EventId: event.id,
      Type: event.type,
      Position: event.position,
      Attempt: attempt,
      Outcome: result.delivered ? 'delivered' : 'failed',
      ResponseStatus: result.status,
      At: at.toISOString(),
    };
    const lagSeconds = Math.max(0, (at.getTime() - Date.parse(event.created)) / 1000);
    if (result.delivered) {
      this.cursor = { ...cursor, After: event.position, LastDeliveredPosition: event.position, Lines: cursor.Lines + 1, ...notWaiting };
      await this.worker.write(this.tenant, this.cursor, [line]);
      this.deps.metrics?.lag(this.key, lagSeconds);
      return true;
    }
    this.deps.logger.warn(
      { webhook: this.key, eventId: event.id, attempt, status: result.status, error: result.error },
      'webhooks: a delivery failed',
    );
    if (attempt > RETRY_SCHEDULE_MS.length) {
      // The last retry failed: the webhook is disabled, and goes on from this event when enabled again.
      this.cursor = { ...cursor, Lines: cursor.Lines + 1, ...notWaiting };
      await this.worker.write(this.tenant, this.cursor, [line]);
      await runCommand(this.deps.log, webhooksStreamId(this.tenant), webhooksDecider, {
        type: 'DisableWebhook',
        tenant: this.tenant,
        webhookId: hook.Id,
        eventId: event.id,
        attempts: attempt,
        at: at.toISOString(),
      });
      if (this.hook === hook) this.hook = { ...hook, Status: 'disabled' };
      this.deps.logger.warn({ webhook: this.key, eventId: event.id, attempts: attempt }, 'webhooks: disabled after its last retry');
      return false;
    }
    this.cursor = {
      ...cursor,
      Attempt: attempt,
      NextAttemptAt: at.getTime() + RETRY_SCHEDULE_MS[attempt - 1],
      PendingEventId: event.id,
      PendingType: event.type,
      PendingPosition: event.position,
      Lines: cursor.Lines + 1,
    };
    await this.worker.write(this.tenant, this.cursor, [line]);
    this.deps.metrics?.lag(this.key, lagSeconds);
    return false;
  }
}

const changed = (a: WebhookDoc, b: WebhookDoc) =>
  a.Status !== b.Status || a.ReplaySeq !== b.ReplaySeq || a.Url !== b.Url || a.Secret !== b.Secret || String(a.Types) !== String(b.Types);

const notWaiting = { Attempt: 0, NextAttemptAt: null, PendingEventId: null, PendingType: null, PendingPosition: null } as const;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The webhooks' workers, registered by webhooksCommands (commands/webhooks/index.ts). */
export function webhooksWorkers(deps: WorkerDeps): FeatureWorker[] {
  return [new WebhookDeliveryWorker(deps)];
}
