import type { CostRules } from '../../commands/costs/events.ts';
import { DEMO_COST_RULES } from '../../app/seed/demo-costs.ts';

/** COSTS.md's rules of house `demo`, as the event carries them: the demo's own (app/seed/demo-costs.ts). */
export const COSTS_MD_RULES: CostRules = { tenant: 'demo', ...DEMO_COST_RULES };
