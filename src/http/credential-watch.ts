// An open stream's credential, watched while the stream lasts: it ends at the credential's expiry (a ticket's or
// token's `exp`), and when the credential is revoked: a change on its Api-Key's, house's or member's log stream,
// seen by every process on the log's shared subscription, has it checked again once the read models include it.
import { z } from './schemas.ts';
import type { StreamListener } from '../events/feed.ts';
import type { TenantContext } from './operation.ts';

/** Why a stream ended (the `end` event's data). */
export interface CredentialEnd {
  Code: 'credential-expired' | 'credential-revoked';
  Reason: string;
}

/** The `end` event of the streams opened with a credential (OutputSpec.streamEvents). */
export const streamEndEvent = z
  .object({
    Code: z.enum(['credential-expired', 'credential-revoked']),
    Reason: z.string().max(200),
  })
  .openapi('StreamEnd', {
    description:
      'The last event of a stream: `credential-expired` when the ticket (or token) it was opened with expires: open it again with a new ticket; ' +
      '`credential-revoked` when that credential stopped working (a password reset ended the sessions, the Api-Key no longer acts for the house, ' +
      'the house closed its public access): sign in or ask for a new token first. The service then ends the answer.',
  });

const EXPIRED: CredentialEnd = {
  Code: 'credential-expired',
  Reason: 'The ticket or token this stream was opened with has expired: open it again with a new one.',
};
const REVOKED: CredentialEnd = {
  Code: 'credential-revoked',
  Reason: 'The ticket or token this stream was opened with no longer works: get a new token, then a new ticket.',
};

/** setTimeout's longest delay; a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A check that could not read (a store unreachable) is tried again this much later; the stream stays open meanwhile. */
const RETRY_MS = 1000;

export interface CredentialWatch {
  /** Aborted when the stream is to end; `end` says why. */
  readonly ended: AbortSignal;
  readonly end: CredentialEnd | null;
  stop(): void;
}

/** What a watch works with (watchCaller builds it from a request's context). */
export interface WatchDeps {
  /** When the credential expires (epoch ms). */
  expiresAtMs: number;
  /** Listens to the events of the credential's streams (null: no revocation is seen, expiry only). */
  listen: ((listener: StreamListener) => Promise<() => void>) | null;
  /** The event types of those streams that may revoke it. */
  types: readonly string[];
  /** The log's head now. */
  head(): Promise<number>;
  /** Waits (bounded) until the read models the check reads events of these types from include `position`. */
  caughtUp(position: number, types: readonly string[]): Promise<void>;
  /** The credential checked again as of `position` (the read models having reached it). */
  stillHolds(position: number): Promise<boolean>;
  /** Told of a check that failed (tried again a second later, and told again once one has passed meanwhile). */
  failed?(error: unknown): void;
}

/**
 * Watches a credential from now on: listening first, then one check as of the log's head (what was revoked before
 * the listening began, and after the opening's own check, is seen by it), then one check per revoking event.
 */
export async function watchCredential(deps: WatchDeps): Promise<CredentialWatch> {
  const ended = new AbortController();
  /** Aborted by stop() or the end: no timer, listener or check is left running. */
  const over = new AbortController();
  let end: CredentialEnd | null = null;
  let timer: NodeJS.Timeout | null = null;
  let unlisten: (() => void) | null = null;
  const finish = (why: CredentialEnd) => {
    if (over.signal.aborted) return;
    end = why;
    stop();
    ended.abort();
  };
  const stop = () => {
    over.abort();
    if (timer) clearTimeout(timer);
    timer = null;
    unlisten?.();
    unlisten = null;
  };
  const armExpiry = () => {
    const left = deps.expiresAtMs - Date.now();
    if (left <= 0) return finish(EXPIRED);
    timer = setTimeout(armExpiry, Math.min(left, MAX_TIMER_MS)).unref();
  };
  armExpiry();
  if (deps.listen && !over.signal.aborted) {
    const checks = new Checks(deps, () => finish(REVOKED), over.signal);
    const types = new Set(deps.types);
    const off = await deps.listen((event) => {
      if (types.has(event.type)) checks.ask(event.position, [event.type]);
    });
    if (over.signal.aborted) off();
    else unlisten = off;
    checks.ask(AT_HEAD, deps.types);
  }
  return {
    ended: ended.signal,
    get end() {
      return end;
    },
    stop,
  };
}

/** A check as of the log's head when it runs (then at least as late as any event seen before). */
const AT_HEAD = Number.POSITIVE_INFINITY;

/** The checks of one watch, one at a time: asks that come while one runs are made one check, as of the latest. */
class Checks {
  private running = false;
  /** The next check: as of this position, once the read models of these types include it (null: none asked). */
  private next: { position: number; types: Set<string> } | null = null;
  /** The last check failed (its failure told once, not at every retry). */
  private failing = false;

  constructor(
    private readonly deps: WatchDeps,
    private readonly revoked: () => void,
    private readonly over: AbortSignal,
  ) {}

  ask(position: number, types: Iterable<string>): void {
    if (this.over.aborted) return;
    const next = (this.next ??= { position, types: new Set() });
    next.position = Math.max(next.position, position);
    for (const type of types) next.types.add(type);
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.next !== null && !this.over.aborted) {
        const asked = this.next;
        this.next = null;
        try {
          const position = asked.position === AT_HEAD ? await this.deps.head() : asked.position;
          await this.deps.caughtUp(position, [...asked.types]);
          if (this.over.aborted) return;
          if (!(await this.deps.stillHolds(position))) return this.revoked();
          this.failing = false;
        } catch (error) {
          if (!this.failing) this.deps.failed?.(error);
          this.failing = true;
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
          this.ask(asked.position, asked.types);
        }
      }
    } finally {
      this.running = false;
    }
  }
}

/**
 * The watch of a stream's caller: its ticket's (or token's) expiry, and the checks its opening made, again (with
 * `member`: the member's too, as the member stream's opening checks it).
 */
export function watchCaller(ctx: TenantContext, options: { member: boolean }): Promise<CredentialWatch> {
  const { auth, claims, apiKey, events, commands, logger } = ctx;
  const sources = auth.credentialSources({ keyId: apiKey.keyId, tenant: claims.tenant, memberId: options.member ? claims.sub : null });
  return watchCredential({
    expiresAtMs: claims.exp * 1000,
    listen: sources && events ? (listener) => events.onStreams(sources.streams, listener) : null,
    types: Object.keys(sources?.types ?? {}),
    head: () => events!.head(),
    caughtUp: (position, types) => {
      const projections = new Set(types.flatMap((type) => sources?.types[type] ?? []));
      return commands.waitFor({ position, events: [], projections: [...projections] });
    },
    stillHolds: (asOf) => auth.stillHolds({ apiKeyHash: apiKey.hash, claims, member: options.member, asOf }),
    failed: (error) =>
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'stream credential check failed; retrying'),
  });
}
