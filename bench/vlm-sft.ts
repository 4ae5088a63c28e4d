/**
 * EXPERIMENTS.md "VLM SFT": the tiny Qwen2.5-VL LoRA-fine-tuned on SimDroid oracle demonstrations (qwen-mobile-use),
 * measured on held-out instances' steps before and after (test/trainer/vlm-sft-experiment.ts). The CI test
 * (test/trainer/vlm-sft-tiny.test.ts) is a smaller run of the same code.
 *
 *   npm run bench -- vlm-sft        # writes bench/results/vlm-sft.json
 *
 * The defaults are EXPERIMENTS.md §5's run B (91.6% valid). Knobs by environment: AWB_VLM_SFT_EVERY (every k-th
 * unseen-instance template, default 8), AWB_VLM_SFT_TRAIN_SEEDS (default 2), AWB_VLM_SFT_HELD_OUT_SEEDS (default 1),
 * AWB_VLM_SFT_EPOCHS (default 8), AWB_VLM_SFT_LR (default 3e-3), AWB_VLM_SFT_RANK (LoRA r, α = 2r; default 16),
 * AWB_VLM_SFT_MAX_NEW_TOKENS (default 56: the longest target is 53 tokens).
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
  const trainSeeds = env('AWB_VLM_SFT_TRAIN_SEEDS', 2);
  const heldOutSeeds = env('AWB_VLM_SFT_HELD_OUT_SEEDS', 1);
  const config = {
    lora: { r: env('AWB_VLM_SFT_RANK', 16), alpha: 2 * env('AWB_VLM_SFT_RANK', 16), dropout: 0, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] },
    epochs: env('AWB_VLM_SFT_EPOCHS', 8), batchSize: 2, learningRate: env('AWB_VLM_SFT_LR', 0.003), seed: 0,
  };
  const workdir = mkdtempSync(join(tmpdir(), 'awb-bench-vlm-sft-'));
  try {
    const { train, heldOut } = unseenInstanceData(every, trainSeeds, heldOutSeeds);
    const r = await runVlmSftExperiment({ workdir, model: tinyVlm(), train, heldOut, config, maxNewTokens: env('AWB_VLM_SFT_MAX_NEW_TOKENS', 56), log: (l) => console.log(`  ${l}`) });
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const row = (name: string, x: Rates) => console.log(`${name.padEnd(8)} valid ${pct(x.valid).padStart(6)}  same type ${pct(x.sameType).padStart(6)}  same step ${pct(x.match).padStart(6)}  (${x.steps} steps)`);
    row('before', r.before);
    row('after', r.after);
    console.log(`seconds: ${JSON.stringify(r.seconds)}; loss ${JSON.stringify(r.job.loss)}`);
    return {
      setup: { every, trainSeeds, heldOutSeeds, config, data: r.data }, before: r.before, after: r.after,
      byType: byType(r.steps), loss: r.job.loss, seconds: r.seconds,
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
