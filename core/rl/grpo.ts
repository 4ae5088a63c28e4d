import { assertNever } from '../util/errors.js';

/**
 * GRPO maths for multi-turn episodes, as pure functions (no device, no I/O): group-relative
 * advantages (trajectory-level and step-level) and the per-step clipped surrogate with a k3 KL
 * penalty, plus its batch aggregation. docs/rl.md collects the formulas, defaults and choices.
 *
 * Vocabulary: a *group* is the G episodes (rollouts) of one task instance; an *episode* has T_i
 * *steps*; the builtin policy emits one action per step, so one log-probability per step plays
 * the role a token plays in LLM GRPO.
 */

// ---------------------------------------------------------------------------------------------
// advantages

/** How the centred reward is scaled: per-group std (GRPO), one std over the batch, or not at all (Dr. GRPO). */
export type AdvantageScale = 'group' | 'batch' | 'none';
/** Population std divides by n, sample std by n − 1 (torch.std's default, used by TRL and MobileRL's code). */
export type StdKind = 'population' | 'sample';
/** Groups whose valid rewards are all equal carry no signal: drop them from the loss, or keep them (advantage 0, KL still acts). */
export type ZeroStdGroups = 'skip' | 'keep';

export interface AdvantageOptions {
  scale: AdvantageScale;
  std: StdKind;
  /** Added to the std in the denominator (1e-4 as in TRL; MobileRL's code uses 1e-6). */
  eps: number;
  zeroStdGroups: ZeroStdGroups;
}

export const DEFAULT_ADVANTAGE_OPTIONS: AdvantageOptions = { scale: 'group', std: 'sample', eps: 1e-4, zeroStdGroups: 'skip' };

/** Statistics of one group, as the advantage was computed from them. */
export interface GroupStats {
  /** Mean of the group's finite rewards (NaN when none is finite). */
  mean: number;
  /** The std used for scaling: the group's, the batch's, or 1 for scale 'none'. */
  std: number;
  /** The group's own std of finite rewards (0 when fewer than two, so degenerate groups count as zero-std). */
  groupStd: number;
  /** Finite rewards in the group. */
  valid: number;
  /** True when the group has no usable spread (all valid rewards equal, ≤ 1 valid) and zeroStdGroups is 'skip'. */
  skipped: boolean;
}

export interface GroupAdvantages {
  /** advantages[g][k]: one per reward, in the same shape as the input. */
  advantages: number[][];
  groups: GroupStats[];
}

export class AdvantageInputError extends Error {
  override name = 'AdvantageInputError';
  constructor(readonly value: unknown, what: string) {
    super(`${what}, got ${JSON.stringify(value)}`);
  }
}

function finite(values: readonly number[]): number[] {
  return values.filter((v) => Number.isFinite(v));
}

function meanOf(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}

/** std of the values about `mean`; 0 for fewer than two values (sample) or none (population). */
function stdOf(values: readonly number[], mean: number, kind: StdKind): number {
  const n = values.length;
  const denom = kind === 'population' ? n : n - 1;
  if (denom <= 0) return 0;
  return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / denom);
}

/**
 * Group-relative normalisation shared by the trajectory and step variants:
 *
 *   Â_{g,k} = (r_{g,k} − μ_g) / (σ + eps)      σ = σ_g ('group') or σ_batch ('batch')
 *   Â_{g,k} =  r_{g,k} − μ_g                    ('none')
 *
 * μ_g is the mean of group g's finite values. 'batch' takes σ over all finite values of the batch
 * (TRL's scale_rewards='batch'); 'none' only centres (Dr. GRPO, Liu et al. 2025: the std division
 * over-weights near-uniform groups), so Â = r − μ_g exactly.
 *
 * Unscorable rewards (NaN, ±Inf — a checker that threw, a judge whose answer did not parse) are left
 * out of μ and σ and get advantage 0, following TRL, which turns a reward function's None into NaN and
 * reduces with nan-aware sums: an unscorable rollout says nothing about the policy, so counting it as 0
 * would punish the policy for an infrastructure failure, and averaging it in would poison the group.
 *
 * A group whose valid values are all equal (all successes, all failures), that has a single valid
 * value, or none at all, has no baseline to compare with: every advantage is 0, and with
 * zeroStdGroups 'skip' the group is flagged so the trainer leaves it out of the loss (MobileRL's code
 * mutes all-zero groups; DAPO's dynamic sampling drops them); 'keep' leaves it in (TRL's default).
 * Deviation: MobileRL's code gives a one-row group mean 0 and std 1 (advantage = reward); here it is 0.
 */
