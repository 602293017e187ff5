// Positions as the analysts' tools take them (`--from`, `--to`): a position of the log (a whole number), or an
// event's opaque `Position` as the back office's feed or an export gives it, which only its house's key reads.
import type { EventLog } from '../../src/ports/event-log.ts';
import type { PositionCodec } from '../../src/events/position.ts';
import { BadInput } from '../../src/cli/tool.ts';

/** A `--from`/`--to` as given, its form checked (before any engine opens). */
export interface PositionArg {
  flag: string;
  text: string;
  /** The log's position, when given as a whole number. */
  log: number | null;
}

const OPAQUE = /^[A-Za-z0-9_-]{22}$/;

export function positionArg(flag: string, value: string | undefined, what: string): PositionArg {
  if (value !== undefined && /^\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value)))
    return { flag, text: value, log: Number(value) };
  if (value !== undefined && OPAQUE.test(value)) return { flag, text: value, log: null };
  throw new BadInput(`${flag} takes ${what}, not ${value === undefined ? 'nothing' : `"${value}"`}`);
}

/**
 * The log's position of an argument: a whole number as it is; an opaque one read with the key of `tenants`' house
 * whose it is (the one --tenant names, else every house of the log); one no house reads is bad input.
 */
export function resolvePosition(arg: PositionArg, codec: PositionCodec, tenants: readonly string[]): number {
  if (arg.log !== null) return arg.log;
  for (const tenant of tenants) {
    const position = codec.forTenant(tenant).read(arg.text);
    if (position !== null) return position;
  }
  throw new BadInput(
    `${arg.flag} "${arg.text}" is not a Position of ${tenants.length === 1 ? `house ${tenants[0]}` : 'any house of this log'} (positions are opaque per house: give the log's own, a whole number, or one the feed or an export of that house gave)`,
  );
}

/** Every house the log configured, and the operator's. */
export async function logTenants(log: EventLog): Promise<string[]> {
  const tenants = new Set<string>(['_system']);
  for (let from = 0; ;) {
    if (log.readTypes) {
      const read = await log.readTypes({ fromPosition: from, maxCount: 1000, types: ['TenantConfigured'] });
      for (const e of read.events) tenants.add(e.metadata.tenant);
      if (read.position <= from) break;
      from = read.position;
    } else {
      const batch = await log.readAll({ fromPosition: from, maxCount: 5000 });
      if (batch.length === 0) break;
      for (const e of batch) if (e.type === 'TenantConfigured') tenants.add(e.metadata.tenant);
      from = batch[batch.length - 1].position;
    }
  }
  return [...tenants].sort();
}
