/**
 * Servers' replies as the service logs and keeps them: e-mail addresses and phone numbers masked
 * (`b…@example.org`, `+46…33`), for a relay's `554 5.7.1 <bidder@example.org>: Relay access denied` or Twilio's
 * `The 'To' number +46701234533 is not a valid phone number` name the member (PRODUCTION.md "No address or
 * number in logs").
 */

/** An address: its first character and its domain are kept. */
const EMAIL = /([A-Za-z0-9!#$%&'*+/=?^_`{|}~-])[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]*@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/g;
/** A number in international form, separators allowed (`+46 70-123 45 33`). */
const PLUS_NUMBER = /\+\d[\d\s().-]{5,}\d/g;
/** A bare run of 7–15 digits standing alone (not part of an id, a version or an address). */
const BARE_NUMBER = /(?<![\w.+])\d{7,15}(?![\w.])/g;

const shortened = (digits: string) => `${digits.slice(0, 2)}…${digits.slice(-2)}`;

export function maskPersonalData(text: string): string {
  return text
    .replace(EMAIL, (_, first: string, domain: string) => `${first}…@${domain}`)
    .replace(PLUS_NUMBER, (number) => {
      const digits = number.replace(/\D/g, '');
      return digits.length < 7 ? number : `+${shortened(digits)}`;
    })
    .replace(BARE_NUMBER, shortened);
}
