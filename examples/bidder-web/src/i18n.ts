// The page's texts: the house's interface dictionary (GET /v1/translations) in the chosen language, and the few texts
// of this page the dictionary has no key for, kept here in the three demo languages.
import { ok, type BidderClient } from '../../../clients/typescript/src/index.ts';

/** Texts of this page beyond the house's dictionary (the dictionary wins where it has the key). */
const OWN: Record<string, Record<string, string>> = {
  en: {
    'web.skip': 'Skip to content',
    'web.searchLots': 'Search lots',
    'web.lots': '{count} lots',
    'web.extended': 'Bidding extended: it now ends {time}.',
    'web.won': 'You won {title}.',
    'web.lost': '{title} has closed; you did not win it.',
    'web.leaderMustRaise': 'You are already the highest bidder: you can only raise your maximum bid.',
    'web.registrationPending': 'Your registration for this auction is waiting for approval.',
    'web.registrationRejected': 'Your registration for this auction was not approved.',
    'web.auctionNotOpen': 'This auction is not open for bidding.',
    'web.amountInvalid': 'Enter an amount, for example {example}.',
    'web.registration': 'Registration: {status}',
    'web.reserveMet': 'Reserve met',
    'web.reserveNotMet': 'Reserve not met',
    'web.quickBids': 'Suggested bids',
    'web.newBid': 'New bid: {amount}',
    'web.signInToBid': 'Sign in to bid.',
    'web.signedInAs': 'Signed in as {email}',
    'web.noBids': 'No bids yet.',
    'web.yourMax': 'Your maximum: {amount}',
    'web.notify': 'Notify me on this device',
    'web.notifyOn': 'Notifications are on for this device.',
    'web.notifyOff': 'Notifications are off for this device.',
    'web.notifyBlocked': 'Notifications are blocked for this page in the browser settings.',
    'web.costHeading': 'What winning costs',
    'web.costCountry': 'Delivery country (ISO code)',
    'web.costTotal': 'Winning at {amount}, you pay {total} in all.',
    'web.costRange': 'With shipping: {low} to {high}.',
    'web.costUnmet': 'If a zero rate’s condition is not met: {total}.',
    'web.costNotIncluded': 'Not included: {items}.',
    'web.cost.payment-surcharges': 'payment surcharges',
    'web.cost.storage': 'storage',
    'web.cost.shipping': 'shipping',
    'web.confirmBid': 'Confirm bid',
    'web.changeBid': 'Change',
    'web.confirmTotal': 'Your maximum bid: {amount}. If you win at it, you pay {total} in all.',
    'web.confirmAmount': 'Your maximum bid: {amount}.',
    'web.house': 'Demo Auctions',
    'web.accountMenu': 'Account',
    'web.loading': 'Loading…',
    'web.startFailed': 'The page could not start. Please reload it.',
    'web.days': '{days} d',
    'web.signUpSent': 'We have sent a confirmation key to {email}. Enter it below to confirm your address.',
    'web.confirmHeading': 'Confirm your e-mail address',
    'web.confirmationKey': 'Key from the e-mail',
    'web.confirm': 'Confirm',
    'web.confirmed': 'Your address is confirmed. You can sign in now.',
    'web.passwordRules': 'At least 10 characters, not your e-mail address.',
    'web.resetHeading': 'Reset your password',
    'web.resetKey': 'Key from the e-mail',
    'web.newPassword': 'New password',
    'web.resetDone': 'Your password has been changed. Sign in with the new one.',
    'web.haveKey': 'I have a key',
    'web.watchlistEmpty': 'You are not watching any lots.',
    'web.remind': 'Remind me by e-mail an hour before the end',
    'web.reminderSet': 'Reminder set: an e-mail an hour before {title} ends.',
    'web.reminderRemove': 'Remove the reminder',
    'web.reminderRemoved': 'Reminder removed.',
    'web.wonLots': 'Won lots',
    'web.wonEmpty': 'You have not won any lots yet.',
    'web.invoiceNumber': 'Invoice {number}',
    'web.invoiceDue': 'Due {date}',
    'web.invoicePdf': 'Download invoice {number} (PDF)',
    'web.invoicesEmpty': 'You have no invoices.',
    'web.notifications': 'Notifications',
    'web.notificationsDevice': 'On this device',
    'web.notificationsReminders': 'Lot-end reminders',
    'web.notificationsRemindersText':
      'Set a reminder on a lot of your watchlist: an e-mail an hour before it ends. Every reminder mail has a link to stop them.',
    'web.notificationsNone': 'No reminders set from this browser.',
  },
  sv: {
    'web.skip': 'Till innehållet',
    'web.searchLots': 'Sök föremål',
    'web.lots': '{count} föremål',
    'web.extended': 'Budgivningen har förlängts: den slutar nu {time}.',
    'web.won': 'Du vann {title}.',
    'web.lost': '{title} är avslutat; du vann inte.',
    'web.leaderMustRaise': 'Du har redan högsta budet: du kan bara höja ditt maxbud.',
    'web.registrationPending': 'Din registrering för auktionen väntar på godkännande.',
    'web.registrationRejected': 'Din registrering för auktionen godkändes inte.',
    'web.auctionNotOpen': 'Auktionen är inte öppen för bud.',
    'web.amountInvalid': 'Ange ett belopp, till exempel {example}.',
    'web.registration': 'Registrering: {status}',
    'web.reserveMet': 'Reservationspriset är uppnått',
    'web.reserveNotMet': 'Reservationspriset är inte uppnått',
    'web.quickBids': 'Föreslagna bud',
    'web.newBid': 'Nytt bud: {amount}',
    'web.signInToBid': 'Logga in för att lägga bud.',
    'web.signedInAs': 'Inloggad som {email}',
    'web.noBids': 'Inga bud ännu.',
    'web.yourMax': 'Ditt maxbud: {amount}',
    'web.notify': 'Avisera mig på den här enheten',
    'web.notifyOn': 'Aviseringar är på för den här enheten.',
    'web.notifyOff': 'Aviseringar är av för den här enheten.',
    'web.notifyBlocked': 'Aviseringar är blockerade för sidan i webbläsarens inställningar.',
    'web.costHeading': 'Vad det kostar att vinna',
    'web.costCountry': 'Leveransland (ISO-kod)',
    'web.costTotal': 'Vinner du på {amount} betalar du totalt {total}.',
    'web.costRange': 'Med frakt: {low} till {high}.',
    'web.costUnmet': 'Om villkoret för nollskattesatsen inte uppfylls: {total}.',
    'web.costNotIncluded': 'Ingår inte: {items}.',
    'web.cost.payment-surcharges': 'betalningsavgifter',
    'web.cost.storage': 'förvaring',
    'web.cost.shipping': 'frakt',
    'web.confirmBid': 'Bekräfta bud',
    'web.changeBid': 'Ändra',
    'web.confirmTotal': 'Ditt maxbud: {amount}. Vinner du på det betalar du totalt {total}.',
    'web.confirmAmount': 'Ditt maxbud: {amount}.',
    'web.house': 'Demoauktioner',
    'web.accountMenu': 'Konto',
    'web.loading': 'Laddar…',
    'web.startFailed': 'Sidan kunde inte starta. Ladda om den.',
    'web.days': '{days} d',
    'web.signUpSent': 'Vi har skickat en bekräftelsenyckel till {email}. Ange den nedan för att bekräfta adressen.',
    'web.confirmHeading': 'Bekräfta din e-postadress',
    'web.confirmationKey': 'Nyckel från mejlet',
    'web.confirm': 'Bekräfta',
    'web.confirmed': 'Din adress är bekräftad. Du kan logga in nu.',
    'web.passwordRules': 'Minst 10 tecken, inte din e-postadress.',
    'web.resetHeading': 'Återställ ditt lösenord',
    'web.resetKey': 'Nyckel från mejlet',
    'web.newPassword': 'Nytt lösenord',
    'web.resetDone': 'Ditt lösenord är ändrat. Logga in med det nya.',
    'web.haveKey': 'Jag har en nyckel',
    'web.watchlistEmpty': 'Du bevakar inga föremål.',
    'web.remind': 'Påminn mig via e-post en timme före slutet',
    'web.reminderSet': 'Påminnelse satt: ett e-postmeddelande en timme innan {title} avslutas.',
    'web.reminderRemove': 'Ta bort påminnelsen',
    'web.reminderRemoved': 'Påminnelsen är borttagen.',
    'web.wonLots': 'Vunna föremål',
    'web.wonEmpty': 'Du har inte vunnit några föremål ännu.',
    'web.invoiceNumber': 'Faktura {number}',
    'web.invoiceDue': 'Förfaller {date}',
    'web.invoicePdf': 'Ladda ner faktura {number} (PDF)',
    'web.invoicesEmpty': 'Du har inga fakturor.',
    'web.notifications': 'Aviseringar',
    'web.notificationsDevice': 'På den här enheten',
    'web.notificationsReminders': 'Påminnelser före slutet',
    'web.notificationsRemindersText':
      'Sätt en påminnelse på ett föremål i din bevakningslista: ett e-postmeddelande en timme innan det avslutas. Varje påminnelse har en länk för att stoppa dem.',
    'web.notificationsNone': 'Inga påminnelser satta från den här webbläsaren.',
  },
  de: {
    'web.skip': 'Zum Inhalt',
    'web.searchLots': 'Lose suchen',
    'web.lots': '{count} Lose',
    'web.extended': 'Die Auktion wurde verlängert: sie endet jetzt {time}.',
    'web.won': 'Sie haben {title} gewonnen.',
    'web.lost': '{title} ist beendet; Sie haben es nicht gewonnen.',
    'web.leaderMustRaise': 'Sie sind bereits Höchstbietender: Sie können nur Ihr Höchstgebot erhöhen.',
    'web.registrationPending': 'Ihre Anmeldung zu dieser Auktion wartet auf Freigabe.',
    'web.registrationRejected': 'Ihre Anmeldung zu dieser Auktion wurde nicht freigegeben.',
    'web.auctionNotOpen': 'Diese Auktion ist nicht für Gebote geöffnet.',
    'web.amountInvalid': 'Geben Sie einen Betrag ein, zum Beispiel {example}.',
    'web.registration': 'Anmeldung: {status}',
    'web.reserveMet': 'Mindestpreis erreicht',
    'web.reserveNotMet': 'Mindestpreis nicht erreicht',
    'web.quickBids': 'Vorgeschlagene Gebote',
    'web.newBid': 'Neues Gebot: {amount}',
    'web.signInToBid': 'Melden Sie sich an, um zu bieten.',
    'web.signedInAs': 'Angemeldet als {email}',
    'web.noBids': 'Noch keine Gebote.',
    'web.yourMax': 'Ihr Höchstgebot: {amount}',
    'web.notify': 'Auf diesem Gerät benachrichtigen',
    'web.notifyOn': 'Benachrichtigungen sind für dieses Gerät an.',
    'web.notifyOff': 'Benachrichtigungen sind für dieses Gerät aus.',
    'web.notifyBlocked': 'Benachrichtigungen sind für diese Seite in den Browser-Einstellungen blockiert.',
    'web.costHeading': 'Was der Zuschlag kostet',
    'web.costCountry': 'Lieferland (ISO-Code)',
    'web.costTotal': 'Bei einem Zuschlag von {amount} zahlen Sie insgesamt {total}.',
    'web.costRange': 'Mit Versand: {low} bis {high}.',
    'web.costUnmet': 'Wenn die Bedingung des Nullsatzes nicht erfüllt ist: {total}.',
    'web.costNotIncluded': 'Nicht enthalten: {items}.',
    'web.cost.payment-surcharges': 'Zahlungsgebühren',
    'web.cost.storage': 'Lagerung',
    'web.cost.shipping': 'Versand',
    'web.confirmBid': 'Gebot bestätigen',
    'web.changeBid': 'Ändern',
    'web.confirmTotal': 'Ihr Höchstgebot: {amount}. Erhalten Sie dazu den Zuschlag, zahlen Sie insgesamt {total}.',
    'web.confirmAmount': 'Ihr Höchstgebot: {amount}.',
    'web.house': 'Demo-Auktionen',
    'web.accountMenu': 'Konto',
    'web.loading': 'Wird geladen…',
    'web.startFailed': 'Die Seite konnte nicht starten. Bitte laden Sie sie neu.',
    'web.days': '{days} T.',
    'web.signUpSent': 'Wir haben einen Bestätigungsschlüssel an {email} gesendet. Geben Sie ihn unten ein, um Ihre Adresse zu bestätigen.',
    'web.confirmHeading': 'E-Mail-Adresse bestätigen',
    'web.confirmationKey': 'Schlüssel aus der E-Mail',
    'web.confirm': 'Bestätigen',
    'web.confirmed': 'Ihre Adresse ist bestätigt. Sie können sich jetzt anmelden.',
    'web.passwordRules': 'Mindestens 10 Zeichen, nicht Ihre E-Mail-Adresse.',
    'web.resetHeading': 'Passwort zurücksetzen',
    'web.resetKey': 'Schlüssel aus der E-Mail',
    'web.newPassword': 'Neues Passwort',
    'web.resetDone': 'Ihr Passwort wurde geändert. Melden Sie sich mit dem neuen an.',
    'web.haveKey': 'Ich habe einen Schlüssel',
    'web.watchlistEmpty': 'Sie beobachten keine Lose.',
    'web.remind': 'Eine Stunde vor Ende per E-Mail erinnern',
    'web.reminderSet': 'Erinnerung gesetzt: eine E-Mail eine Stunde bevor {title} endet.',
    'web.reminderRemove': 'Erinnerung entfernen',
    'web.reminderRemoved': 'Erinnerung entfernt.',
    'web.wonLots': 'Gewonnene Lose',
    'web.wonEmpty': 'Sie haben noch keine Lose gewonnen.',
    'web.invoiceNumber': 'Rechnung {number}',
    'web.invoiceDue': 'Fällig am {date}',
    'web.invoicePdf': 'Rechnung {number} herunterladen (PDF)',
    'web.invoicesEmpty': 'Sie haben keine Rechnungen.',
    'web.notifications': 'Benachrichtigungen',
    'web.notificationsDevice': 'Auf diesem Gerät',
    'web.notificationsReminders': 'Erinnerungen vor Ende',
    'web.notificationsRemindersText':
      'Setzen Sie eine Erinnerung an einem Los Ihrer Beobachtungsliste: eine E-Mail eine Stunde vor seinem Ende. Jede Erinnerungs-E-Mail hat einen Link, um sie abzubestellen.',
    'web.notificationsNone': 'Keine Erinnerungen in diesem Browser gesetzt.',
  },
};

