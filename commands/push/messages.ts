// What a push says (PUSH.md "What is pushed"): its title and body in English, Swedish or German, and the JSON payload
// a service worker shows (`type`, `title`, `body`, `lotId`, `auctionId`, `url`, `tag`, `at`), at most 3,000 bytes.
import { MAX_PUSH_PAYLOAD_BYTES, type PushKind } from '../../src/ports/push.ts';

type Language = 'en' | 'sv' | 'de';

/** What a push tells of its lot; `amount` is money already written in the push's language. */
export interface PushFacts {
  lotNumber: number;
  title: string;
  /** outbid, closing: the current bid (or, with no bid yet, the starting price); won: the hammer price. */
  amount?: string;
  /** closing: whether there is a bid yet. */
  hasBid?: boolean;
  /** lost: whether the lot was sold (to another bidder). */
  sold?: boolean;
  /** reminder: minutes left, and the end time as text. */
  minutesLeft?: number;
  endsAt?: string;
}

const lotWord: Record<Language, string> = { en: 'Lot', sv: 'Rop', de: 'Los' };

const duration: Record<Language, (m: number) => string> = {
  en: (m) => (m >= 120 ? `${Math.round(m / 60)} hours` : `${m} minute${m === 1 ? '' : 's'}`),
  sv: (m) => (m >= 120 ? `${Math.round(m / 60)} timmar` : `${m} minut${m === 1 ? '' : 'er'}`),
  de: (m) => (m >= 120 ? `${Math.round(m / 60)} Stunden` : `${m} Minute${m === 1 ? '' : 'n'}`),
};

const words: Record<Language, Record<PushKind, (lot: string, f: PushFacts) => { title: string; body: string }>> = {
  en: {
    outbid: (lot, f) => ({
      title: 'You have been outbid',
      body: `${lot} (${f.title}): the current bid is ${f.amount}. Raise your maximum to lead again.`,
    }),
    won: (lot, f) => ({ title: `You won ${lot.toLowerCase()}`, body: `${f.title}: hammer price ${f.amount}.` }),
    lost: (lot, f) => ({ title: `${lot} has closed`, body: `${f.title}: ${f.sold ? 'another bidder won it' : 'it was not sold'}.` }),
    closing: (lot, f) => ({
      title: `${lot} closes in 10 minutes`,
      body: `${f.title}: ${f.hasBid ? `the current bid is ${f.amount}` : `no bid yet, starting at ${f.amount}`}.`,
    }),
    reminder: (lot, f) => ({ title: `${lot} ends in ${duration.en(f.minutesLeft ?? 0)}`, body: `${f.title}. Bidding ends ${f.endsAt}.` }),
  },
  sv: {
    outbid: (lot, f) => ({
      title: 'Du har blivit överbjuden',
      body: `${lot} (${f.title}): aktuellt bud är ${f.amount}. Höj ditt maxbud för att leda igen.`,
    }),
    won: (lot, f) => ({ title: `Du vann ${lot.toLowerCase()}`, body: `${f.title}: klubbat för ${f.amount}.` }),
    lost: (lot, f) => ({ title: `${lot} har avslutats`, body: `${f.title}: ${f.sold ? 'en annan budgivare vann' : 'det såldes inte'}.` }),
    closing: (lot, f) => ({
      title: `${lot} avslutas om 10 minuter`,
      body: `${f.title}: ${f.hasBid ? `aktuellt bud är ${f.amount}` : `inget bud ännu, utrop ${f.amount}`}.`,
    }),
    reminder: (lot, f) => ({
      title: `${lot} avslutas om ${duration.sv(f.minutesLeft ?? 0)}`,
      body: `${f.title}. Budgivningen avslutas ${f.endsAt}.`,
    }),
  },
  de: {
    outbid: (lot, f) => ({
      title: 'Sie wurden überboten',
      body: `${lot} (${f.title}): das aktuelle Gebot ist ${f.amount}. Erhöhen Sie Ihr Maximalgebot, um wieder zu führen.`,
    }),
    won: (lot, f) => ({ title: `Sie haben ${lot} ersteigert`, body: `${f.title}: Zuschlag bei ${f.amount}.` }),
    lost: (lot, f) => ({
      title: `${lot} ist beendet`,
      body: `${f.title}: ${f.sold ? 'ein anderer Bieter hat den Zuschlag erhalten' : 'es wurde nicht verkauft'}.`,
    }),
    closing: (lot, f) => ({
      title: `${lot} endet in 10 Minuten`,
      body: `${f.title}: ${f.hasBid ? `das aktuelle Gebot ist ${f.amount}` : `noch kein Gebot, Ausruf ${f.amount}`}.`,
    }),
    reminder: (lot, f) => ({
      title: `${lot} endet in ${duration.de(f.minutesLeft ?? 0)}`,
      body: `${f.title}. Die Gebotsabgabe endet ${f.endsAt}.`,
    }),
  },
};

/** The language a push is worded in: one of the three written ones, else English. */
export const wordingLanguage = (language: string): Language => (language in words ? (language as Language) : 'en');

const shorten = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

/** A push's title and body in a language (English for one not written). */
export function pushWords(kind: PushKind, language: string, facts: PushFacts): { title: string; body: string } {
  const lang = wordingLanguage(language);
  return words[lang][kind](`${lotWord[lang]} ${facts.lotNumber}`, { ...facts, title: shorten(facts.title, 200) });
}

export interface PushPayload {
  type: PushKind;
  title: string;
  body: string;
  lotId: number;
  auctionId: number;
  /** The lot's page, relative to the front end's service worker scope (the reference front end's route). */
  url: string;
  /** One notification per lot on the device: a newer one replaces it. */
  tag: string;
  at: string;
}

/** The payload's JSON, within MAX_PUSH_PAYLOAD_BYTES (the body is shortened when a lot's title is very long). */
export function payloadText(payload: Omit<PushPayload, 'url' | 'tag'>): string {
  const full: PushPayload = { ...payload, url: `#/lots/${payload.lotId}`, tag: `lot-${payload.lotId}` };
  let text = JSON.stringify(full);
  for (let max = 1000; Buffer.byteLength(text, 'utf8') > MAX_PUSH_PAYLOAD_BYTES && max > 20; max = Math.floor(max / 2))
    text = JSON.stringify({ ...full, title: shorten(full.title, max), body: shorten(full.body, max) });
  return text;
}
