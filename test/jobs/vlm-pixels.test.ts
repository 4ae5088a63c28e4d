import { describe, expect, it } from 'vitest';
import { QWEN_MAX_PIXELS, QWEN_MIN_PIXELS } from '../../core/policy/vlm/geometry.js';
import { OnlineGrpoConfigError } from '../../core/remote-jobs/online-errors.js';
import { trainerPixels, vlmConfigOverrides } from '../../core/remote-jobs/online-vlm.js';
import { JobConfigError, parseJobConfig } from '../../core/remote-jobs/protocol.js';

/**
 * The image-size bounds that travel with every vlm job: the endpoint's minPixels/maxPixels (else Qwen2.5-VL's
 * processor defaults, which the workbench's coordinate maths assumes), owned by the online loop, checked before a
 * job is sent. The trainer's side (pinning the processor, the mismatch error) is tested in resources/trainer.
 */
describe('vlm job pixel bounds', () => {
  it('the online loop sends the endpoint bounds, or the Qwen2.5-VL defaults when the endpoint sets none', () => {
    expect(trainerPixels({})).toEqual({ minPixels: QWEN_MIN_PIXELS, maxPixels: QWEN_MAX_PIXELS });
    expect(trainerPixels({ minPixels: 3136, maxPixels: 1_003_520 })).toEqual({ minPixels: 3136, maxPixels: 1_003_520 });
  });

  it('the user cannot override them in the trainer config: they come from the endpoint', () => {
    for (const k of ['minPixels', 'maxPixels']) {
      const e = (() => { try { vlmConfigOverrides({ [k]: 100 }); } catch (err) { return err; } return null; })();
      expect(e).toBeInstanceOf(OnlineGrpoConfigError);
      expect(String(e)).toContain(`config.${k}`);
    }
  });

  it('a vlm job config with bounds that are not positive integers, or min above max, is refused before sending', () => {
    expect(parseJobConfig('vlm-sft', { model: 'm', minPixels: 3136, maxPixels: 6272 })).toEqual({ model: 'm', minPixels: 3136, maxPixels: 6272 });
    expect(parseJobConfig('vlm-grpo', { model: 'm', minPixels: null })).toEqual({ model: 'm', minPixels: null });
    for (const bad of [{ minPixels: 0 }, { maxPixels: 1.5 }, { minPixels: 7000, maxPixels: 6272 }]) {
      expect(() => parseJobConfig('vlm-grpo', { model: 'm', ...bad })).toThrow(JobConfigError);
    }
    expect(() => parseJobConfig('vlm-sft', { model: 'm', minPixels: 7000, maxPixels: 6272 })).toThrow(/minPixels/);
  });
});
