import type { FeaturePart } from '../../src/feature.ts';
import { catalogueEvents } from './events.ts';

export * from './events.ts';
export * from './decide.ts';

/**
 * The write side of the catalogue (tenants, applications, API keys, auctions, categories, lots, bids): what it registers (app/features/index.ts). Its intake is the catalogue's NDJSON records (import.ts), which app/features/intake.ts reads first.
 */
export const catalogueCommands: FeaturePart = { events: catalogueEvents };
