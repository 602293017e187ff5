import type { FeaturePart } from '../../src/feature.ts';
import { documentEvents } from './events.ts';

export * from './events.ts';
export * from './decide.ts';

/**
 * The write side of auction documents and condition reports: what it registers (app/features/index.ts). Its intake records are part of the catalogue's (commands/catalogue/import.ts).
 */
export const documentsCommands: FeaturePart = { events: documentEvents };
