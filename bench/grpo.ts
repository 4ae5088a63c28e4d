/**
 * GRPO maths benchmarks: advantages and the batch loss (with per-step dLogp) for one iteration of
 * the issue-6 shape (4 instances × 8 rollouts × 20 steps) and a 32-instance batch, plus AdaGRPO's
 * replay push/sample and FCF update. Pure functions: this bounds their share of an iteration.
 *   npm run bench -- grpo
 */
import { batchLoss, broadcastToSteps, groupAdvantages, type StepLossInput } from '../core/rl/grpo.js';
import { shortestPathRewards } from '../core/rewards/shortest-path.js';
import { emptyFcf, emptyReplayBuffer, pushReplay, sampleReplay, updateFcf, type ReplayCandidate } from '../core/rl/adagrpo.js';
import { createRng } from '../core/util/rng.js';
import { fmt, stats, time } from './stats.js';

function iteration(instances: number, rollouts: number, steps: number, seed: number) {
  const rng = createRng(seed);
  const rewards = Array.from({ length: instances }, () => Array.from({ length: rollouts }, () => (rng.chance(0.4) ? 1 : 0)));
  const lengths = rewards.map((g) => g.map(() => rng.int(1, steps)));
  const logp = lengths.map((g) => g.map((t) => Array.from({ length: t }, () => -1 - rng.next())));
  return { rewards, lengths, logp };
}

export async function benchGrpo(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  for (const [instances, rollouts, steps] of [[4, 8, 20], [32, 8, 20]] as const) {
    const it = iteration(instances, rollouts, steps, 1);
    const samples: number[] = [];
    let stepCount = 0;
    for (let k = 0; k < 200; k++) {
      samples.push(time(() => {
        const spa = it.rewards.map((g, i) => shortestPathRewards(g, it.lengths[i]!, { alpha: 1, successReward: 1 }));
        const adv = groupAdvantages(spa, { scale: 'group', std: 'sample', eps: 1e-4, zeroStdGroups: 'skip' });
        const episodes: StepLossInput[][] = [];
        adv.advantages.forEach((a, g) => {
          if (adv.groups[g]!.skipped) return;
          broadcastToSteps(a, it.lengths[g]!).forEach((row, i) => {
            episodes.push(row.map((advantage, t) => {
              const lp = it.logp[g]![i]![t]!;
              return { logpNew: lp + 0.01, logpOld: lp, logpRef: lp - 0.02, advantage };
            }));
          });
        });
        stepCount = batchLoss(episodes, { clipEps: 0.2, klBeta: 0.05, aggregation: 'step-mean', maxSteps: steps }).stats.steps;
      }));
    }
    const s = stats(samples);
    const name = `advantages+loss ${instances}x${rollouts}x≤${steps}`;
    console.log(`${name} (${stepCount} steps in the loss): ${fmt(s)}`);
    results[name] = { ...s, steps: stepCount };
  }

  const rng = createRng(2);
  let buffer = emptyReplayBuffer<number>();
  let fcf = emptyFcf();
  const replay: number[] = [];
  for (let k = 0; k < 200; k++) {
    const candidates: ReplayCandidate<number>[] = Array.from({ length: 256 }, (_, i) => ({
      id: `${k}-${i}`, taskKey: `t${i % 32}`, episode: i, reward: rng.chance(0.4) ? 1 : 0, advantage: rng.next() * 2 - 0.5, groupSuccessRate: rng.next(),
    }));
    replay.push(time(() => {
      buffer = pushReplay(buffer, candidates, { capacity: 256, topFraction: 0.25, replayRatio: 1, maxAge: 4, balance: 0.5, weighting: 'difficulty' });
      sampleReplay(buffer, 256, rng, { capacity: 256, topFraction: 0.25, replayRatio: 1, maxAge: 4, balance: 0.5, weighting: 'difficulty' });
      fcf = updateFcf(fcf, Array.from({ length: 32 }, (_, i) => ({ taskKey: `t${i}`, rewards: candidates.slice(i * 8, i * 8 + 8).map((c) => c.reward) })), { failStreak: 2, cooldown: 3, removeAfter: 6 });
    }));
  }
  const r = stats(replay);
  console.log(`AdaPR push+sample (256 fresh, buffer ${buffer.entries.length}) + FCF update (32 tasks): ${fmt(r)}`);
  results['adapr+fcf 256 episodes'] = r;
  return results;
}
