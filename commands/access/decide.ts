import type { Decider } from '../../src/decider.ts';
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

/** A back-office key's stream folded: the value's hash it holds now, and whether it was revoked. */
export type BackOfficeKeyState = { keyHash: string; name: string; revoked: boolean } | null;
export type BackOfficeKeyCommand =
  { type: 'issue'; tenant: string; keyId: string; keyHash: string; name: string } | { type: 'revoke'; tenant: string; keyId: string };

/**
 * A back-office key: issued (again with the same value and name: nothing; with another value: the old one stops
 * working) and revoked (an unknown or already revoked key: nothing).
 */
export const backOfficeKeyDecider: Decider<BackOfficeKeyState, BackOfficeKeyCommand, AccessEvent> = {
  events: accessEvents,
  initialState: () => null,
  evolve: (state, event) => {
    if (event.type === 'BackOfficeKeyIssued') {
      const data = event.data as { keyHash: string; name: string };
      return { keyHash: data.keyHash, name: data.name, revoked: false };
    }
    if (event.type === 'BackOfficeKeyRevoked') return state ? { ...state, revoked: true } : state;
    return state;
  },
  decide: (command, state) => {
    if (command.type === 'issue') {
      const { type: _t, ...data } = command;
      if (state && !state.revoked && state.keyHash === data.keyHash && state.name === data.name) return [];
      return [{ type: 'BackOfficeKeyIssued', data }];
    }
    if (!state || state.revoked) return [];
    return [{ type: 'BackOfficeKeyRevoked', data: { tenant: command.tenant, keyId: command.keyId, keyHash: state.keyHash } }];
  },
};
