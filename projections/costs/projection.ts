import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { costsEvents } from '../../commands/costs/events.ts';
import { COST_RULES, COST_RULES_ID, COSTS_PROJECTION, type CostRulesDoc } from './collections.ts';

/** The house's cost rules, replaced whole by each publication. */
export const costsProjection = defineDocumentProjection({
  name: COSTS_PROJECTION,
  events: [costsEvents],
  collections: [{ name: COST_RULES }],
  async apply(event, uow) {
    switch (event.type) {
      case 'CostRulesPublished': {
        const { tenant, ...rules } = event.data;
        await uow.update<CostRulesDoc>(COST_RULES, tenant, COST_RULES_ID, () => ({ Rules: rules, Version: uow.current.position }));
        return;
      }
    }
  },
});
