import type { Decider } from '../../src/decider.ts';
import type { EventOf } from '../../src/events/define.ts';
import { translationEvents, type InterfaceTranslationsPublished, type TranslationEvent } from './events.ts';

export type TranslationsData = EventOf<typeof InterfaceTranslationsPublished>['data'];

/** The dictionary of one language: a different one replaces it; the same one again appends nothing. */
export const translationsDecider: Decider<TranslationsData | null, TranslationsData, TranslationEvent> = {
  events: translationEvents,
  initialState: () => null,
  evolve: (state, event) => (event.type === 'InterfaceTranslationsPublished' ? event.data : state),
  decide: (data, state) => (state && canonical(state) === canonical(data) ? [] : [{ type: 'InterfaceTranslationsPublished', data }]),
};

/** Entries compared whatever their order in the intake record. */
const canonical = (d: TranslationsData) =>
  JSON.stringify([d.tenant, d.language, Object.entries(d.entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
