import type { NotificationChannel } from './events.ts';

/** What a reminder says, in one language. */
interface Wording {
  /** `minutes`: the time left. */
  subject: (lot: string, minutes: number) => string;
  ends: (time: string) => string;
  /** `minutes`: the lead time the member asked for. */
  asked: (minutes: number) => string;
  sms: (house: string, lot: string, time: string) => string;
}

const duration = {
  en: (m: number) => (m % 60 === 0 && m >= 60 ? `${m / 60} hour${m === 60 ? '' : 's'}` : `${m} minute${m === 1 ? '' : 's'}`),
  sv: (m: number) => (m % 60 === 0 && m >= 60 ? `${m / 60} timm${m === 60 ? 'e' : 'ar'}` : `${m} minut${m === 1 ? '' : 'er'}`),
  de: (m: number) => (m % 60 === 0 && m >= 60 ? `${m / 60} Stunde${m === 60 ? '' : 'n'}` : `${m} Minute${m === 1 ? '' : 'n'}`),
};

const wordings: Record<'en' | 'sv' | 'de', Wording> = {
  en: {
    subject: (lot, m) => (m === 0 ? `${lot} is ending` : `${lot} ends in ${duration.en(m)}`),
    ends: (time) => `Bidding ends ${time}.`,
    asked: (m) => (m === 0 ? 'You asked to be told when bidding ends.' : `You asked to be reminded ${duration.en(m)} before the end.`),
    sms: (house, lot, time) => `${house}: ${lot} ends ${time}.`,
  },
  sv: {
    subject: (lot, m) => (m === 0 ? `${lot} avslutas nu` : `${lot} avslutas om ${duration.sv(m)}`),
    ends: (time) => `Budgivningen avslutas ${time}.`,
    asked: (m) => (m === 0 ? 'Du bad om ett besked när budgivningen avslutas.' : `Du bad om en påminnelse ${duration.sv(m)} före slutet.`),
    sms: (house, lot, time) => `${house}: ${lot} avslutas ${time}.`,
  },
  de: {
    subject: (lot, m) => (m === 0 ? `${lot} endet jetzt` : `${lot} endet in ${duration.de(m)}`),
    ends: (time) => `Die Gebotsabgabe endet ${time}.`,
    asked: (m) =>
      m === 0
        ? 'Sie wollten zum Ende der Gebotsabgabe benachrichtigt werden.'
        : `Sie wollten ${duration.de(m)} vor dem Ende erinnert werden.`,
    sms: (house, lot, time) => `${house}: ${lot} endet ${time}.`,
  },
};

const lotWord = { en: 'Lot', sv: 'Föremål', de: 'Los' };

/** `2026-11-22 14:05 UTC`. */
export const formatUtc = (time: number) => `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const shorten = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

export interface ReminderContent {
  channel: NotificationChannel;
  /** The language of the wording and of the title (the member's, else the house's default). */
  language: string;
  houseName: string;
  lotNumber: number;
  title: string;
  endTime: number;
  minutesBefore: number;
  /** When it is sent: a reminder sent late (subscribed within its lead time) says the time really left. */
  now: number;
}

/**
 * The time left as the subject says it: the lead time asked for when the reminder is on time; when it is sent
 * later (subscribed after its moment, a queue that was behind) the time really left, in minutes under two
 * hours, else in whole hours.
 */
export function minutesLeft(endTime: number, now: number, minutesBefore: number): number {
  const left = Math.max(0, Math.round((endTime - now) / 60_000));
  if (left >= minutesBefore) return minutesBefore;
  return left >= 120 ? Math.round(left / 60) * 60 : left;
}

/**
 * The reminder's text: it names the lot's number and title, its end time (UTC) and the house. Wording in
 * English, Swedish or German (English for other languages); the title is the lot's own, in the language
 * chosen. (No link: the houses' front-end addresses are not known to the service.)
 */
export function reminderMessage(c: ReminderContent): { subject?: string; body: string } {
  const lang = c.language in wordings ? (c.language as keyof typeof wordings) : 'en';
  const w = wordings[lang];
  const time = formatUtc(c.endTime);
  if (c.channel === 'sms') return { body: w.sms(c.houseName, `${lotWord[lang]} ${c.lotNumber} "${shorten(c.title, 60)}"`, time) };
  const lot = `${lotWord[lang]} ${c.lotNumber}`;
  return {
    subject: `${w.subject(lot, minutesLeft(c.endTime, c.now, c.minutesBefore))}: ${shorten(c.title, 120)}`,
    body: [`${lot}: ${c.title}`, w.ends(time), w.asked(c.minutesBefore), '', c.houseName].join('\n'),
  };
}
