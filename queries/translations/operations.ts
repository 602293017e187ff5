// The published languages and a front end's interface texts (`GET /v1/languages`, `GET /v1/translations`), read
// from the read models; declared once (defineOperation) for routing, validation, caching and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { readDictionary } from './dictionary.ts';

/** A language's own name for itself, capitalised as a menu shows it (`Svenska`, `Deutsch`). */
export function endonym(code: string): string {
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames([code], { type: 'language' }).of(code);
  } catch {
    name = undefined;
  }
  if (!name || name === code) return code;
  return name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
}

export const listLanguages = defineOperation({
  route: { number: 55, operationId: 'listLanguages', group: 'Languages', method: 'get', path: '/v1/languages', auth: 'anon' },
  docs: {
    summary: 'The languages the auction house publishes in',
    description:
      "For a language menu: each language named in itself (`Svenska`), the house's default language first and marked `IsDefault`.",
    examples: {
      response: [
        { Code: 'en', Name: 'English', IsDefault: true },
        { Code: 'sv', Name: 'Svenska', IsDefault: false },
      ],
    },
  },
  output: {
    response: z
      .array(
        z.object({
          Code: z
            .string()
            .max(5)
            .regex(/^[a-z]{2}(-[A-Z]{2})?$/)
            .openapi({ description: 'BCP 47 language code, as Accept-Language and `lang` take it.', example: 'sv' }),
          // A name from the runtime's language names (CLDR), or the code itself.
          Name: z.string().max(100).openapi({ description: "The language's name in that language.", example: 'Svenska' }),
          IsDefault: z.boolean(),
        }),
      )
      // One per published language: the service sets no smaller limit.
      .max(2147483647)
      .openapi('LanguageList'),
  },
  cache: { catalogue: true },
  async handler(_input, ctx) {
    const { Languages: languages, DefaultLanguage: defaultLanguage } = ctx.tenant;
    const ordered = [defaultLanguage, ...languages.filter((l) => l !== defaultLanguage)];
    return ordered.map((code) => ({ Code: code, Name: endonym(code), IsDefault: code === defaultLanguage }));
  },
});

export const getInterfaceTranslations = defineOperation({
  route: {
    number: 56,
    operationId: 'getInterfaceTranslations',
    group: 'Translations',
    method: 'get',
    path: '/v1/translations',
    auth: 'anon',
  },
  docs: {
    summary: 'Every interface string of a bidder front end, in the negotiated language',
    description:
      "The auction house's dictionary of buttons, labels and messages. Every published language answers the same keys: a text the house has not translated yet comes in its default language.",
    examples: { response: { Language: 'sv', Entries: { 'button.placeBid': 'Lägg bud', 'nav.watchlist': 'Bevakningar' } } },
  },
  output: {
    response: z
      .object({
        Language: z
          .string()
          .max(5)
          .regex(/^[a-z]{2}(-[A-Z]{2})?$/)
          .openapi({ example: 'sv' }),
        Entries: z.record(z.string().max(100), z.string().max(2000)).openapi({ description: 'Text by key (`button.placeBid`).' }),
      })
      .openapi('InterfaceTranslations'),
  },
  cache: { catalogue: true },
  async handler(_input, ctx) {
    const dictionary = await readDictionary(ctx.db, ctx.language, ctx.tenant.DefaultLanguage, ctx.tenant.Languages);
    return { Language: ctx.language, Entries: dictionary.entries };
  },
});

export const translationsQueryOperations = [listLanguages, getInterfaceTranslations];
