/**
 * EXPERIMENTS.md "VLM SFT": the tiny Qwen2.5-VL LoRA-fine-tuned on SimDroid oracle demonstrations (qwen-mobile-use),
 * measured on held-out instances' steps before and after (test/trainer/vlm-sft-experiment.ts). The CI test
 * (test/trainer/vlm-sft-tiny.test.ts) is a smaller run of the same code.
 *
 *   npm run bench -- vlm-sft        # writes bench/results/vlm-sft.json
 *
 * The defaults are EXPERIMENTS.md §5's chosen configuration (≥ 90% valid in each of 3 seeds). Knobs by environment:
 * AWB_VLM_SFT_EVERY (every k-th unseen-instance template, default 8), AWB_VLM_SFT_TRAIN_SEEDS (default 4),
 * AWB_VLM_SFT_HELD_OUT_SEEDS (default 2), AWB_VLM_SFT_EPOCHS (default 8), AWB_VLM_SFT_LR (default 1e-3),
 * AWB_VLM_SFT_RANK (LoRA r, α = 2r; default 64), AWB_VLM_SFT_SCHEDULE (the trainer's lrSchedule, default linear),
 * AWB_VLM_SFT_WARMUP (warmupRatio, default 0.1), AWB_VLM_SFT_SEED (LoRA init and data order, default 0),
 * AWB_VLM_SFT_MAX_NEW_TOKENS (default 56: the longest target is 53 tokens), AWB_VLM_SFT_EPISODES=0 to skip the
 * held-out episodes against the trained model served by `transformers serve`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePython, tinyVlm } from '../test/python-env.js';
import { runVlmSftExperiment, unseenInstanceData, type HeldOutStep, type Rates } from '../test/trainer/vlm-sft-experiment.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export async function benchVlmSft(): Promise<Record<string, unknown>> {
  requirePython();
  const every = env('AWB_VLM_SFT_EVERY', 8);
  const trainSeeds = env('AWB_VLM_SFT_TRAIN_SEEDS', 4);
  const heldOutSeeds = env('AWB_VLM_SFT_HELD_OUT_SEEDS', 2);
  const config = {
    lora: { r: env('AWB_VLM_SFT_RANK', 64), alpha: 2 * env('AWB_VLM_SFT_RANK', 64), dropout: 0, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] },
    epochs: env('AWB_VLM_SFT_EPOCHS', 8), batchSize: 2, learningRate: env('AWB_VLM_SFT_LR', 0.001), seed: env('AWB_VLM_SFT_SEED', 0),
    lrSchedule: process.env.AWB_VLM_SFT_SCHEDULE ?? 'linear', warmupRatio: env('AWB_VLM_SFT_WARMUP', 0.1),
  };
  const workdir = mkdtempSync(join(tmpdir(), 'awb-bench-vlm-sft-'));
  try {
    const { train, heldOut } = unseenInstanceData(every, trainSeeds, heldOutSeeds);
    const r = await runVlmSftExperiment({ workdir, model: tinyVlm(), train, heldOut, config, maxNewTokens: env('AWB_VLM_SFT_MAX_NEW_TOKENS', 56), episodes: process.env.AWB_VLM_SFT_EPISODES !== '0', log: (l) => console.log(`  ${l}`) });
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const row = (name: string, x: Rates) => console.log(`${name.padEnd(8)} valid ${pct(x.valid).padStart(6)}  same type ${pct(x.sameType).padStart(6)}  same step ${pct(x.match).padStart(6)}  (${x.steps} steps)`);
    row('before', r.before);
    row('after', r.after);
    if (r.episodes) console.log(`episodes: ${r.episodes.success}/${r.episodes.episodes} succeeded; ${r.episodes.validSteps}/${r.episodes.steps} steps parsed to a valid action`);
    console.log(`seconds: ${JSON.stringify(r.seconds)}; loss ${JSON.stringify(r.job.loss)}`);
    return {
      setup: { every, trainSeeds, heldOutSeeds, config, data: r.data }, before: r.before, after: r.after,
      byType: byType(r.steps), episodes: r.episodes, loss: r.job.loss, seconds: r.seconds,
      examples: r.steps.slice(0, 12).map((s) => ({ template: s.template, step: s.step, target: s.target, before: s.before.reply, after: s.after.reply, afterError: s.after.error })),
    };
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

/** Valid and same-step rates after training, by the oracle's action type. */
function byType(steps: readonly HeldOutStep[]): Record<string, { steps: number; valid: number; match: number }> {
  const out: Record<string, { steps: number; valid: number; match: number }> = {};
  for (const s of steps) {
    const t = (out[s.target.action_type] ??= { steps: 0, valid: 0, match: 0 });
    t.steps++;
    if (s.after.action) t.valid++;
    if (s.after.match) t.match++;
  }
  return out;
}
