import { AdaGrpoInputError } from '../rewards/shortest-path.js';
import { assertNever } from '../util/errors.js';
import type { Rng } from '../util/rng.js';
import { weightedSample } from './curriculum.js';

/**
 * AdaGRPO's three additions to GRPO (MobileRL, digest 003 §2.3–§2.6), each behind its own switch in
 * the config so the paper's ablation (w/o SPA, w/o AdaPR, w/o FCF) can be run. The paper text lost
 * every equation in extraction; where it is silent the authors' public code (xuyifan-0731/MobileRL-iclr,
 * cited in the digest as [REPO]) is followed, and where the two disagree the choice is noted.
 * All state is plain JSON-serialisable data, updated by pure functions, so a run can checkpoint and resume it.
 * The first addition, SPA (shortest-path reward adjustment), is a reward shaping and lives in
 * core/rewards/shortest-path.ts, where the 'shortest-path' reward component uses it too.
 */

export { AdaGrpoInputError };

// ---------------------------------------------------------------------------------------------
// (b) AdaPR: difficulty-adaptive positive replay

export type ReplayWeighting = 'difficulty' | 'top-advantage';

export interface PositiveReplayOptions {
  /** Most episodes kept (Table 2 "Replay Buffer Size = 256"). */
  capacity: number;
  /** Share of the batch's episodes inserted per iteration, best advantage first (Table 2 0.25; code top_ratio). */
  topFraction: number;
  /** Replayed episodes per fresh episode (Table 2 1.0; code replay_ratio). */
  replayRatio: number;
  /** Entries inserted this many iterations ago are dropped (code max_age_steps = 4; not in the paper). */
  maxAge: number;
  /** Eviction score weight of advantage vs recency (code balance_alpha = 0.5). */
  balance: number;
  /**
   * 'difficulty': draw replayed episodes with probability ∝ 1 − success rate of their group (harder
   * tasks replayed more: the brief's reading of "difficulty-adaptive"); 'top-advantage': the code's
   * deterministic top-k by stored advantage. Both favour hard tasks: in a binary group with success
   * rate p, a success's advantage is √((1 − p)/p) (population std), larger the rarer the success.
   */
  weighting: ReplayWeighting;
}

/** One finished episode offered to the buffer. */
export interface ReplayCandidate<T> {
  /** Unique episode id (re-inserting the same id refreshes it). */
  id: string;
  /** The task instance the episode solved. */
  taskKey: string;
  episode: T;
  /** Outcome reward (before SPA); only positive episodes are replayed. */
  reward: number;
  /** Its trajectory advantage this iteration. */
  advantage: number;
  /** Success rate of its group this iteration. */
  groupSuccessRate: number;
}

export interface ReplayEntry<T> {
  id: string;
  taskKey: string;
  episode: T;
  advantage: number;
  /** 1 − group success rate at insertion. */
  difficulty: number;
  /** The iteration (1-based push count) that inserted it. */
  insertedAt: number;
}

export interface ReplayBuffer<T> {
  entries: ReplayEntry<T>[];
  /** Pushes so far. */
  iteration: number;
}

export function emptyReplayBuffer<T>(): ReplayBuffer<T> {
  return { entries: [], iteration: 0 };
}

function minMax(values: readonly number[]): (x: number) => number {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return (x) => (hi > lo ? (x - lo) / (hi - lo) : 0);
}

/**
 * One AdaPR insertion (digest 003 §2.5, code replay_buffer.push), after advantages are known:
 * 1. drop entries with (iteration − insertedAt) ≥ maxAge;
 * 2. insert the top ⌈topFraction · |batch|⌉ candidates by advantage among those with reward > 0 and
 *    advantage > 0 ("positive" replay: the code inserts the top quarter whatever its sign);
 * 3. while over capacity evict the lowest balance·norm(advantage) + (1 − balance)·norm(insertedAt)
 *    (min–max over the buffer), the oldest first on ties.
 * `candidates` is every episode of the batch (|batch| = candidates.length).
 */
