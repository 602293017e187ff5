/**
 * The texts of the account mails, in English, Swedish and German. The key stands on a line of its own, so a
 * person can copy it and a front end's link can carry it; nothing else in the mail is secret.
 */
import { formatDateTime } from '../../src/format.ts';
import { mailHtml, type MessageLanguage } from '../../src/text/mail.ts';

export interface MailText {
  subject: string;
  body: string;
  html: string;
  language: MessageLanguage;
}

export interface AccountMail {
  language: MessageLanguage;
  houseName: string;
  firstName: string;
  email: string;
  key: string;
  /** When the key stops working (ISO 8601), written in the member's language and time zone. */
  expiresAt: string;
  /** The member's time zone (IANA; the profile's, else UTC), which the mail names. */
  timeZone: string;
}

type Lines = (p: AccountMail) => { subject: string; lines: string[] };

/** The key's end as the member reads it: `22 Nov 2026, 19:00 Europe/Stockholm`. */
const until = (p: AccountMail) => formatDateTime(p.expiresAt, p.language, p.timeZone);

const hello: Record<MessageLanguage, string> = { en: 'Hello', sv: 'Hej', de: 'Hallo' };
const greeting = (p: AccountMail) => (p.firstName.trim() ? `${hello[p.language]} ${p.firstName.trim()},` : `${hello[p.language]},`);

const confirmation: Record<MessageLanguage, Lines> = {
  en: (p) => ({
    subject: `${p.houseName}: confirm your email address`,
    lines: [
      `thank you for signing up as a bidder at ${p.houseName} with ${p.email}. To confirm this address, enter this key:`,
      p.key,
      `The key works once, until ${until(p)}. You can sign in once your address is confirmed.\nIf you did not sign up, ignore this mail: the account stays unconfirmed.`,
    ],
  }),
  sv: (p) => ({
    subject: `${p.houseName}: bekräfta din e-postadress`,
    lines: [
      `tack för att du registrerade dig som budgivare hos ${p.houseName} med ${p.email}. Ange den här nyckeln för att bekräfta adressen:`,
      p.key,
      `Nyckeln fungerar en gång, till ${until(p)}. Du kan logga in när adressen är bekräftad.\nOm du inte registrerade dig kan du bortse från det här mejlet: kontot förblir obekräftat.`,
    ],
  }),
  de: (p) => ({
    subject: `${p.houseName}: Bestätigen Sie Ihre E-Mail-Adresse`,
    lines: [
      `vielen Dank für Ihre Registrierung als Bieter bei ${p.houseName} mit ${p.email}. Um diese Adresse zu bestätigen, geben Sie diesen Schlüssel ein:`,
      p.key,
      `Der Schlüssel gilt einmal, bis ${until(p)}. Sobald Ihre Adresse bestätigt ist, können Sie sich anmelden.\nWenn Sie sich nicht registriert haben, ignorieren Sie diese E-Mail: Das Konto bleibt unbestätigt.`,
    ],
  }),
};

const passwordReset: Record<MessageLanguage, Lines> = {
  en: (p) => ({
    subject: `${p.houseName}: reset your password`,
    lines: [
      `someone asked to reset the password of the bidder account ${p.email} at ${p.houseName}. To choose a new password, enter this key:`,
      p.key,
      `The key works once, until ${until(p)}; asking again makes a new key and this one stops working.\nSetting a new password signs the account out everywhere. If you did not ask for this, ignore this mail: your password stays as it is.`,
    ],
  }),
  sv: (p) => ({
    subject: `${p.houseName}: återställ ditt lösenord`,
    lines: [
      `någon bad om att återställa lösenordet för budgivarkontot ${p.email} hos ${p.houseName}. Ange den här nyckeln för att välja ett nytt lösenord:`,
      p.key,
      `Nyckeln fungerar en gång, till ${until(p)}; en ny begäran skapar en ny nyckel och den här slutar fungera.\nEtt nytt lösenord loggar ut kontot överallt. Om du inte bad om detta kan du bortse från mejlet: lösenordet förblir oförändrat.`,
    ],
  }),
  de: (p) => ({
    subject: `${p.houseName}: Passwort zurücksetzen`,
    lines: [
      `jemand hat angefordert, das Passwort des Bieterkontos ${p.email} bei ${p.houseName} zurückzusetzen. Um ein neues Passwort zu wählen, geben Sie diesen Schlüssel ein:`,
      p.key,
      `Der Schlüssel gilt einmal, bis ${until(p)}; eine neue Anforderung erzeugt einen neuen Schlüssel, und dieser verliert seine Gültigkeit.\nEin neues Passwort meldet das Konto überall ab. Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.`,
    ],
  }),
};

function render(texts: Record<MessageLanguage, Lines>, p: AccountMail): MailText {
  const { subject, lines } = texts[p.language](p);
  const body = [greeting(p), ...lines].join('\n\n');
  return { subject, body, html: mailHtml(body, p.language, subject), language: p.language };
}

export const confirmationMail = (p: AccountMail): MailText => render(confirmation, p);
export const passwordResetMail = (p: AccountMail): MailText => render(passwordReset, p);
