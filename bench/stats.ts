/** Figures over rounds: a median with its min and max (the machine's noise is part of every figure). */

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(xs: number[]): Spread {
  const finite = xs.filter(Number.isFinite);
  return {
    median: median(finite),
    min: finite.length ? Math.min(...finite) : NaN,
    max: finite.length ? Math.max(...finite) : NaN,
    n: finite.length,
  };
}

/** "1,234 (1,100–1,300)": the median and the range over rounds (just the value for one round). */
export function showSpread(s: Spread, digits = 0, unit = ''): string {
  if (!Number.isFinite(s.median)) return '-';
  if (s.n <= 1 || s.min === s.max) return `${fmt(s.median, digits)}${unit}`;
  return `${fmt(s.median, digits)}${unit} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

/** The value at quantile q (0..1) of values sorted ascending; NaN when there are none. */
export const percentile = (sorted: number[], q: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
