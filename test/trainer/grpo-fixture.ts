import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createModel } from '../../core/policy/builtin.js';
import { serializeCheckpoint } from '../../core/policy/checkpoint.js';
import { batchLoss, type LossAggregation, type StepLossInput } from '../../core/rl/grpo.js';
import { encodeFloat32Params } from '../../core/util/float32-params.js';
import { createRng } from '../../core/util/rng.js';

/**
 * Exports, from the TypeScript maths, what the Python trainer must reproduce: a builtin-policy checkpoint,
 * a few episodes of policy steps, and for several loss settings batchLoss's loss and dLogp plus the
 * parameter gradient the network's backward pass accumulates from them (one GRPO update's inputs).
 * resources/trainer/tests/test_grpo_parity.py reads it (AWB_TS_FIXTURE).
 */
export interface FixtureCase {
  name: string;
  options: { clipEps: number; clipEpsHigh: number; klBeta: number; maxLogRatio: number; aggregation: LossAggregation; maxSteps: number };
  loss: number;
  dLogp: number[][];
  grads: number[];
  clipFraction: number;
}

export function writeGrpoFixture(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const rng = createRng('trainer-grpo-fixture');
  const model = createModel(rng, { kind: 'hashed-ngram', dim: 8, charN: 3 }, 5);
  const F = model.net.dims.input;
  const lengths = [2, 3, 1, 4];
  const steps = lengths.flatMap((T, e) => Array.from({ length: T }, (_, t) => {
    const n = rng.int(2, 6);
    const features = new Float32Array(n * F).map(() => 2 * rng.next() - 1);
    const temperature = rng.pick([1, 0.7, 1.5]);
    const chosen = rng.int(0, n - 1);
    const logpNew = model.net.logProbs(features, n, temperature)[chosen]!;
    // log π_old and log π_ref near log π_θ, some far enough that the clip and the KL act
    return { episode: `ep-${e}`, step: t, n, features, chosen, temperature, logpNew,
      logpOld: logpNew + (rng.next() - 0.5) * 0.8, logpRef: logpNew + (rng.next() - 0.5) * 0.6, advantage: (rng.next() - 0.5) * 3 };
  }));
  const episodes: (typeof steps)[] = [];
  let k = 0;
  for (const T of lengths) { episodes.push(steps.slice(k, k + T)); k += T; }
  const settings: FixtureCase['options'][] = [
    { clipEps: 0.2, clipEpsHigh: 0.2, klBeta: 0, maxLogRatio: 20, aggregation: 'step-mean', maxSteps: 6 },
    { clipEps: 0.2, clipEpsHigh: 0.28, klBeta: 0.1, maxLogRatio: 20, aggregation: 'episode-mean', maxSteps: 6 },
    { clipEps: 0.1, clipEpsHigh: 0.3, klBeta: 0.5, maxLogRatio: 0.25, aggregation: 'constant', maxSteps: 6 },
  ];
  const cases: FixtureCase[] = settings.map((options) => {
    const inputs: StepLossInput[][] = episodes.map((e) => e.map((s) => ({ logpNew: s.logpNew, logpOld: s.logpOld, logpRef: s.logpRef, advantage: s.advantage })));
    const r = batchLoss(inputs, options);
    model.net.zeroGrad();
    episodes.forEach((e, i) => e.forEach((s, t) => model.net.accumulateLogProb(s.features, s.n, s.chosen, r.dLogp[i]![t]!, s.temperature)));
    return { name: `${options.aggregation}/kl${options.klBeta}/m${options.maxLogRatio}`, options, loss: r.loss, dLogp: r.dLogp,
      grads: Array.from(model.net.grads), clipFraction: r.stats.clipFraction };
  });
  writeFileSync(join(dir, 'policy.json'), serializeCheckpoint(model, { fixture: 'grpo' }));
  const stepRows = steps.map((s) => ({ episode: s.episode, step: s.step, n: s.n, features: encodeFloat32Params(s.features).base64,
    chosen: s.chosen, temperature: s.temperature, logProb: s.logpOld, logProbRef: s.logpRef, advantage: s.advantage, logpNewTs: s.logpNew }));
  const path = join(dir, 'grpo-fixture.json');
  writeFileSync(path, JSON.stringify({ featureDim: F, steps: stepRows, cases }));
  return path;
}
