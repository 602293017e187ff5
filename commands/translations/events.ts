import { z } from 'zod';
import { holdsLines } from '../../src/text/holds-lines.ts';
import { defineEvent, defineEvents, languageCode, tenantId, type EventsOf } from '../../src/events/define.ts';

/** A key of the interface dictionary: dotted words, e.g. `button.placeBid`. */
export const dictionaryKey = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/)
  .max(100);

export const InterfaceTranslationsPublished = defineEvent({
  type: 'InterfaceTranslationsPublished',
  version: 1,
  stream: 'translations-{tenant}-{language}',
  description:
    "Catalogue intake: the auction house's interface dictionary (buttons, labels, messages of a bidder front end) in one language, replacing the previous one.",
  schema: z.object({
    tenant: tenantId,
    language: languageCode,
    entries: z.record(dictionaryKey, holdsLines(z.string().max(2000))).refine((e) => Object.keys(e).length <= 5000, 'at most 5,000 keys'),
  }),
});

export const translationEvents = defineEvents([InterfaceTranslationsPublished]);
export type TranslationEvent = EventsOf<typeof translationEvents>;

export const translationsStreamId = (tenant: string, language: string) => `translations-${tenant}-${language}`;
