// Slots for long-lived answers (event streams, long-polls) in one process: a bound for the process, a share per
// tenant and, where asked, a bound per client address within a tenant, so that no client and no house can take
// every slot (API.md "Timed bidding", the auction stream; BACKOFFICE.md's streams get the same share per house).
import { ServiceUnavailableError, TooManyRequestsError } from '../errors.ts';

/** Seconds a refused client is told to wait (Retry-After): a slot frees when any stream of theirs ends. */
export const SLOT_RETRY_AFTER_SECONDS = 10;

export class StreamSlots {
  private open = 0;
  private readonly byTenant = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(
    /** What the slots hold, for the problem's detail ("auction streams"). */
    private readonly what: string,
    /** Slots of the process; one more is a 503. */
    readonly total: number,
    /** Slots of one client address within one tenant (null: no such bound); one more is a 429. */
    private readonly perAddress: number | null,
    /** Slots of one tenant: half the process's; one more is a 429. */
    readonly perTenant = Math.floor(total / 2),
  ) {}

  /** How many are held now (the gauge of /metrics). */
  get held(): number {
    return this.open;
  }

  /** Takes a slot for the tenant (and client address), or throws; the returned function gives it back (once). */
  take(tenant: string, address?: string): () => void {
    if (this.open >= this.total)
      throw new ServiceUnavailableError(`This process serves ${this.total} ${this.what} already; try again later.`);
    const tenantHeld = this.byTenant.get(tenant) ?? 0;
    if (tenantHeld >= this.perTenant)
      throw new TooManyRequestsError(
        `This house holds ${this.perTenant} ${this.what} of this process already, its share; try again when one has ended.`,
        SLOT_RETRY_AFTER_SECONDS,
        'too-many-streams',
      );
    const addressKey = this.perAddress !== null && address !== undefined ? `${tenant}\n${address}` : null;
    const addressHeld = addressKey === null ? 0 : (this.byAddress.get(addressKey) ?? 0);
    if (addressKey !== null && addressHeld >= this.perAddress!)
      throw new TooManyRequestsError(
        `This client address holds ${this.perAddress} ${this.what} of this house already; close one first.`,
        SLOT_RETRY_AFTER_SECONDS,
        'too-many-streams',
      );
    this.open += 1;
    this.byTenant.set(tenant, tenantHeld + 1);
    if (addressKey !== null) this.byAddress.set(addressKey, addressHeld + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.open -= 1;
      decrement(this.byTenant, tenant);
      if (addressKey !== null) decrement(this.byAddress, addressKey);
    };
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