/** The language the browser asks for, among this page's own (before the house's languages are known): start-up texts. */
export function browserLanguage(kept: string | null): string {
  return [kept ?? '', ...navigator.languages.map((l) => l.slice(0, 2))].find((code) => code in OWN) ?? 'en';
}

/** A text of this page's own in a language, for what is shown before the dictionary is loaded (or when it cannot be). */
export const ownText = (key: string, code: string) => OWN[code]?.[key] ?? OWN.en[key] ?? key;

let language = 'en';
let entries: Record<string, string> = {};

export const currentLanguage = () => language;

/** Loads the house's dictionary in a language (the client asks for it from now on). */
export async function loadDictionary(client: BidderClient, code: string): Promise<void> {
  client.language = code;
  const answer = ok(await client.GET('/v1/translations'));
  language = answer.Language;
  entries = answer.Entries;
  document.documentElement.lang = language;
}

/** Whether the dictionary or this page has a text for the key. */
export const hasText = (key: string) => key in entries || key in (OWN[language] ?? OWN.en) || key in OWN.en;

/** The text of a key with `{name}` filled in; the key itself when nobody has a text for it. */
export function t(key: string, values: Record<string, string | number> = {}): string {
  const text = entries[key] ?? OWN[language]?.[key] ?? OWN.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** A date and time as the chosen language writes it. */
export const formatTime = (iso: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(iso));

/** Time left until `iso`, as `2 d 03:04:05` in the chosen language's abbreviation of days (or `00:00:00` once passed). */
export function timeLeft(iso: string, now = Date.now()): string {
  let seconds = Math.max(0, Math.floor((Date.parse(iso) - now) / 1000));
  const days = Math.floor(seconds / 86400);
  seconds -= days * 86400;
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`;
  return days > 0 ? `${t('web.days', { days })} ${clock}` : clock;
}
