/** The p-th percentile (0..100) by nearest rank; NaN for none. */
export function percentile(values: number[], p: number): number {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))]!;
}
