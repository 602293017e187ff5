/**
 * VAT number checks. Embedded: format and checksum (jsvat). Production: the EU's VIES service when
 * configured. Used by a background job after a profile names a company's VAT number.
 */
export interface VatCheckResult {
  /** The number as checked: country prefix and digits, no spaces (`NL123456789B01`). */
  vatNumber: string;
  valid: boolean;
  /** ISO 3166-1 alpha-2 of the number's country (`EL` numbers are Greece: `GR`), or null when unknown. */
  country: string | null;
  /** What decided it: `format` (format and checksum only) or `vies`. */
  source: 'format' | 'vies';
}

export interface VatChecker {
  check(vatNumber: string): Promise<VatCheckResult>;
}

/**
 * The checking service could not answer now (unreachable, a timeout, a member state's service down, too many
 * requests): nothing is known about the number, so nothing may be decided from it. The job retries.
 */
export class VatCheckUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VatCheckUnavailableError';
  }
}