export function normaliseGroups(values: readonly (readonly number[])[], opts: AdvantageOptions): GroupAdvantages {
  if (!(opts.eps >= 0)) throw new AdvantageInputError(opts.eps, 'eps must be ≥ 0');
  const valid = values.map(finite);
  const batchValues = valid.flat();
  const batchStd = stdOf(batchValues, meanOf(batchValues), opts.std);
  const groups: GroupStats[] = [];
  const advantages = values.map((group, g) => {
    const v = valid[g]!;
    const mean = meanOf(v);
    const groupStd = stdOf(v, mean, opts.std);
    const degenerate = v.length < 2 || v.every((x) => x === v[0]);
    let std: number;
    let denom: number;
    switch (opts.scale) {
      case 'group': std = groupStd; denom = std + opts.eps; break;
      case 'batch': std = batchStd; denom = std + opts.eps; break;
      case 'none': std = 1; denom = 1; break;
      default: return assertNever(opts.scale, 'advantage scale');
    }
    groups.push({ mean, std, groupStd: degenerate ? 0 : groupStd, valid: v.length, skipped: degenerate && opts.zeroStdGroups === 'skip' });
    return group.map((r) => (degenerate || !Number.isFinite(r) ? 0 : (r - mean) / denom));
  });
  return { advantages, groups };
}

/**
 * Trajectory-level GRPO advantage for one group (AW-Gen digest 004 §5.1 Eq. 3; MobileRL digest 003
 * §2.2/§2.4 Eq. 2 as reconstructed):
 *
 *   Â_{τ_i} = (R(τ_i) − mean_j R(τ_j)) / (std_j R(τ_j) + eps),   then Â_{i,t} = Â_{τ_i} for every step t
 *
 * Statistics over the G episodes (AW-Gen), not over step rows as MobileRL's code does (there longer
 * episodes weigh more in μ, σ; digest 003 §2.2). Use broadcastToSteps for Â_{i,t}. One group only:
 * scale 'batch' equals 'group' here; use groupAdvantages for a batch.
 */
export function trajectoryAdvantages(groupRewards: readonly number[], opts: AdvantageOptions = DEFAULT_ADVANTAGE_OPTIONS): number[] {
  return normaliseGroups([groupRewards], opts).advantages[0]!;
}

/** Trajectory-level advantages for a batch of groups (rewards[g][i] = R(τ_i) of group g), with per-group stats. */
export function groupAdvantages(rewards: readonly (readonly number[])[], opts: AdvantageOptions = DEFAULT_ADVANTAGE_OPTIONS): GroupAdvantages {
  return normaliseGroups(rewards, opts);
}

/** Â_{i,t} = Â_{τ_i} for t = 1..T_i: one row of step advantages per episode. */
export function broadcastToSteps(episodeAdvantages: readonly number[], stepCounts: readonly number[]): number[][] {
  if (episodeAdvantages.length !== stepCounts.length) {
    throw new AdvantageInputError(stepCounts, `need one step count per episode (${episodeAdvantages.length})`);
  }
  return episodeAdvantages.map((a, i) => {
    const n = stepCounts[i]!;
    if (!Number.isInteger(n) || n < 0) throw new AdvantageInputError(n, 'a step count must be a non-negative integer');
    return new Array<number>(n).fill(a);
  });
}

/**
 * Step-level GRPO advantage (ADMIRE digest 000 §2.8 Eq. 13): one z-score over all steps of all
 * episodes of a group,
 *
 *   Â_t^i = (R^i(t) − mean(R)) / (std(R) + eps),   R = { R^u(v) | 1 ≤ u ≤ B, 1 ≤ v ≤ T_u }
 *
 * stepRewards[i][t] = R^i(t) (e.g. outcome broadcast + format + milestone reward). The paper leaves
 * population vs sample std and the eps open (digest §2.8); both are options here. Longer episodes
 * contribute more terms to mean and std, as in the paper. Returns the same shape.
 */
