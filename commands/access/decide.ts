import type { Decider } from '../../src/command-runner.ts';
import type { EventOf } from '../../src/events/define.ts';
import { accessEvents, type AccessEvent, type ApiKeyIssued, type ApplicationRegistered, type TenantConfigured } from './events.ts';

/**
 * Access records come from catalogue intake as full records (an "upsert"): a record equal to what its stream
 * already says appends nothing, so importing the same file twice equals importing it once.
 */

type Data<D> = EventOf<D>['data'];
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export type TenantData = Data<typeof TenantConfigured>;
export type ApplicationData = Data<typeof ApplicationRegistered>;
export type ApiKeyData = Data<typeof ApiKeyIssued>;

/** One decider for every access stream: each holds a single, replaceable record (a tenant, an application, a key). */
export function accessRecordDecider<Data>(type: AccessEvent['type']): Decider<Data | null, Data, AccessEvent> {
  return {
    events: accessEvents,
    initialState: () => null,
    evolve: (state, event) => (event.type === type ? (event.data as Data) : state),
    decide: (data, state) => (same(state, data) ? [] : [{ type, data } as AccessEvent]),
  };
}
