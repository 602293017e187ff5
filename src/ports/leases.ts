/**
 * Leases: which process runs a singleton role (`projector`, `worker`) on a set of engines. A lease names its
 * holder and expires unless renewed, so a holder that died without letting go is replaced after its time
 * (at once when it ran on this host and its process is gone). Embedded: a table in the data folder;
 * production: Redis (SET NX PX) or MongoDB, beside the state the role writes.
 */
export interface LeaseHolder {
  /** Random per process start. */
  id: string;
  host: string;
  pid: number;
  role: string;
  startedAt: string;
}

export interface LeaseStore {
  /**
   * Takes the lease when it is free, expired, held by `holder` already, or held by a process of this host
   * that no longer runs. Answers the holder that keeps it otherwise.
   */
  acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<{ acquired: true } | { acquired: false; heldBy: LeaseHolder }>;
  /** Extends a lease this holder has; false when it was lost (expired and taken by another). */
  renew(name: string, holder: LeaseHolder, ttlMs: number): Promise<boolean>;
  release(name: string, holder: LeaseHolder): Promise<void>;
  close(): Promise<void>;
}

/** Whether a holder recorded on this host is gone: its process ended, or it was an earlier life of this one. */
export function holderIsGone(holder: LeaseHolder, self: LeaseHolder): boolean {
  if (holder.host !== self.host) return false;
  if (holder.pid === self.pid) return holder.id !== self.id;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
