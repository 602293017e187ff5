import type { Decider } from '../../src/command-runner.ts';
import type { AppEvent } from '../../src/events/catalog.ts';
import type { EventOf } from '../../src/events/define.ts';
import { assertNever } from '../catalogue/decide.ts';
import type { MemberSignedUp } from './events.ts';

type SignUpData = EventOf<typeof MemberSignedUp>['data'];

export interface MemberState {
  exists: boolean;
  removed: boolean;
  confirmed: boolean;
  roles: Set<string>;
}

/** Bringing an existing account in from the back office (catalogue intake), idempotently. */
export type MemberCommand =
  | { type: 'ImportMember'; signUp: SignUpData; confirmed: boolean; roles: Array<'bidder' | 'consigner'>; at: string }
  | { type: 'RemoveMember'; tenant: string; memberId: number; at: string };

export const memberDecider: Decider<MemberState, MemberCommand> = {
  initialState: () => ({ exists: false, removed: false, confirmed: false, roles: new Set() }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'MemberSignedUp':
        return { ...state, exists: true };
      case 'MemberEmailConfirmed':
        return { ...state, confirmed: true };
      case 'MemberRoleGranted':
        return { ...state, roles: new Set(state.roles).add(event.data.role) };
      case 'MemberRemoved':
        return { ...state, removed: true };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ImportMember': {
        if (state.removed) return [];
        const { tenant, memberId } = command.signUp;
        const events: AppEvent[] = [];
        if (!state.exists) events.push({ type: 'MemberSignedUp', data: command.signUp });
        if (command.confirmed && !state.confirmed) events.push({ type: 'MemberEmailConfirmed', data: { tenant, memberId, at: command.at } });
        for (const role of command.roles)
          if (!state.roles.has(role)) events.push({ type: 'MemberRoleGranted', data: { tenant, memberId, role, at: command.at } });
        return events;
      }
      case 'RemoveMember':
        if (!state.exists || state.removed) return [];
        return [{ type: 'MemberRemoved', data: { tenant: command.tenant, memberId: command.memberId, at: command.at } }];
      default:
        return assertNever(command);
    }
  },
};
