import { describe, expect, it } from 'vitest';
import type { RewardEpisode, RewardStep } from '../../core/rewards/component.js';
import { checkRewardValues } from '../../core/rewards/component.js';
import { outcomeComponent } from '../../core/rewards/outcome.js';

const fg = { package: 'com.android.contacts', activity: '.Main' };
function episode(steps: number, success: boolean | null, verdictNote?: string): RewardEpisode {
  const s: RewardStep[] = Array.from({ length: steps }, (_, index) => ({ index, foreground: fg, description: `step ${index}` }));
  return { templateId: 'ContactsAddContact', seed: 1, instruction: 'x', params: {}, steps: s, success, ...(verdictNote ? { verdictNote } : {}) };
}

describe('outcome component', () => {
  it('gives 1 on the last step of a success and 0 before it', async () => {
    const ep = episode(3, true);
    const v = await outcomeComponent().compute(ep);
    checkRewardValues('outcome', ep, v);
    expect(v.map((x) => x.value)).toEqual([0, 0, 1]);
    expect(v[2]!.explanation).toBe('checker: success');
    expect(v[0]!.explanation).toMatch(/last step/);
  });

  it('gives 0 everywhere on a failure, saying so on the last step', async () => {
    const v = await outcomeComponent().compute(episode(2, false));
    expect(v).toEqual([
      { step: 0, value: 0, explanation: 'outcome is given on the last step' },
      { step: 1, value: 0, explanation: 'checker: failure' },
    ]);
  });

  it('leaves every step of an episode without a verdict unscored, with the reason', async () => {
    const v = await outcomeComponent().compute(episode(2, null, 'episode error, ended by environment_error (EnvironmentError: observe: gone)'));
    expect(v.map((x) => x.value)).toEqual([null, null]);
    expect(v[1]!.explanation).toBe('no checker verdict: episode error, ended by environment_error (EnvironmentError: observe: gone)');
  });

  it('takes other success and failure values from its options', async () => {
    expect((await outcomeComponent({ success: 10, failure: -1 }).compute(episode(1, true)))[0]!.value).toBe(10);
    expect((await outcomeComponent({ success: 10, failure: -1 }).compute(episode(1, false)))[0]!.value).toBe(-1);
  });

  it('gives nothing for an episode without steps', async () => {
    expect(await outcomeComponent().compute(episode(0, true))).toEqual([]);
  });
});
