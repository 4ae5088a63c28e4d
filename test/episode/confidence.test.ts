import { afterAll, describe, expect, it } from 'vitest';
import { EpisodeController } from '../../core/episode/controller.js';
import { candidateProbabilities, chosenProbability, storedCandidates } from '../../core/episode/confidence.js';
import { BuiltinPolicy, createModel } from '../../core/policy/builtin.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../../core/rl/sft.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());
const wifi = () => instantiate(getTemplate('SystemWifiTurnOn'), 0);
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

/**
 * The builtin policy after behaviour cloning on the oracle's episode is all but certain of the oracle's next action; untrained, it
 * hesitates between every candidate. What the Agent view shows (the proposal's candidates), what a step records (the
 * replay) and what the Confidence breakpoint tests must all be the policy's own probability, exp(log π), not a
 * softmax of it.
 */
async function trained(): Promise<BuiltinPolicy> {
  const model = createModel(createRng('confidence/init'));
  trainSft(model, (await collectDemonstrations(d, [wifi()], model)).demos, parseSftConfig({ epochs: 100, batchSize: 8 }));
  return new BuiltinPolicy(model, { mode: 'greedy' });
}

describe('candidate confidence', () => {
  it('shows and records the policy’s own probability; a Confidence breakpoint below 0.5 does not stop a sure policy', async () => {
    const c = new EpisodeController({ device: d, instance: wifi(), policy: await trained(), maxSteps: 1 }, {
      startPaused: false, breakpoints: [{ id: 'unsure', enabled: true, spec: { kind: 'low_confidence', below: 0.5 } }],
    });
    const proposals: Array<{ probability: number; action: unknown }[]> = [];
    c.on('onProposal', (p) => proposals.push(p.candidates ?? []));
    const breaks: number[] = [];
    c.on('onBreak', (e) => (breaks.push(e.proposal.index), queueMicrotask(() => c.run())));
    const r = await c.start();
    expect(breaks).toEqual([]);
    const shown = proposals[0]!;
    const recorded = r.steps[0]!.candidates!;
    const chosen = shown.find((x) => JSON.stringify(x.action) === JSON.stringify(r.steps[0]!.raw))!;
    // Sure: well above the bound (a softmax of the probabilities would show it near e^p/(e^p + n − 1), a few %).
    expect(chosen.probability).toBeGreaterThan(0.7);
    expect(shown.length).toBeGreaterThan(10);
    expect(shown.map((x) => x.probability)).toEqual(recorded.map((x) => x.probability));
    // The recorded probability is exp(score): the builtin's score is log π at its temperature.
    for (const x of recorded) expect(x.probability).toBeCloseTo(Math.exp(x.score), 12);
    expect(r.steps[0]!.thought).toContain(`p=${chosen.probability.toFixed(2)}`);
  });

  it('breaks on a hesitant policy, whose chosen probability is below the bound', async () => {
    const c = new EpisodeController({ device: d, instance: wifi(), policy: new BuiltinPolicy(createModel(createRng('confidence/untrained')), { mode: 'greedy' }), maxSteps: 2 }, {
      startPaused: false, breakpoints: [{ id: 'unsure', enabled: true, spec: { kind: 'low_confidence', below: 0.5 } }],
    });
    const done = c.start();
    await until(() => c.state === 'paused');
    const p = c.current!;
    const chosen = p.candidates!.find((x) => JSON.stringify(x.action) === JSON.stringify(p.action))!;
    expect(chosen.probability).toBeLessThan(0.5);
    expect(chosen.probability).toBeCloseTo(1 / p.candidates!.length, 1);
    c.stop();
    await done;
  });

  it('takes probabilities as given, and a softmax only over a policy’s bare scores', () => {
    const given = [{ action: 'a', score: -0.01, probability: 0.99 }, { action: 'b', score: -4.6, probability: 0.01 }];
    expect(candidateProbabilities(given)).toEqual([0.99, 0.01]);
    expect(chosenProbability(given, 'a')).toBe(0.99);
    const bare = [{ action: 'a', score: 0 }, { action: 'b', score: Math.log(3) }];
    expect(candidateProbabilities(bare)[0]).toBeCloseTo(0.25, 12);
    expect(chosenProbability(bare, 'a')).toBeCloseTo(0.25, 12);
    // An action the policy wrote itself: the best candidate's probability.
    expect(chosenProbability(bare, 'c')).toBeCloseTo(0.75, 12);
    expect(chosenProbability([], 'a')).toBeNull();
  });

  it('reads a candidate stored before steps kept probabilities as the builtin policy wrote it: its score was the probability', () => {
    expect(storedCandidates([{ action: 'a', score: 0.97 }, { action: 'b', score: 0.03 }]).map((c) => c.probability)).toEqual([0.97, 0.03]);
    expect(storedCandidates([{ action: 'a', score: -0.03, probability: 0.97 }])[0]!.probability).toBe(0.97);
  });
});
