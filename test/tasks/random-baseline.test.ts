import { afterAll, describe, expect, it } from 'vitest';
import { TASKS } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { runEpisode } from '../../core/episode/runner.js';
import { RandomPolicy } from '../../core/episode/policies/random.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';

/**
 * The random agent is the floor: it should almost never succeed. The rate is printed so the test
 * log reports it (README quotes the figure from `awb suite run --policy random`).
 */
const d = device();
afterAll(() => d.close());

describe('random policy', () => {
  it('rarely succeeds, and never crashes an app', async () => {
    let successes = 0;
    let episodes = 0;
    const winners: string[] = [];
    for (const t of TASKS) {
      for (const seed of [0, 1, 2]) {
        const instance = instantiate(t, seed);
        const r = await runEpisode({ device: d, instance, policy: new RandomPolicy(createRng(`baseline/${t.id}/${seed}`)) });
        episodes++;
        if (r.success) {
          successes++;
          winners.push(`${t.id}#${seed}`);
        }
        expect(d.wm.state.crashes).toEqual([]);
      }
    }
    const rate = successes / episodes;
    console.log(`random policy: ${successes}/${episodes} episodes succeeded (${(rate * 100).toFixed(1)}%)${winners.length ? `: ${winners.join(', ')}` : ''}`);
    expect(episodes).toBe(TASKS.length * 3);
    expect(rate).toBeLessThan(0.05);
  });
});