export function stepAdvantages(stepRewards: readonly (readonly number[])[], opts: AdvantageOptions = DEFAULT_ADVANTAGE_OPTIONS): number[][] {
  return stepGroupAdvantages([stepRewards], opts).advantages[0]!;
}

/** Step-level advantages for a batch: stepRewards[g][i][t]. Stats are per group over the flattened steps. */
export function stepGroupAdvantages(
  stepRewards: readonly (readonly (readonly number[])[])[],
  opts: AdvantageOptions = DEFAULT_ADVANTAGE_OPTIONS,
): { advantages: number[][][]; groups: GroupStats[] } {
  const flat = normaliseGroups(stepRewards.map((group) => group.flat()), opts);
  const advantages = stepRewards.map((group, g) => {
    let k = 0;
    return group.map((episode) => episode.map(() => flat.advantages[g]![k++]!));
  });
  return { advantages, groups: flat.groups };
}

/** Where the advantage is computed: per episode and broadcast (AW-Gen, MobileRL), or per step (ADMIRE). */
export type AdvantageMode = 'trajectory' | 'step';

/**
 * Per-step advantages of a batch of groups from one reward per episode, in either mode:
 * rewards[g][i] is episode i of group g, stepCounts[g][i] its number of steps. 'trajectory' takes
 * trajectoryAdvantages per group and broadcasts it to every step; 'step' gives every step its
 * episode's reward and takes stepGroupAdvantages (one z-score over all steps of the group).
 */
export function episodeStepAdvantages(
  rewards: readonly (readonly number[])[],
  stepCounts: readonly (readonly number[])[],
  mode: AdvantageMode,
  opts: AdvantageOptions = DEFAULT_ADVANTAGE_OPTIONS,
): { advantages: number[][][]; groups: GroupStats[] } {
  switch (mode) {
    case 'trajectory': {
      const ga = groupAdvantages(rewards, opts);
      return { advantages: ga.advantages.map((a, g) => broadcastToSteps(a, stepCounts[g]!)), groups: ga.groups };
    }
    case 'step':
      return stepGroupAdvantages(rewards.map((g, gi) => g.map((r, i) => new Array<number>(stepCounts[gi]![i]!).fill(r))), opts);
    default:
      return assertNever(mode, 'advantage mode');
  }
}

/** Indices of the groups that zeroStdGroups 'skip' leaves out of the loss (for logging 'adv/zero_std_frac'). */
export function skippedGroups(rewards: readonly (readonly number[])[], opts: AdvantageOptions = DEFAULT_ADVANTAGE_OPTIONS): number[] {
  return normaliseGroups(rewards, opts).groups.flatMap((g, i) => (g.skipped ? [i] : []));
}

// ---------------------------------------------------------------------------------------------
// loss

export interface StepLossInput {
  /** log π_θ(a_t | s_t) under the policy being trained. */
  logpNew: number;
  /** log π_θold(a_t | s_t) recorded at rollout time. */
  logpOld: number;
  /** log π_ref(a_t | s_t) under the frozen reference; needed only when klBeta > 0. */
  logpRef?: number;
  advantage: number;
}

export interface StepLossOptions {
  /** PPO clip ε (lower side, and upper side unless clipEpsHigh is set). */
  clipEps: number;
  /** Upper clip ε_high (DAPO's clip-higher); defaults to clipEps (symmetric). */
  clipEpsHigh?: number;
  /** KL coefficient β (k3 estimator to the reference policy). */
  klBeta: number;
  /** |log-ratio| bound before exp, as verl clamps it (±20): keeps ratio and k3 finite. Default 20. */
  maxLogRatio?: number;
}

export interface StepLoss {
  /** −min(ρÂ, clip(ρ)Â) + β·k3 */
  loss: number;
  /** ∂loss/∂logpNew: what the policy's backward pass takes for this step. */
  dLogp: number;
  /** True when the clipped term was the active one (its gradient is 0). */
  clipped: boolean;
  /** k3(π_θ ‖ π_ref) for this step (0 without a reference). */
  kl: number;
  /** ρ = exp(logpNew − logpOld), after clamping the log-ratio. */
  ratio: number;
}

