import { checkVAT, countries } from 'jsvat';
import type { VatChecker, VatCheckResult } from '../../ports/vat.ts';

/**
 * The embedded VAT check: format and checksum of EU (and a few other) VAT numbers, by jsvat. No network.
 * Spaces, dots and dashes are dropped and letters upper-cased; a Greek number may be given as `GR…` or `EL…`
 * (its VAT prefix).
 */
export class JsvatChecker implements VatChecker {
  async check(vatNumber: string): Promise<VatCheckResult> {
    const normalised = vatNumber.replace(/[\s.-]/g, '').toUpperCase();
    const checked = normalised.startsWith('GR') ? `EL${normalised.slice(2)}` : normalised;
    const result = checkVAT(checked, countries);
    const iso = result.country?.isoCode.short ?? null;
    return { vatNumber: normalised, valid: result.isValid, country: iso === 'EL' ? 'GR' : iso, source: 'format' };
  }
}
