import { assertNever } from '../util/errors.js';

/**
 * How a composed per-step reward (core/rewards: outcome, format, ADMIRE, ProgRM, GUI-Shepherd …)
 * becomes what GRPO normalises. The papers differ, so it is a switch (TrainConfig.rewards.credit):
 *
 * - 'episode-sum': R(τ) = Σ_t r_t, one value per episode, normalised within the group and broadcast
 *   to its steps (advantage.mode 'trajectory'; AW-Gen / MobileRL with a binary outcome r_T).
 * - 'step': R(t) = r_t, each step's own total, z-scored over all steps of the group (advantage.mode
 *   'step'; ADMIRE Eq. 13, "no discounting or return-to-go", digest 000 §2.8).
 * - 'return-to-go': G_t = Σ_{t' ≥ t} γ^{t'−t} r_{t'} (ProgRM's inter-turn discount γ = 0.9, digest
 *   001 §2.6 — the paper states only γ; the return is our reconstruction), z-scored like 'step'.
 */
export const REWARD_CREDITS = ['episode-sum', 'step', 'return-to-go'] as const;
export type RewardCredit = (typeof REWARD_CREDITS)[number];

/**
 * Discounted return-to-go of one episode's step rewards (ProgRM reconstruction, digest 001 §2.6):
 *
 *   G_t = r_t + γ · G_{t+1},   G_{T+1} = 0
 *
 * A NaN reward (an unscored step) makes every G_t up to it NaN, since each of them contains it.
 */
export function returnsToGo(rewards: readonly number[], gamma: number): number[] {
  if (!(gamma >= 0 && gamma <= 1)) throw new RangeError(`gamma must be in [0, 1], got ${gamma}`);
  const out = new Array<number>(rewards.length);
  let g = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    g = rewards[t]! + gamma * g;
    out[t] = g;
  }
  return out;
}

/**
 * One episode's composed step rewards → the values its steps are credited with, per the switch above.
 * 'episode-sum' gives the episode's return Σ_t r_t on every step (the caller keeps one per episode).
 */
export function creditSteps(rewards: readonly number[], credit: RewardCredit, gamma: number): number[] {
  switch (credit) {
    case 'episode-sum': {
      const sum = rewards.reduce((a, b) => a + b, 0);
      return rewards.map(() => sum);
    }
    case 'step':
      return [...rewards];
    case 'return-to-go':
      return returnsToGo(rewards, gamma);
    default:
      return assertNever(credit, 'reward credit');
  }
}
