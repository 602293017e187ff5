import type { FeaturePart } from '../../src/feature.ts';
import { catalogueEvents } from './events.ts';
import { catalogueIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of the catalogue (auctions, categories, lots, bids): what it registers (app/features/index.ts). Its records come by catalogue intake. */
export const catalogueCommands: FeaturePart = { events: catalogueEvents, intake: catalogueIntake };