export function pushReplay<T>(buffer: ReplayBuffer<T>, candidates: readonly ReplayCandidate<T>[], opts: PositiveReplayOptions): ReplayBuffer<T> {
  const iteration = buffer.iteration + 1;
  const kept = buffer.entries.filter((e) => iteration - e.insertedAt < opts.maxAge);
  const quota = Math.ceil(opts.topFraction * candidates.length);
  const chosen = candidates
    .filter((c) => c.reward > 0 && c.advantage > 0 && Number.isFinite(c.advantage))
    .sort((a, b) => b.advantage - a.advantage)
    .slice(0, quota);
  const chosenIds = new Set(chosen.map((c) => c.id));
  const entries = kept.filter((e) => !chosenIds.has(e.id));
  for (const c of chosen) {
    entries.push({ id: c.id, taskKey: c.taskKey, episode: c.episode, advantage: c.advantage, difficulty: 1 - c.groupSuccessRate, insertedAt: iteration });
  }
  while (entries.length > opts.capacity) {
    const nAdv = minMax(entries.map((e) => e.advantage));
    const nAge = minMax(entries.map((e) => e.insertedAt));
    let worst = 0;
    let worstScore = Number.POSITIVE_INFINITY;
    entries.forEach((e, i) => {
      const score = opts.balance * nAdv(e.advantage) + (1 - opts.balance) * nAge(e.insertedAt);
      if (score < worstScore || (score === worstScore && e.insertedAt < entries[worst]!.insertedAt)) {
        worst = i;
        worstScore = score;
      }
    });
    entries.splice(worst, 1);
  }
  return { entries, iteration };
}

/**
 * The replayed part of the mixture (digest 003 Eq. 3, missing; code sample_for_training):
 * k = min(⌈replayRatio · freshEpisodes⌉, |buffer|) distinct entries, by the configured weighting,
 * in a seeded random order. The code counts step rows, this counts episodes. Replayed episodes keep
 * their recorded log π_old (as in the code): the PPO clip bounds how far off-policy they act.
 */
export function sampleReplay<T>(buffer: ReplayBuffer<T>, freshEpisodes: number, rng: Rng, opts: PositiveReplayOptions): ReplayEntry<T>[] {
  const k = Math.min(Math.ceil(opts.replayRatio * freshEpisodes), buffer.entries.length);
  switch (opts.weighting) {
    case 'top-advantage':
      return rng.shuffle([...buffer.entries].sort((a, b) => b.advantage - a.advantage).slice(0, k));
    case 'difficulty':
      return weightedSample(buffer.entries, buffer.entries.map((e) => Math.max(e.difficulty, 0)), k, rng);
    default:
      return assertNever(opts.weighting, 'replay weighting');
  }
}

/**
 * Negative pruning (digest 003 §2.5 step 3): at most `maxNegativePerPositive` failed episodes per
 * successful one in each group (paper 1:2, counted in episodes as the paper says; the code counts step
 * rows); the lowest-reward negatives are dropped first, ties broken at random. Groups with no positive
 * are left alone (zeroStdGroups decides about them). Returns keep[g][i].
 */
export function pruneNegatives(rewards: readonly (readonly number[])[], rng: Rng, maxNegativePerPositive = 2): boolean[][] {
  return rewards.map((group) => {
    const keep = group.map(() => true);
    const positives = group.filter((r) => r > 0).length;
    const negatives = rng.shuffle(group.flatMap((r, i) => (Number.isFinite(r) && r <= 0 ? [i] : []))).sort((a, b) => group[a]! - group[b]!);
    const excess = negatives.length - maxNegativePerPositive * positives;
    if (positives === 0 || excess <= 0) return keep;
    for (const i of negatives.slice(0, excess)) keep[i] = false;
    return keep;
  });
}

