import { type VatChecker, type VatCheckResult, VatCheckUnavailableError } from '../../ports/vat.ts';
import { JsvatChecker } from '../embedded/jsvat-checker.ts';

/** The EU's VIES REST endpoint (POST `{countryCode, vatNumber}`). */
export const VIES_URL = 'https://ec.europa.eu/taxation_customs/vies/rest-api/check-vat-number';
export const VIES_DEFAULT_TIMEOUT_MS = 10_000;

/** VAT prefixes VIES checks: the 27 member states (Greece as `EL`) and Northern Ireland (`XI`). */
const VIES_PREFIXES = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'EL',
  'ES',
  'FI',
  'FR',
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
  'XI',
]);
/** VIES's answer to a number it cannot check because it is malformed: a definite "not valid". */
const INVALID_INPUT = 'INVALID_INPUT';
const MAX_ANSWER_BYTES = 256 * 1024;

export interface ViesCheckerOptions {
  /** The check-vat-number endpoint (VIES_URL; a fake one in tests). */
  url?: string;
  /** The whole call, the answer's body included (default 10 s). */
  timeoutMs?: number;
  /** Numbers of countries outside VIES (Switzerland, Norway, ...) are checked by format and checksum with this. */
  fallback?: VatChecker;
}

/**
 * The production VAT check: the EU's VIES service over HTTPS/REST. A number of a member state is sent as
 * `{countryCode, vatNumber}` (prefix split off; `GR` numbers as `EL`) and VIES's `valid` is the answer
 * (`source: 'vies'`). VIES's `INVALID_INPUT` is a definite "not valid". Anything else that is not an answer (a
 * timeout, a network error, a non-2xx status, a member state's service down, a body that is not VIES's) throws
 * VatCheckUnavailableError, so the caller retries and decides nothing meanwhile.
 */
export class ViesChecker implements VatChecker {
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly fallback: VatChecker;

  constructor(options: ViesCheckerOptions = {}) {
    this.url = options.url ?? VIES_URL;
    if (!/^https?:\/\//.test(this.url)) throw new Error('ViesChecker: the url must be http(s)');
    this.timeoutMs = options.timeoutMs ?? VIES_DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(this.timeoutMs) || this.timeoutMs <= 0) throw new Error('ViesChecker: timeoutMs must be a positive integer');
    this.fallback = options.fallback ?? new JsvatChecker();
  }

  async check(vatNumber: string): Promise<VatCheckResult> {
    const normalised = vatNumber.replace(/[\s.-]/g, '').toUpperCase();
    const given = normalised.slice(0, 2);
    const prefix = given === 'GR' ? 'EL' : given;
    if (!VIES_PREFIXES.has(prefix)) return this.fallback.check(normalised);
    const country = prefix === 'EL' ? 'GR' : prefix;
    const number = normalised.slice(2);
    // Not worth a call: no VAT number of any member state looks like this.
    if (!/^[A-Z0-9+*]{2,13}$/.test(number)) return { vatNumber: normalised, valid: false, country, source: 'vies' };
    const answer = await this.call({ countryCode: prefix, vatNumber: number });
    return { vatNumber: normalised, valid: answer, country, source: 'vies' };
  }

  private async call(request: { countryCode: string; vatNumber: string }): Promise<boolean> {
    let status: number;
    let text: string;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      status = response.status;
      const length = Number(response.headers.get('content-length') ?? 0);
      if (length > MAX_ANSWER_BYTES) {
        await response.body?.cancel();
        throw new VatCheckUnavailableError(`VIES answered ${length} bytes`);
      }
      text = await response.text();
    } catch (error) {
      if (error instanceof VatCheckUnavailableError) throw error;
      const name = (error as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new VatCheckUnavailableError(`VIES did not answer within ${this.timeoutMs} ms`);
      throw new VatCheckUnavailableError(`VIES could not be reached: ${(error as Error)?.message ?? String(error)}`);
    }
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(text);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      throw new VatCheckUnavailableError(`VIES answered ${status} with a body that is not its JSON`);
    }
    const errors = Array.isArray(body.errorWrappers)
      ? body.errorWrappers.map((e) => String((e as { error?: unknown })?.error ?? 'UNKNOWN'))
      : [];
    if (body.actionSucceed === false || errors.length) {
      if (errors.includes(INVALID_INPUT)) return false;
      throw new VatCheckUnavailableError(`VIES could not check the number: ${errors.join(', ') || 'no reason given'}`);
    }
    if (status < 200 || status > 299) throw new VatCheckUnavailableError(`VIES answered ${status}`);
    const userError = body.userError;
    if (typeof userError === 'string' && userError !== 'VALID' && userError !== 'INVALID') {
      if (userError === INVALID_INPUT) return false;
      throw new VatCheckUnavailableError(`VIES could not check the number: ${userError}`);
    }
    const valid = typeof body.valid === 'boolean' ? body.valid : typeof body.isValid === 'boolean' ? body.isValid : null;
    if (valid === null) throw new VatCheckUnavailableError('VIES answered without saying whether the number is valid');
    return valid;
  }
}

/**
 * The VAT checker of a deployment: VIES when `viesUrl` is configured (VIES_URL), else the embedded format and
 * checksum check.
 */
export function createVatChecker(options: { viesUrl: string | null; viesTimeoutMs?: number }): VatChecker {
  return options.viesUrl ? new ViesChecker({ url: options.viesUrl, timeoutMs: options.viesTimeoutMs }) : new JsvatChecker();
}