export class LossInputError extends Error {
  override name = 'LossInputError';
  constructor(readonly field: string, readonly value: unknown) {
    super(`stepLoss: ${field} must be a finite number, got ${String(value)}`);
  }
}

const DEFAULT_MAX_LOG_RATIO = 20;

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/**
 * k3 KL estimator (Schulman 2020, "Approximating KL divergence"; GRPO, Shao et al. 2024 Eq. 4):
 *
 *   k3 = exp(x) − x − 1,   x = log π_ref − log π_θ   (unbiased for KL(π_θ ‖ π_ref), always ≥ 0)
 *   ∂k3/∂log π_θ = 1 − exp(x)
 *
 * x is clamped to ±maxLogRatio (verl's low_var_kl clamps to ±20); in the clamped region the gradient is 0.
 */
export function klK3(logpNew: number, logpRef: number, maxLogRatio = DEFAULT_MAX_LOG_RATIO): { kl: number; dLogp: number } {
  const raw = logpRef - logpNew;
  const x = clamp(raw, -maxLogRatio, maxLogRatio);
  const ex = Math.exp(x);
  return { kl: ex - x - 1, dLogp: x === raw ? 1 - ex : 0 };
}

/**
 * PPO clipped surrogate for one step (AW-Gen Eq. 1–2, ADMIRE Eq. 12, MobileRL §2.2):
 *
 *   ρ = exp(log π_θ − log π_θold)
 *   J = min(ρ·Â, clip(ρ, 1 − ε, 1 + ε_high)·Â)
 *   ∂J/∂log π_θ = ρ·Â when the unclipped term is active (ties included), else 0
 *
 * The clipped term is active only when Â > 0 and ρ > 1 + ε_high, or Â < 0 and ρ < 1 − ε. The
 * log-ratio is clamped to ±maxLogRatio before exp (as verl does), so ρ never overflows; where the
 * clamp bites, ρ no longer depends on log π_θ and the gradient is 0.
 */
export function clippedSurrogate(
  logpNew: number, logpOld: number, advantage: number, clipEps: number, clipEpsHigh = clipEps, maxLogRatio = DEFAULT_MAX_LOG_RATIO,
): { objective: number; dLogp: number; clipped: boolean; ratio: number } {
  const raw = logpNew - logpOld;
  const logRatio = clamp(raw, -maxLogRatio, maxLogRatio);
  const ratio = Math.exp(logRatio);
  const unclipped = ratio * advantage;
  const clippedTerm = clamp(ratio, 1 - clipEps, 1 + clipEpsHigh) * advantage;
  const clipped = clippedTerm < unclipped;
  const objective = clipped ? clippedTerm : unclipped;
  const dLogp = clipped || logRatio !== raw ? 0 : unclipped;
  return { objective, dLogp, clipped, ratio };
}

function checkFinite(field: string, value: number | undefined): void {
  if (value === undefined || !Number.isFinite(value)) throw new LossInputError(field, value);
}

/**
 * Per-step GRPO loss (to minimise) and its derivative with respect to log π_θ(a_t|s_t):
 *
 *   ℓ = −min(ρÂ, clip(ρ, 1 − ε, 1 + ε_high)Â) + β·k3(π_θ ‖ π_ref)
 *   ∂ℓ/∂log π_θ = −[unclipped] ρÂ + β·(1 − exp(log π_ref − log π_θ))
 *
 * Non-finite inputs throw LossInputError (a NaN must stop training, not spread into the weights).
 */
export function stepLoss(input: StepLossInput, opts: StepLossOptions): StepLoss {
  checkFinite('logpNew', input.logpNew);
  checkFinite('logpOld', input.logpOld);
  checkFinite('advantage', input.advantage);
  const maxLogRatio = opts.maxLogRatio ?? DEFAULT_MAX_LOG_RATIO;
  const pg = clippedSurrogate(input.logpNew, input.logpOld, input.advantage, opts.clipEps, opts.clipEpsHigh ?? opts.clipEps, maxLogRatio);
  let kl = 0;
  let dKl = 0;
  if (opts.klBeta > 0) {
    checkFinite('logpRef', input.logpRef);
    ({ kl, dLogp: dKl } = klK3(input.logpNew, input.logpRef!, maxLogRatio));
  }
  return {
    loss: -pg.objective + opts.klBeta * kl,
    dLogp: -pg.dLogp + opts.klBeta * dKl,
    clipped: pg.clipped,
    kl,
    ratio: pg.ratio,
  };
}

