/** Small statistics helpers shared by the benchmarks. */

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The `p`-quantile (0..1, nearest rank) of a sorted numeric array. */
export function quantileSorted(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** (max − min) / median: how far apart the rounds were. */
export function spread(values) {
  const m = median(values);
  return m === 0 ? 0 : (Math.max(...values) - Math.min(...values)) / m;
}

/**
 * The median of `as[i] ÷ bs[i]` over the pairs where both are numbers, or undefined when none are: for two
 * peers measured in the same round, while the machine's speed moves from round to round, the ratio within each
 * round says more than the ratio of the two peers' medians, which can come from different rounds.
 */
export function pairedRatio(as, bs) {
  const ratios = as.map((a, i) => a / bs[i]).filter((x) => Number.isFinite(x));
  return ratios.length ? median(ratios) : undefined;
}
