import type { Decider } from '../../src/decider.ts';
import { costsEvents, type CostRules, type CostsEvent } from './events.ts';

/** JSON with object keys sorted, so equal rules compare equal whatever order their keys were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export type CostRulesCommand = { type: 'PublishCostRules'; data: CostRules };

/** A house's cost rules: one record, replaced whole; the same rules again append nothing. */
export const costRulesDecider: Decider<CostRules | null, CostRulesCommand, CostsEvent> = {
  events: costsEvents,
  initialState: () => null,
  evolve: (_state, event) => event.data,
  decide: (command, state) =>
    state !== null && canonical(state) === canonical(command.data) ? [] : [{ type: 'CostRulesPublished', data: command.data }],
};
