import type { FeaturePart } from '../../src/feature.ts';
import { translationEvents } from './events.ts';

export * from './events.ts';
export * from './decide.ts';

/**
 * The write side of the interface dictionary: what it registers (app/features/index.ts). Its intake records are part of the catalogue's (commands/catalogue/import.ts).
 */
export const translationsCommands: FeaturePart = { events: translationEvents };
