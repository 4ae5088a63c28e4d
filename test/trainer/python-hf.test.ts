import { beforeAll, describe, expect, it } from 'vitest';
import { tinyVlm } from '../python-env.js';
import { runUnittest, SEPARATE_MODULES } from './unittest.js';

/**
 * The trainer's Hugging Face + peft path on the tiny random Qwen2.5-VL (resources/trainer/tests/test_vlm_hf.py):
 * the review's seven fixes, peft load-back and merge, bit-exact resume, bad model folders, and 2 gloo ranks through the
 * service. None of it may be skipped: the model is built here when the cache lacks it.
 */
describe('Python trainer: the Hugging Face VLM path (tiny Qwen2.5-VL)', () => {
  let result: { status: number | null; out: string };
  beforeAll(() => {
    result = runUnittest(SEPARATE_MODULES.hf, { AWB_TINY_VLM: tinyVlm() });
  }, 420_000);

  it('test_vlm_hf passes with no test skipped', () => {
    if (result.status !== 0) console.log(result.out);
    expect(result.status).toBe(0);
    expect(result.out).toMatch(/\nOK\n/);
    expect(result.out).not.toMatch(/skipped/);
    expect(result.out).toMatch(/test_two_gloo_ranks_through_the_service_train_what_one_process_trains \(.*\) \.\.\. ok/);
  });
});
