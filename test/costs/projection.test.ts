import { costsReadModels } from '../../projections/costs/index.ts';
import { givenEvents } from '../support/projection-spec.ts';
import { COSTS_MD_RULES } from './demo-rules.ts';

/** The read model of a house's cost rules: the last publication, whole, with its position. */
describe('costs projection', () => {
  const published = (tenant: string, rulesVersion: string) => ({
    type: 'CostRulesPublished',
    data: { ...COSTS_MD_RULES, tenant, rulesVersion },
  });
  const { tenant: _tenant, ...rules } = COSTS_MD_RULES;

  it("keeps each house's last rules, replaced whole by a new publication", async () => {
    await givenEvents(published('demo', 'v1'), published('demo2', 'v1'), published('demo', 'v2'))
      .whenProjected(costsReadModels)
      .thenDocuments('cost_rules', 'demo', [{ _id: 'current', Rules: { ...rules, rulesVersion: 'v2' }, Version: 3 }])
      .thenDocuments('cost_rules', 'demo2', [{ _id: 'current', Rules: { ...rules, rulesVersion: 'v1' }, Version: 2 }]);
  });
});
