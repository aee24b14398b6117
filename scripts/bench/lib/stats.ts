/** Median of the samples (mean of the middle two for an even count); NaN for none. */
export function median(values: number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** The p-th percentile (0..100) by nearest rank; NaN for none. */
export function percentile(values: number[], p: number): number {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))]!;
}

/** Rounds for display: 3 significant digits, at most 1 decimal above 100. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return "n/a";
  if (Math.abs(x) >= 100) return x.toFixed(0);
  return x.toPrecision(3);
}
