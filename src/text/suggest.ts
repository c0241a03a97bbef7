/**
 * "Did you mean ...?": the known word closest to a mistyped one, for config
 * keys, HTTP methods, commands and options. Pure.
 * @module
 */

/** Edit distance with adjacent transpositions (optimal string alignment), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from(
    { length: s.length + 1 },
    (_, i) => [i, ...new Array<number>(t.length).fill(0)],
  );
  for (let j = 1; j <= t.length; j++) d[0]![j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The candidate closest to `word`, when it is close enough to be a likely
 * typo (at most a third of the word's letters off, and at most 3), else `undefined`.
 * Look-alike digits count as their letters (`P0ST` is one edit from `POST`).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  if (word === "") return undefined; // every short candidate is "close" to nothing
  let best: string | undefined;
  let bestDistance = Infinity;
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === word.toLowerCase()) return candidate;
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** `" (did you mean X?)"` when a candidate is close, else `""`. */
export function didYouMean(word: string, candidates: Iterable<string>, quote = (s: string) => s): string {
  const near = closest(word, candidates);
  return near === undefined ? "" : `: did you mean ${quote(near)}?`;
}
