import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { z } from '../../src/http/schemas.ts';
import { ValidationError } from '../../src/errors.ts';
import { normalizeEmail } from './events.ts';

/** A new password (sign-up, reset): 10–128 characters, and not the email address. */
export const PASSWORD_LIMITS = { min: 10, max: 128 } as const;
export const newPassword = (description: string) =>
  z.string().min(PASSWORD_LIMITS.min).max(PASSWORD_LIMITS.max).openapi({ description, format: 'password' });

/** The refinement of a body with `Email` and a new `Password`: the password may not be the address. */
export function passwordIsNotEmail(body: { Email: string; Password: string }, ctx: z.RefinementCtx) {
  if (body.Password.trim().toLowerCase() === normalizeEmail(body.Email))
    ctx.addIssue({ code: 'custom', path: ['Password'], message: 'must not be the email address' });
}

/** An email address in a rate-limit key: hashed, so the limiter's store holds no addresses. */
export const emailKey = (email: string) => createHash('sha256').update(normalizeEmail(email), 'utf8').digest('hex').slice(0, 32);

/**
 * A phone number as stored: E.164 (a number without a country code is read as one of the house's country),
 * empty when none is given. Not a phone number: 400 naming the field.
 */
export function normalizePhone(raw: string | null | undefined, country: string | null, field = 'body.Phone'): string {
  const text = raw?.trim() ?? '';
  if (text === '') return '';
  const region = country && isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(text, region ? { defaultCountry: region } : undefined);
  if (!parsed?.isValid())
    throw new ValidationError('The phone number is not valid.', [
      { field, message: 'not a phone number: give it with its country code (+31 6 12345678)' },
    ]);
  return parsed.number;
}
