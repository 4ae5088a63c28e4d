import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAction } from '../../core/actions/schema.js';
import { scratch } from '../helpers/scratch.js';
import { requirePython, tinyVlm } from '../python-env.js';
import { runVlmSftExperiment, unseenInstanceData, type VlmSftExperiment } from './vlm-sft-experiment.js';

/**
 * The tiny random Qwen2.5-VL (make_tiny_vlm.py) LoRA-fine-tuned by the real trainer (vlm-sft, transformers + peft)
 * on SimDroid oracle demonstrations in the qwen-mobile-use format, then asked for the next action on held-out
 * instances' steps (unseen seeds) before and after: its replies parsed by the workbench's parser. A CI-sized version
 * of EXPERIMENTS.md's "VLM SFT" (bench/vlm-sft.ts runs the full one): one epoch over 100 steps learns the format's
 * frame (thought, <tool_call>, tool and action names) but not yet its arguments, so this asserts how far into the
 * target the replies get, not the valid-action rate (EXPERIMENTS.md §5 has the longer runs' rates).
 */
const tmp = scratch('awb-vlm-sft-');
let r: VlmSftExperiment;

describe('vlm-sft of the tiny Qwen2.5-VL on SimDroid oracle demonstrations', () => {
  beforeAll(async () => {
    requirePython();
    const { train, heldOut } = unseenInstanceData(16, 2, 1);
    r = await runVlmSftExperiment({
      workdir: tmp.dir(), model: tinyVlm(), train, heldOut: heldOut.slice(0, 3),
      // One epoch at a constant rate: vlm-sft's default linear decay would halve the only epoch's mean step size.
      config: { lora: { r: 16, alpha: 32, dropout: 0, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] }, epochs: 1, batchSize: 2, learningRate: 0.005, lrSchedule: 'constant', seed: 0 },
      // The longest held-out target here is 43 tokens (53 over all 8 templates) (data.longestTarget); a reply that has not stopped by then is wrong anyway.
      maxNewTokens: 48,
    });
    console.log(`vlm-sft tiny: ${JSON.stringify({ data: { ...r.data, dropped: r.data.dropped.length }, job: r.job, before: r.before, after: r.after, seconds: r.seconds })}`);
  }, 240_000);
  afterAll(() => tmp.cleanup());

  it('trains on the successful demonstrations and holds out other seeds of the same templates', () => {
    expect(r.data.trainEpisodes).toBeGreaterThan(8);
    expect(r.data.heldOutSteps).toBe(r.steps.length);
    expect(r.data.longestTarget).toBeLessThan(48);
    // Every held-out target is one valid action (the oracle's, written in the format and parsed back).
    for (const s of r.steps) expect(parseAction(s.target)).toEqual(s.target);
  });

  it('the answer loss falls', () => {
    expect(r.job.loss!.last).toBeLessThan(r.job.loss!.first / 3);
  });

  it('before: the random model writes no action of the format', () => {
    expect(r.before.valid, sample(r, 'before')).toBe(0);
    expect(r.before.prefix).toBeLessThan(0.05);
  });

  it('after: the replies follow the target well into the format', () => {
    expect(r.after.prefix, sample(r, 'after')).toBeGreaterThan(0.3);
    expect(r.after.valid).toBeGreaterThanOrEqual(r.before.valid);
  });
});

/** A few replies that did not parse, for the failure message. */
function sample(x: VlmSftExperiment, when: 'before' | 'after'): string {
  return x.steps.filter((s) => !s[when].action).slice(0, 3).map((s) => `${JSON.stringify(s[when].reply.slice(0, 160))} (${s[when].error})`).join('\n');
}
