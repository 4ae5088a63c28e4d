import type { AdmireConfig } from './config.js';
import { cosine } from './embedder.js';

/** Per-step result of sequential milestone matching. */
export interface MilestoneMatch {
  /** K, the number of milestones. */
  K: number;
  /** cos(ψ(a_t), ψ(m_p)) against the milestone the pointer was on; null when nothing was compared. */
  similarity: Array<number | null>;
  /** The milestone index (0-based) the step was compared with, or null (no description, or all done). */
  compared: Array<number | null>;
  /** Whether the step hit that milestone (similarity > δ). */
  hit: boolean[];
  /** Hits so far, up to and including the step. */
  kAt: number[];
  /** Hits over the whole episode. */
  kFinal: number;
}

/**
 * Sequential matching, ADMIRE Eq. 8–9 and Alg. 1 lines 19–27:
 *   s_t = cos(ψ(a_t), ψ(m_p)); hit iff s_t > δ; on a hit k ← k+1, p ← p+1.
 * The pointer only moves forward, so milestones are hit in order. After the last one,
 * `afterLast: 'stop'` ends matching (the "next uncompleted milestone" reading) and 'rehit' keeps the
 * pointer on it (Alg. 1's literal p ← min(p+1, K)). A step without a description (the action did not
 * parse) is not compared. Embeddings come in precomputed so the same milestone vectors serve a batch.
 */
export function matchMilestones(
  steps: ReadonlyArray<Float32Array | null>,
  milestones: readonly Float32Array[],
  cfg: Pick<AdmireConfig, 'delta' | 'afterLast'>,
): MilestoneMatch {
  const K = milestones.length;
  const out: MilestoneMatch = { K, similarity: [], compared: [], hit: [], kAt: [], kFinal: 0 };
  let p = 0;
  let k = 0;
  let done = K === 0;
  for (const e of steps) {
    let s: number | null = null;
    let at: number | null = null;
    let h = false;
    if (!done && e) {
      at = p;
      s = cosine(e, milestones[p]!);
      if (s > cfg.delta) {
        h = true;
        k++;
        if (p + 1 < K) p++;
        else if (cfg.afterLast === 'stop') done = true;
      }
    }
    out.similarity.push(s);
    out.compared.push(at);
    out.hit.push(h);
    out.kAt.push(k);
  }
  out.kFinal = k;
  return out;
}

/**
 * Asymmetric credit assignment, ADMIRE Eq. 10–11 (Alg. 1 lines 28–33), before the λ weight:
 *   success: R_mil(t) = r_t if t ∈ T_mil else 0                  (+ k/K with `baseOnSuccess`)
 *   failure: R_mil(t) = k/K + (ζ·r_t if t ∈ T_mil else 0)         (k/K only with `baseOnFailure`)
 * r_t is the hit's similarity; k is the running or final hit count (`baseMode`). K = 0 gives all
 * zeros (no milestones yet: the outcome carries the episode).
 */
export function milestoneRewards(
  m: MilestoneMatch,
  success: boolean,
  cfg: Pick<AdmireConfig, 'zeta' | 'baseMode' | 'baseOnSuccess' | 'baseOnFailure'>,
): number[] {
  if (m.K === 0) return m.hit.map(() => 0);
  return m.hit.map((hit, t) => {
    const r = hit ? m.similarity[t]! : 0;
    const k = cfg.baseMode === 'running' ? m.kAt[t]! : m.kFinal;
    const base = k / m.K;
    if (success) return r + (cfg.baseOnSuccess ? base : 0);
    return (cfg.baseOnFailure ? base : 0) + cfg.zeta * r;
  });
}
