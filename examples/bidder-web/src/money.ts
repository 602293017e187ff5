// Amounts are integers of minor units beside a currency (API.md "Conventions"): shown and typed in major units.

const digitsOf = (currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

export function formatMoney(minor: number, currency: string, language: string): string {
  return new Intl.NumberFormat(language, { style: 'currency', currency }).format(minor / 10 ** digitsOf(currency));
}

/** An amount as a bidder types it into the field (no currency sign): `233` or `233.50`. */
export function toInput(minor: number, currency: string): string {
  const digits = digitsOf(currency);
  const major = minor / 10 ** digits;
  return Number.isInteger(major) ? String(major) : major.toFixed(digits);
}

/** What a bidder typed, in minor units; null when it is no amount. Accepts `1 234,50` and `1,234.50`. */
export function parseMoney(text: string, currency: string): number | null {
  let clean = text.replace(/[\s\u00a0\u202f']/g, '');
  // The last `,` or `.` with one or two digits after it is the decimal mark; the others group thousands.
  const decimal = /[.,](\d{1,2})$/.exec(clean);
  clean = decimal ? clean.slice(0, decimal.index).replace(/[.,]/g, '') + '.' + decimal[1] : clean.replace(/[.,]/g, '');
  if (!/^\d+(\.\d+)?$/.test(clean)) return null;
  return Math.round(Number(clean) * 10 ** digitsOf(currency));
}
