/**
 * MobileRL's shortest-path reward adjustment (SPA), one of AdaGRPO's three additions to GRPO
 * (digest 003 §2.3). A pure function of a group's rewards and episode lengths: the GRPO trainer
 * (core/rl/adagrpo.ts, train-grpo.ts, train-rewards.ts) and the 'shortest-path' reward component
 * (registry.ts) both apply it, so it lives here, below both.
 */

/** Bad input to an AdaGRPO function (SPA here, replay and curriculum in core/rl/adagrpo.ts). */
export class AdaGrpoInputError extends Error {
  override name = 'AdaGrpoInputError';
  constructor(message: string, readonly value: unknown) {
    super(`${message}, got ${JSON.stringify(value)}`);
  }
}

export interface ShortestPathOptions {
  /** Penalty strength α (Table 2 "SPA/[symbol] = 1.0"; the code has no α, which equals α = 1). */
  alpha: number;
  /** A reward ≥ this counts as a success for T_min (binary outcome: 1). */
  successReward: number;
}

/**
 * SPA (digest 003 §2.3; the paper's Eq. 1 is missing, this is the code's check_uid_uuid_reward with the
 * paper's α):
 *
 *   T_min = min { T_j : τ_j ∈ S }   (S = successful episodes of this group)
 *   r̃_i  = r_i − α · max(T_i − T_min, 0) / (2 T_i)   if r_i > 0 and S ≠ ∅
 *   r̃_i  = r_i                                        otherwise (failures stay 0, short or not)
 *
 * With binary rewards and α = 1 a success earns 1 − (T − T_min)/(2T) ∈ (0.5, 1]: the shortest success
 * keeps 1 and every success stays above every failure, as the paper requires. Lengths are steps.
 * Non-finite rewards pass through unchanged (the advantage step leaves them out).
 */
export function shortestPathRewards(rewards: readonly number[], lengths: readonly number[], opts: ShortestPathOptions): number[] {
  if (rewards.length !== lengths.length) throw new AdaGrpoInputError(`need one length per reward (${rewards.length})`, lengths.length);
  for (const t of lengths) if (!Number.isInteger(t) || t < 0) throw new AdaGrpoInputError('an episode length must be a non-negative integer', t);
  const successLengths = lengths.filter((_, i) => rewards[i]! >= opts.successReward);
  if (!successLengths.length) return [...rewards];
  const tMin = Math.min(...successLengths);
  return rewards.map((r, i) => {
    const t = lengths[i]!;
    if (!(r > 0) || t <= tMin) return r;
    return r - (opts.alpha * (t - tMin)) / (2 * t);
  });
}
