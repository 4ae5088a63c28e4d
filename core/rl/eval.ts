/**
 * Benchmark aggregation for `awb eval`, pure: episodes in, success rates out.
 *
 * AW-Gen reports "the mean test-set success rate, with standard deviation across three evaluation
 * seeds per task template (seeds 30, 7, 1234)" (digest 004 §3.2 and "Evaluation"). An evaluation
 * seed selects the task instance of every template (instantiate(template, seed)), so one seed is
 * one full pass over the split part. For each group (overall, a regime, a difficulty, an app):
 *
 *   SR_s   = successes_s / episodes_s                 (episodes of the group evaluated with seed s)
 *   mean   = (1/S) Σ_s SR_s                           (over the S seeds that have episodes in the group)
 *   std    = sqrt( Σ_s (SR_s − mean)² / (S − 1) )     (sample std, Bessel-corrected)
 *
 * With a single seed the std is undefined: it is reported as null ("n/a"), not 0, so a one-seed
 * figure is never mistaken for a perfectly stable one. An episode that ended in an error counts as
 * a failure (its success is false) and is also counted under `errors`.
 */

/** One evaluated episode with the labels it is grouped by. */
export interface EvalEpisode {
  seed: number;
  templateId: string;
  /** The regimes (split names) whose part contains this instance. */
  regimes: readonly string[];
  difficulty: string;
  app: string;
  success: boolean;
  error: boolean;
}

export interface SeedRate {
  seed: number;
  episodes: number;
  successes: number;
  errors: number;
  successRate: number;
}

export interface GroupStats {
  /** Episodes over all seeds. */
  episodes: number;
  successes: number;
  errors: number;
  /** Per-seed success rates, in the order the seeds were given. */
  perSeed: SeedRate[];
  /** Mean over seeds of the per-seed success rate. */
  mean: number;
  /** Sample standard deviation over seeds; null with fewer than two seeds. */
  std: number | null;
}

export interface EvalReport {
  seeds: number[];
  overall: GroupStats;
  byRegime: Record<string, GroupStats>;
  byDifficulty: Record<string, GroupStats>;
  byApp: Record<string, GroupStats>;
}

/** mean and sample std (n − 1 denominator) of a list; std is null for fewer than two values. */
export function meanStd(xs: readonly number[]): { mean: number; std: number | null } {
  if (xs.length === 0) return { mean: 0, std: null };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return { mean, std: null };
  const ss = xs.reduce((a, x) => a + (x - mean) ** 2, 0);
  return { mean, std: Math.sqrt(ss / (xs.length - 1)) };
}

/** Per-seed rates, then mean ± std over the seeds that have episodes in the group. */
export function groupStats(episodes: readonly EvalEpisode[], seeds: readonly number[]): GroupStats {
  const perSeed: SeedRate[] = [];
  for (const seed of seeds) {
    const mine = episodes.filter((e) => e.seed === seed);
    if (mine.length === 0) continue;
    const successes = mine.filter((e) => e.success).length;
    perSeed.push({ seed, episodes: mine.length, successes, errors: mine.filter((e) => e.error).length, successRate: successes / mine.length });
  }
  const { mean, std } = meanStd(perSeed.map((s) => s.successRate));
  return {
    episodes: perSeed.reduce((a, s) => a + s.episodes, 0),
    successes: perSeed.reduce((a, s) => a + s.successes, 0),
    errors: perSeed.reduce((a, s) => a + s.errors, 0),
    perSeed, mean, std,
  };
}

function groupBy(episodes: readonly EvalEpisode[], seeds: readonly number[], keys: (e: EvalEpisode) => readonly string[]): Record<string, GroupStats> {
  const groups = new Map<string, EvalEpisode[]>();
  for (const e of episodes) {
    for (const k of keys(e)) {
      const list = groups.get(k) ?? [];
      list.push(e);
      groups.set(k, list);
    }
  }
  return Object.fromEntries([...groups.keys()].sort().map((k) => [k, groupStats(groups.get(k)!, seeds)]));
}

/** The full report: overall, per regime, per difficulty and per app. Episodes of unlisted seeds are ignored. */
export function aggregateEval(episodes: readonly EvalEpisode[], seeds: readonly number[]): EvalReport {
  const listed = new Set(seeds);
  const kept = episodes.filter((e) => listed.has(e.seed));
  return {
    seeds: [...seeds],
    overall: groupStats(kept, seeds),
    byRegime: groupBy(kept, seeds, (e) => e.regimes),
    byDifficulty: groupBy(kept, seeds, (e) => [e.difficulty]),
    byApp: groupBy(kept, seeds, (e) => [e.app]),
  };
}

/** "62.5% ± 4.1" (percent points), or "62.5% ± n/a" for one seed. */
export function formatMeanStd(g: Pick<GroupStats, 'mean' | 'std'>): string {
  return `${(g.mean * 100).toFixed(1)}% ± ${g.std === null ? 'n/a' : (g.std * 100).toFixed(1)}`;
}

/** After − before of the mean success rate, per group present in both reports (before/after an adaptation or more training). */
export interface EvalDeltas {
  overall: number;
  byApp: Record<string, number>;
  byDifficulty: Record<string, number>;
}

export function evalDeltas(before: EvalReport, after: EvalReport): EvalDeltas {
  const diff = (a: Record<string, GroupStats>, b: Record<string, GroupStats>) =>
    Object.fromEntries(Object.keys(b).filter((k) => k in a).sort().map((k) => [k, b[k]!.mean - a[k]!.mean]));
  return { overall: after.overall.mean - before.overall.mean, byApp: diff(before.byApp, after.byApp), byDifficulty: diff(before.byDifficulty, after.byDifficulty) };
}
