/**
 * The translations decider: the interface dictionary of one language, replaced by a different one; the same
 * entries again, in whatever order, append nothing.
 */
import { translationsDecider, type TranslationsData } from '../../commands/translations/decide.ts';
import type { TranslationEvent } from '../../commands/translations/events.ts';
import { spec } from '../support/decider.ts';

const dictionary: TranslationsData = {
  tenant: 'demo',
  language: 'sv',
  entries: { 'button.placeBid': 'Lägg bud', 'label.estimate': 'Utrop', 'message.outbid': 'Du har blivit överbjuden' },
};
const published = (data: TranslationsData): TranslationEvent => ({ type: 'InterfaceTranslationsPublished', data });

describe('translations decider', () => {
  it('publishes the first dictionary of a language', () => {
    spec(translationsDecider)
      .given([])
      .when(dictionary)
      .then([published(dictionary)]);
  });

  it('publishes a first dictionary with no entries', () => {
    const empty = { ...dictionary, entries: {} };
    spec(translationsDecider)
      .given([])
      .when(empty)
      .then([published(empty)]);
    spec(translationsDecider)
      .given([published(empty)])
      .when({ ...empty, entries: {} })
      .thenNothingHappened();
  });

  it('appends nothing when the same entries are published again', () => {
    spec(translationsDecider)
      .given([published(dictionary)])
      .when({ ...dictionary, entries: { ...dictionary.entries } })
      .thenNothingHappened();
  });

  it('appends nothing when the same entries come in another key order', () => {
    spec(translationsDecider)
      .given([published(dictionary)])
      .when({ ...dictionary, entries: Object.fromEntries(Object.entries(dictionary.entries).reverse()) })
      .thenNothingHappened();
  });

  it('replaces the dictionary when a text changed, a key was added or a key was dropped', () => {
    const { 'label.estimate': _dropped, ...fewer } = dictionary.entries;
    for (const entries of [
      { ...dictionary.entries, 'button.placeBid': 'Lägg ditt bud' },
      { ...dictionary.entries, 'button.signIn': 'Logga in' },
      fewer,
      {},
    ])
      spec(translationsDecider)
        .given([published(dictionary)])
        .when({ ...dictionary, entries })
        .then([published({ ...dictionary, entries })]);
  });

  it('compares with the latest dictionary only: an earlier one published again replaces it', () => {
    const changed = { ...dictionary, entries: { ...dictionary.entries, 'button.placeBid': 'Lägg ditt bud' } };
    spec(translationsDecider)
      .given([published(dictionary), published(changed)])
      .when(dictionary)
      .then([published(dictionary)]);
  });

  it('publishes the same entries for another language or tenant as a dictionary of its own', () => {
    spec(translationsDecider)
      .given([published(dictionary)])
      .when({ ...dictionary, language: 'fi' })
      .then([published({ ...dictionary, language: 'fi' })]);
    spec(translationsDecider)
      .given([published(dictionary)])
      .when({ ...dictionary, tenant: 'demo2' })
      .then([published({ ...dictionary, tenant: 'demo2' })]);
  });

  it('tells a key from its text: moving a text to another key is a change', () => {
    const swapped = {
      ...dictionary,
      entries: { 'button.placeBid': 'Utrop', 'label.estimate': 'Lägg bud', 'message.outbid': 'Du har blivit överbjuden' },
    };
    spec(translationsDecider)
      .given([published(dictionary)])
      .when(swapped)
      .then([published(swapped)]);
  });
});
