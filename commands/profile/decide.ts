import type { Decider } from '../../src/decider.ts';
import type { VatCheckResult } from '../../src/ports/vat.ts';
import { assertNever } from '../../src/assert-never.ts';
import { isVatFree } from './rules.ts';
import { profileEvents, type ProfileEvent, type ProfileFields } from './events.ts';

/** A member's profile stream: the last stored profile, and the VAT checks still awaited (check id → number). */
export interface ProfileState {
  profile: ProfileFields | null;
  pendingChecks: Map<string, string>;
}

export type ProfileCommand =
  | {
      type: 'ReplaceProfile';
      tenant: string;
      memberId: number;
      /** Normalised already (the HTTP shell or the intake did it). */
      profile: ProfileFields;
      /** A fresh id for the VAT check this replacement may start. */
      checkId: string;
      at: string;
    }
  | {
      type: 'RecordVatCheck';
      tenant: string;
      memberId: number;
      checkId: string;
      result: VatCheckResult;
      /** The house's country (ISO 3166-1 alpha-2), or null when it has none configured. */
      homeCountry: string | null;
      at: string;
    };

/** Same profile: field by field (extraData by its entries). */
export function sameProfile(a: ProfileFields, b: ProfileFields): boolean {
  const canonical = (p: ProfileFields) =>
    JSON.stringify(
      Object.entries({ ...p, extraData: Object.fromEntries(Object.entries(p.extraData).sort(([x], [y]) => x.localeCompare(y))) }).sort(
        ([x], [y]) => x.localeCompare(y),
      ),
    );
  return canonical(a) === canonical(b);
}

export const profileDecider: Decider<ProfileState, ProfileCommand, ProfileEvent> = {
  events: profileEvents,
  initialState: () => ({ profile: null, pendingChecks: new Map() }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'MemberProfileReplaced': {
        // A check of a number the profile no longer has can no longer decide anything.
        for (const [id, number] of state.pendingChecks) if (number !== event.data.profile.vatNumber) state.pendingChecks.delete(id);
        return { ...state, profile: event.data.profile };
      }
      case 'MemberVatCheckRequested':
        state.pendingChecks.set(event.data.checkId, event.data.vatNumber);
        return state;
      case 'MemberVatNumberChecked':
        state.pendingChecks.delete(event.data.checkId);
        return state;
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ReplaceProfile': {
        const { tenant, memberId, profile, at } = command;
        const previous = state.profile;
        if (previous && sameProfile(previous, profile)) return [];
        const events: ProfileEvent[] = [{ type: 'MemberProfileReplaced', data: { tenant, memberId, profile, at } }];
        const companyChanged =
          (previous?.companyName ?? null) !== profile.companyName || (previous?.vatNumber ?? null) !== profile.vatNumber;
        if (companyChanged && profile.vatNumber !== null)
          events.push({
            type: 'MemberVatCheckRequested',
            data: { tenant, memberId, checkId: command.checkId, vatNumber: profile.vatNumber, companyName: profile.companyName, at },
          });
        return events;
      }
      case 'RecordVatCheck': {
        const { tenant, memberId, checkId, result, homeCountry, at } = command;
        const vatNumber = state.pendingChecks.get(checkId);
        // Recorded already (a retried job), or superseded: a stale result never overwrites a newer profile.
        if (vatNumber === undefined || vatNumber !== state.profile?.vatNumber) return [];
        return [
          {
            type: 'MemberVatNumberChecked',
            data: {
              tenant,
              memberId,
              checkId,
              vatNumber,
              valid: result.valid,
              country: result.country,
              source: result.source,
              homeCountry,
              vatFree: isVatFree(result, homeCountry),
              at,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },
};
