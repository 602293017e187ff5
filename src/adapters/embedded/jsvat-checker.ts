import { checkVAT, countries } from 'jsvat';
import type { VatChecker, VatCheckResult } from '../../ports/vat.ts';

/** The embedded VAT check: format and checksum of EU (and a few other) VAT numbers, by jsvat. No network. */
export class JsvatChecker implements VatChecker {
  async check(vatNumber: string): Promise<VatCheckResult> {
    const normalised = vatNumber.replace(/[\s.-]/g, '').toUpperCase();
    const result = checkVAT(normalised, countries);
    const iso = result.country?.isoCode.short ?? null;
    return { vatNumber: normalised, valid: result.isValid, country: iso === 'EL' ? 'GR' : iso, source: 'format' };
  }
}
