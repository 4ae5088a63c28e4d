import { beforeAll, describe, expect, it } from 'vitest';
import { runUnittest, SEPARATE_MODULES } from './unittest.js';

/** `awb_trainer ray-submit` against a real Ray head it starts on loopback (resources/trainer/tests/test_ray_submit.py). */
describe('Python trainer: ray-submit on a real Ray head', () => {
  let result: { status: number | null; out: string };
  beforeAll(() => {
    result = runUnittest(SEPARATE_MODULES.ray);
  }, 420_000);

  it('test_ray_submit passes', () => {
    if (result.status !== 0) console.log(result.out);
    expect(result.status).toBe(0);
    expect(result.out).toMatch(/\nOK/);
  });
});
