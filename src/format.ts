/** Amounts and times as people read them, in a language (PDFs, spreadsheets, mails). */

/**
 * A money amount in minor units as people read it in a language: `5 000 €`, `€5,000`, `1 234,50 kr`; with
 * `minorDigits: 'always'` (mails) a whole amount keeps them too: `137,00 €`, `€137.00`.
 */
export function formatMoney(
  minor: number,
  currency: string,
  language: string,
  minorDigits: 'when-needed' | 'always' = 'when-needed',
): string {
  const digits = fractionDigits(currency);
  const major = minor / 10 ** digits;
  return new Intl.NumberFormat(language, {
    style: 'currency',
    currency,
    minimumFractionDigits: Number.isInteger(major) && minorDigits === 'when-needed' ? 0 : digits,
    maximumFractionDigits: digits,
  }).format(major);
}

const digitsCache = new Map<string, number>();
/** Minor-unit digits of an ISO 4217 currency (EUR 2, SEK 2, JPY 0). */
export function fractionDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(currency, digits);
  }
  return digits;
}

/**
 * A date and time as people read it in a language, in a time zone it names: UTC unless another is given
 * (`22 nov. 2026 18:00 UTC`, `22.11.2026, 19:00 Europe/Berlin`).
 */
export function formatDateTime(iso: string, language: string, timeZone = 'UTC'): string {
  return `${new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso))} ${timeZone}`;
}
