import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import type { CostRules } from '../../commands/costs/events.ts';

/** The house's cost rules (COSTS.md): one document per tenant, `_id` = COST_RULES_ID. */
export const COST_RULES = 'cost_rules';
export const COST_RULES_ID = 'current';
/** The costs projection's name. */
export const COSTS_PROJECTION = 'costs';

export interface CostRulesDoc extends Doc {
  /** The rules as published (the event's data without its tenant). */
  Rules: Omit<CostRules, 'tenant'>;
  /** Position of the publication: an estimate's ETag changes with it. */
  Version: number;
}

/** The house's cost rules as published last (null: none). */
export const houseCostRules = (db: TenantScope) => db.collection<CostRulesDoc>(COST_RULES).findById(COST_RULES_ID);
