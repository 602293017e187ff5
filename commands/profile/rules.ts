import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';

/*
 * The rules of profiles that the decider, the operations and intake share (and other features' intake:
 * intakePhone): the VAT decision, how values are normalised and checked.
 */

/** VAT numbers as stored: no spaces, dots or dashes, upper-case; null when nothing is left. */
export function normaliseVatNumber(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const value = raw.replace(/[\s.-]/g, '').toUpperCase();
  return value === '' ? null : value;
}

/** The EU member states, by the ISO code a VAT check answers (Greece is `GR`, its VAT prefix `EL`). */
export const EU_COUNTRIES = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);

/**
 * The VAT decision (reverse charge): VAT-free only for a valid number of an EU member state other than the
 * house's own. A house without a configured country charges VAT to everyone.
 */
export function isVatFree(result: { valid: boolean; country: string | null }, homeCountry: string | null): boolean {
  return (
    result.valid && homeCountry !== null && result.country !== null && EU_COUNTRIES.has(result.country) && result.country !== homeCountry
  );
}

const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'QO', 'XA', 'XB', 'UK']);
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** An ISO 3166-1 alpha-2 code of a country or territory. */
export const isCountryCode = (code: string) => /^[A-Z]{2}$/.test(code) && !NOT_COUNTRIES.has(code) && regionNames.of(code) !== undefined;

/** The IANA name of a time zone (canonical spelling), or null when there is no such zone. */
export function timeZoneName(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** A phone of an intake record in E.164: international, or as dialled in `country` when given. */
export function intakePhone(raw: string | null | undefined, country: string | null | undefined, field: string): string | null {
  const text = raw?.trim();
  if (!text) return null;
  const region = country && isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(text, region ? { defaultCountry: region } : undefined);
  if (!parsed?.isValid()) throw new Error(`${field}: not a phone number (give it with its country code)`);
  return parsed.number;
}
