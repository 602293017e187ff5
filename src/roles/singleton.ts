import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { LeaseHolder, LeaseStore } from '../ports/leases.ts';
import type { Logger } from '../logger.ts';
import type { StorageFaults } from '../storage-room.ts';

export class RoleRefusedError extends Error {
  constructor(
    readonly lease: string,
    readonly heldBy: LeaseHolder,
  ) {
    super(
      `another ${heldBy.role} process (pid ${heldBy.pid} on ${heldBy.host}, started ${heldBy.startedAt}) already runs the ` +
        `${lease} on these engines; a second one is refused. Stop it first, or start more HTTP processes with ROLE=api.`,
    );
    this.name = 'RoleRefusedError';
  }
}

export function leaseHolder(role: string): LeaseHolder {
  return { id: randomUUID(), host: os.hostname(), pid: process.pid, role, startedAt: new Date().toISOString() };
}

export interface HeldLease {
  release(): Promise<void>;
}

/**
 * Takes a singleton lease for this process's lifetime, renewing it in the background. A lease held by a
 * live process elsewhere is waited for at most its time to live (a holder that crashed on another host
 * lets it expire), then the start is refused. Losing the lease later (this process stalled past its time
 * and another took over) ends the process: two projectors must never write at once.
 */
export async function holdLease(
  store: LeaseStore,
  name: string,
  holder: LeaseHolder,
  logger: Logger,
  options: { ttlMs?: number; waitMs?: number; onLost?: () => void; storage?: StorageFaults } = {},
): Promise<HeldLease> {
  const ttlMs = options.ttlMs ?? 15_000;
  const deadline = Date.now() + (options.waitMs ?? ttlMs + 1000);
  for (;;) {
    const answer = await store.acquire(name, holder, ttlMs);
    if (answer.acquired) break;
    // A holder on this host is known to run (the store checked its process); one elsewhere may have died
    // without letting go, so it is given its time to live.
    if (answer.heldBy.host === holder.host || Date.now() >= deadline) throw new RoleRefusedError(name, answer.heldBy);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  let released = false;
  const timer = setInterval(
    () => {
      store.renew(name, holder, ttlMs).then(
        (kept) => {
          if (kept || released) return;
          logger.fatal({ lease: name }, 'lease lost to another process; stopping');
          (options.onLost ?? (() => process.exit(1)))();
        },
        (error) => {
          // A full disk is logged once by the storage's record, not at every renewal.
          if (!options.storage?.refused(error, 'lease'))
            logger.error({ lease: name, err: String(error) }, 'lease renewal failed; retrying');
        },
      );
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await store.release(name, holder).catch(() => undefined);
    },
  };
}
