/** The q-th quantile (0..1) of sorted times by the nearest-rank method, rounded to a millisecond; null for none. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return Math.round(sorted[rank - 1]);
}