// ---------------------------------------------------------------------------------------------
// (c) FCF: failure curriculum filtering

export interface FailureCurriculumOptions {
  /** Consecutive all-zero iterations that start a cooldown (paper: two). */
  failStreak: number;
  /** Iterations a cooldown lasts (paper: three). */
  cooldown: number;
  /** Consecutive all-zero iterations after which a task is removed for good (paper: "consistently high", unstated); null = never. */
  removeAfter: number | null;
}

export interface FcfTask {
  /** f: consecutive iterations in which every rollout of the task scored 0. */
  failures: number;
  /** The task is down-weighted while state.iteration < cooldownUntil. */
  cooldownUntil: number;
  removed: boolean;
}

export interface FcfState {
  /** Updates so far (the next iteration to sample). */
  iteration: number;
  tasks: Record<string, FcfTask>;
}

export function emptyFcf(): FcfState {
  return { iteration: 0, tasks: {} };
}

/**
 * FCF update after an iteration (digest 003 §2.6). "Epoch" is read as an iteration in which the task
 * was rolled out; tasks not rolled out keep their state. Per task with at least one finite reward:
 *
 *   all rewards ≤ 0:  f ← f + 1;  f ≥ failStreak ⇒ cooldownUntil ← iteration + 1 + cooldown;
 *                     f ≥ removeAfter ⇒ removed
 *   otherwise:        f ← 0, cooldown ends
 *
 * A task whose cooldown ended is sampled at full weight again (re-tried); failing once more restarts
 * a cooldown at a lower weight, until removeAfter. Pass outcome rewards (before SPA).
 */
export function updateFcf(state: FcfState, results: readonly { taskKey: string; rewards: readonly number[] }[], opts: FailureCurriculumOptions): FcfState {
  const tasks = { ...state.tasks };
  const next = state.iteration + 1;
  for (const { taskKey, rewards } of results) {
    const scored = rewards.filter((r) => Number.isFinite(r));
    if (!scored.length) continue;
    const prev = tasks[taskKey] ?? { failures: 0, cooldownUntil: 0, removed: false };
    if (scored.every((r) => r <= 0)) {
      const failures = prev.failures + 1;
      tasks[taskKey] = {
        failures,
        cooldownUntil: failures >= opts.failStreak ? next + opts.cooldown : prev.cooldownUntil,
        removed: prev.removed || (opts.removeAfter !== null && failures >= opts.removeAfter),
      };
    } else {
      tasks[taskKey] = { failures: 0, cooldownUntil: 0, removed: prev.removed };
    }
  }
  return { iteration: next, tasks };
}

/**
 * Sampling weight of a task now (the paper's decay formula is missing; the code's exp(−f) is used):
 *
 *   w = 0 if removed;  exp(−f) while in cooldown;  1 otherwise
 */
export function fcfWeight(state: FcfState, taskKey: string): number {
  const t = state.tasks[taskKey];
  if (!t) return 1;
  if (t.removed) return 0;
  return state.iteration < t.cooldownUntil ? Math.exp(-t.failures) : 1;
}

/**
 * FCF state rebuilt from earlier training ("failure histories from previous training are retained"):
 * histories[task] lists that task's rollout rewards per iteration it was sampled in, oldest first.
 * Each task's history is replayed against its own counter, so the cooldown clock ends at the
 * longest history's length.
 */
export function fcfFromHistory(histories: Readonly<Record<string, readonly (readonly number[])[]>>, opts: FailureCurriculumOptions): FcfState {
  const longest = Math.max(0, ...Object.values(histories).map((h) => h.length));
  let state = emptyFcf();
  for (let k = 0; k < longest; k++) {
    const results = Object.entries(histories).flatMap(([taskKey, h]) => {
      const offset = longest - h.length;
      return k >= offset ? [{ taskKey, rewards: h[k - offset]! }] : [];
    });
    state = updateFcf(state, results, opts);
  }
  return state;
}
