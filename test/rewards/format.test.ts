import { describe, expect, it } from 'vitest';
import type { RewardEpisode, RewardStep } from '../../core/rewards/component.js';
import { formatComponent, stepFormat } from '../../core/rewards/format.js';

const fg = { package: 'com.android.contacts', activity: '.Main' };
const ok: RewardStep = { index: 0, foreground: fg, action: { action_type: 'navigate_back' }, description: 'Go back' };
const unparseable: RewardStep = { index: 1, foreground: fg, error: { name: 'ActionParseError', message: 'Malformed action "tap it": not JSON' } };
const impossible: RewardStep = {
  index: 2, foreground: fg, action: { action_type: 'click', index: 99 }, error: { name: 'ElementIndexError', message: 'Element index 99 is out of range' },
};
const episode: RewardEpisode = { templateId: 'T', seed: 0, instruction: 'x', params: {}, steps: [ok, unparseable, impossible], success: false };

describe('format component', () => {
  it('classifies steps by their recorded error', () => {
    expect([ok, unparseable, impossible].map(stepFormat)).toEqual(['ok', 'unparseable', 'impossible']);
  });

  it('penalises unparseable and impossible steps by −1 by default, explaining each', async () => {
    const v = await formatComponent().compute(episode);
    expect(v.map((x) => x.value)).toEqual([0, -1, -1]);
    expect(v[0]!.explanation).toBe('valid action');
    expect(v[1]!.explanation).toBe('unparseable output (ActionParseError: Malformed action "tap it": not JSON)');
    expect(v[2]!.explanation).toBe('impossible action (ElementIndexError: Element index 99 is out of range)');
  });

  it('with impossible: false penalises only unparseable output, and uses the given penalty', async () => {
    const v = await formatComponent({ penalty: 0.25, impossible: false }).compute(episode);
    expect(v.map((x) => x.value)).toEqual([0, -0.25, 0]);
    expect(v[2]!.explanation).toMatch(/not penalised \(impossible: false\)/);
  });

  it('refuses a negative penalty and unknown options', () => {
    expect(() => formatComponent({ penalty: -1 })).toThrow();
    expect(() => formatComponent({ penality: 1 } as never)).toThrow();
  });
});