/**
 * How per-step losses of a batch are averaged (a closed union, chosen once in the config):
 *
 * - 'step-mean':    L = (1 / Σ_i T_i) Σ_i Σ_t ℓ_{i,t}        AW-Gen Eq. 1, ADMIRE Eq. 12 (TRL/DAPO 'token-mean';
 *                   a step is our token). Every step weighs the same, so long episodes weigh more.
 * - 'episode-mean': L = (1 / N) Σ_i (1 / T_i) Σ_t ℓ_{i,t}   MobileRL's reconstructed objective (original GRPO's
 *                   per-sequence mean, TRL 'grpo'): every episode weighs the same, steps of short episodes more.
 * - 'constant':     L = (1 / (N · maxSteps)) Σ_i Σ_t ℓ_{i,t}  Dr. GRPO: a fixed normaliser, no length bias.
 *
 * N counts the episodes with at least one step.
 */
export type LossAggregation = 'step-mean' | 'episode-mean' | 'constant';

export interface BatchLossOptions extends StepLossOptions {
  aggregation: LossAggregation;
  /** The step budget; the 'constant' normaliser. */
  maxSteps: number;
}

export interface BatchLossStats {
  steps: number;
  episodes: number;
  /** Share of steps whose clipped term was active. */
  clipFraction: number;
  /** Mean k3 over steps. */
  meanKl: number;
  /** Mean ρ over steps. */
  meanRatio: number;
  /** Mean of −min(ρÂ, clip(ρ)Â) over steps (the policy-gradient part, unweighted). */
  meanPolicyLoss: number;
}

export interface BatchLoss {
  /** The aggregated loss L. */
  loss: number;
  /** dLogp[i][t] = ∂L/∂log π_θ(a_{i,t}|s_{i,t}): per-step derivatives already multiplied by the aggregation weight. */
  dLogp: number[][];
  stats: BatchLossStats;
}

/** The weight w_{i,t} of step t of an episode with T steps, in a batch of N non-empty episodes and S steps. */
function aggregationWeight(aggregation: LossAggregation, stepsInEpisode: number, episodes: number, steps: number, maxSteps: number): number {
  switch (aggregation) {
    case 'step-mean': return 1 / steps;
    case 'episode-mean': return 1 / (episodes * stepsInEpisode);
    case 'constant': return 1 / (episodes * maxSteps);
    default: return assertNever(aggregation, 'loss aggregation');
  }
}

/**
 * The batch loss L = Σ_{i,t} w_{i,t} ℓ_{i,t} with w from the aggregation, and ∂L/∂log π_θ per step.
 * episodes[i][t] is one step's input. Skipped groups (zeroStdGroups 'skip') are left out by the
 * caller before this call, so they count in no normaliser. An empty batch gives L = 0.
 */
export function batchLoss(episodes: readonly (readonly StepLossInput[])[], opts: BatchLossOptions): BatchLoss {
  if (opts.aggregation === 'constant' && !(opts.maxSteps >= 1)) throw new LossInputError('maxSteps', opts.maxSteps);
  const steps = episodes.reduce((n, e) => n + e.length, 0);
  const nonEmpty = episodes.filter((e) => e.length > 0).length;
  let loss = 0;
  let clippedCount = 0;
  let klSum = 0;
  let ratioSum = 0;
  let pgSum = 0;
  const dLogp = episodes.map((episode) => {
    if (episode.length === 0) return [];
    const w = aggregationWeight(opts.aggregation, episode.length, nonEmpty, steps, opts.maxSteps);
    return episode.map((step) => {
      const s = stepLoss(step, opts);
      loss += w * s.loss;
      if (s.clipped) clippedCount++;
      klSum += s.kl;
      ratioSum += s.ratio;
      pgSum += s.loss - opts.klBeta * s.kl;
      return w * s.dLogp;
    });
  });
  const per = (x: number) => (steps ? x / steps : 0);
  return {
    loss,
    dLogp,
    stats: { steps, episodes: nonEmpty, clipFraction: per(clippedCount), meanKl: per(klSum), meanRatio: per(ratioSum), meanPolicyLoss: per(pgSum) },
  };
}
