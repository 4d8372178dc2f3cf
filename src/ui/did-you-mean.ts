// "Did you mean …?" by the rule and wording of commander's suggestSimilar (not exported): typos read as option typos do.

/** Further than this many edits is not a typo of the word. */
const MAX_DISTANCE = 3;
/** At least this share of the longer word must be left unedited. */
const MIN_SIMILARITY = 0.4;

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX_DISTANCE) return Math.max(a.length, b.length);
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d[i] = [i];
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let j = 1; j <= b.length; j++) {
    for (let i = 1; i <= a.length; i++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The candidates closest to `word` (all of them on a tie, sorted), or none when nothing is close. */
export function closest(word: string, candidates: readonly string[]): string[] {
  const near = [...new Set(candidates)]
    .filter((candidate) => candidate.length > 1)
    .map((candidate) => ({
      candidate,
      distance: editDistance(word, candidate),
      length: Math.max(word.length, candidate.length),
    }))
    .filter(
      ({ distance, length }) =>
        distance <= MAX_DISTANCE && (length - distance) / length > MIN_SIMILARITY,
    );
  const best = Math.min(...near.map((n) => n.distance));
  return near
    .filter((n) => n.distance === best)
    .map((n) => n.candidate)
    .sort((a, b) => a.localeCompare(b));
}

/** `\n(Did you mean trigger?)`, worded as commander words it for options, or '' when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const similar = closest(word, candidates);
  if (similar.length > 1) return `\n(Did you mean one of ${similar.join(', ')}?)`;
  if (similar.length === 1) return `\n(Did you mean ${similar[0]}?)`;
  return '';
}
